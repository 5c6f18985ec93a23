// Blackwell's tcgen05.mma in the timing model: one thread issues an MMA of the whole M x N x K
// shape, which runs on all four sub-partitions' tensor cores together (the SM's full rate) and
// writes tensor memory, not registers. The issuing warp goes on at once; tcgen05.commit arrives
// on its mbarrier when the warp's last MMA is done (Sm::issue_mbarrier).
#include <algorithm>
#include <cmath>

#include "sm/sm.h"

namespace warpsim {

void Sm::issue_whole_sm_mma(Warp& w, const WarpInst& in, uint64_t flops_per_clk, Cycle now) {
  const OpInfo& op = *in.op;
  if (in.active_mask == 0) return;
  // Each issuing lane starts one MMA (normally one elected thread issues it).
  const uint64_t flops = op.tensor_flops() * static_cast<uint64_t>(in.active_lanes());
  Cycle start = now;
  for (const auto& sp : subs_) start = std::max(start, sp.pipe_free[static_cast<int>(Pipe::kTensor)]);
  // At the clock the precision's tensor peak assumes (GpuSpec::tensor_clock_mhz), as for the other MMAs.
  const auto interval = std::max<Cycle>(1, static_cast<Cycle>(std::llround(double(flops) * spec_.clocks.boost_mhz /
                                                                            (double(flops_per_clk) * spec_.tensor_clock_mhz(op.tensor)))));
  for (auto& sp : subs_) sp.pipe_free[static_cast<int>(Pipe::kTensor)] = start + interval;
  stats_.tensor_flops += flops;
  stats_.tensor_busy_cycles += interval * subs_.size();
  w.tensor_done = std::max(w.tensor_done, start + interval + spec_.tensor.latency);
}

}  // namespace warpsim
