#pragma once
// Runs a workload without the timing model, each kernel's CTAs in launch order, in one of two
// ways:
// - one CTA at a time (a cluster's CTAs together: emulating one may need the others, through
//   distributed shared memory or barrier.cluster), each warp to its end before the next (the PTX
//   emulator runs the others up to a barrier when one waits there). What TraceWriter::workload
//   writes, warp by warp.
// - as a GPU holds them (`resident` set): up to that many CTAs at once, whole clusters, a new
//   one taken when one ends, the held warps taking turns of a few instructions. What
//   `warpsim run --functional` runs: CTAs that wait for each other (a cooperative grid's
//   barrier, a flag a later CTA sets) make progress, and cluster launch control finds the
//   CTAs a GPU would not have launched yet.
#include <cstdint>
#include <functional>

#include "frontend/kernel_source.h"

namespace warpsim {

// What the run shows its caller; any member may be left empty.
struct InOrderVisitor {
  std::function<void(const KernelInfo&)> kernel;  // before the kernel's first CTA; may throw to refuse it
  // How many CTAs the GPU would hold at once (after `kernel`; may throw to refuse a cooperative
  // grid larger than that); unset: one cluster at a time.
  std::function<uint64_t(const KernelInfo&)> resident;
  std::function<void(const Dim3&)> cta;
  std::function<void(uint32_t warp)> warp;  // one CTA at a time only: before the warp's instructions
  std::function<void(const WarpInst&, uint32_t full_mask)> instruction;
  std::function<void(const KernelSource&)> kernel_done;  // after its last CTA (cancelled_ctas() is final)
};

// Throws InputError for a cooperative launch run one CTA at a time: its CTAs wait for each other
// through memory (grid.sync()), and the first would wait for the others forever.
void run_in_order(Workload& workload, const InOrderVisitor& visit);

// Runs the CTAs `kernel` has not handed out yet, `resident` at a time, as run_in_order does with
// `resident` set: what a sampled simulation leaves untimed (gpu/cta_sampler.h). Only `cta` and
// `instruction` are called.
void finish_in_order(KernelSource& kernel, uint64_t resident, const InOrderVisitor& visit);

}  // namespace warpsim
