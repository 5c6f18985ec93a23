#pragma once
// Runs a workload without the timing model: each kernel's CTAs in launch order, a cluster's CTAs
// taken together (emulating one may need the others: distributed shared memory,
// barrier.cluster), and each CTA's warps one after another or interleaved (the PTX emulator runs
// the others up to a barrier when one waits there). What TraceWriter::workload writes, and what
// `warpsim run --functional` counts.
#include <functional>

#include "frontend/kernel_source.h"

namespace warpsim {

// What the run shows its caller; any member may be left empty.
struct InOrderVisitor {
  std::function<void(const KernelInfo&)> kernel;  // before the kernel's first CTA; may throw to refuse it
  std::function<void(const Dim3&)> cta;
  std::function<void(uint32_t warp)> warp;
  std::function<void(const WarpInst&, uint32_t full_mask)> instruction;
  std::function<void(const KernelSource&)> kernel_done;  // after its last CTA (cancelled_ctas() is final)
  // Take one instruction from each of a CTA's warps in turn, as a warp scheduler would, rather
  // than each warp to its end (what a trace, written warp by warp, needs). `warp` is then not
  // called. The kernel checkers' per-word records see the accesses in this order, and the
  // interleaved one is closer to the timing model's.
  bool interleave_warps = false;
};

// Throws InputError for a cooperative launch: its CTAs wait for each other through memory
// (grid.sync()), and run one at a time the first would wait for the others forever.
void run_in_order(Workload& workload, const InOrderVisitor& visit);

}  // namespace warpsim
