#pragma once
// What one CTA of a kernel takes of an SM while it is resident: warp slots, registers and shared
// memory after allocation rounding (gpu/occupancy.h computes them), and the kernel's own limit of
// CTAs per SM. Kernels running side by side (streams) share an SM as far as these allow.
#include <cstdint>

#include "frontend/kernel_source.h"

namespace warpsim {

struct CtaFootprint {
  const KernelInfo* kernel = nullptr;
  uint32_t kernel_index = 0;  // which of the run's kernels (reported back when the CTA is done)
  uint32_t warps = 0;
  uint32_t registers = 0;     // per CTA
  uint32_t shared = 0;        // per CTA, with the per-CTA reservation
  uint32_t max_resident = 0;  // the kernel's CTAs per SM by its occupancy
  uint32_t kernel_carveout = 0;  // the shared-memory carve-out the driver picks for the kernel
  // The key of a CTA's cluster in ClusterBarriers: unique across kernels running side by side
  // (a kernel without clusters runs each CTA as a cluster of one on GPUs that have them).
  uint64_t cluster_key(const Dim3& cta) const { return uint64_t{kernel_index} << 48 ^ kernel->cluster_of(cta); }
};

}  // namespace warpsim
