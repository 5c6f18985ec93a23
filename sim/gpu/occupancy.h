#pragma once
// How many CTAs of a kernel fit on one SM, computed the way the CUDA occupancy calculator does:
// the minimum over the warp, register, shared-memory and CTA-count limits.
#include <cstdint>
#include <string>

#include "config/gpu_spec.h"
#include "frontend/kernel_source.h"

namespace warpsim {

struct Occupancy {
  uint32_t ctas_per_sm = 0;
  uint32_t limit_ctas = 0, limit_warps = 0, limit_registers = 0, limit_shared = 0;
  std::string limiter;                 // "warps", "registers", "shared_mem" or "blocks" (ncu names)
  uint32_t warps_per_cta = 0;
  uint32_t registers_per_warp = 0;     // after allocation rounding
  uint32_t shared_per_cta = 0;         // after rounding and the per-CTA reservation
  uint32_t shared_carveout = 0;        // bytes of the unified L1 given to shared memory
  uint32_t l1_bytes = 0;               // what is left for L1
  double theoretical_occupancy() const;  // fraction of max warps
  uint32_t max_warps_per_sm = 0;
};

// Throws InputError (at the kernel's source) if the kernel cannot run at all on `spec`.
Occupancy compute_occupancy(const GpuSpec& spec, const KernelInfo& kernel);
// How many of the kernel's CTAs the GPU holds at once (CTAs per SM x SMs). Throws InputError for
// a cooperative launch larger than that, as CUDA refuses it (cudaErrorCooperativeLaunchTooLarge).
uint64_t resident_ctas(const GpuSpec& spec, const KernelInfo& kernel, const Occupancy& occupancy);

}  // namespace warpsim
