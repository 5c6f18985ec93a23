// What limits a kernel, in one line. A unit above 60% of its peak makes the kernel bound by it
// (the threshold Nsight Compute's Speed-of-Light rules use to call a unit the bottleneck);
// otherwise the kernel is latency-bound and the top stall says what the warps wait for.
#include <cstdio>

#include "report/kernel_summary.h"

namespace warpsim {
namespace {
constexpr double kBusy = 0.60;

std::string percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", f * 100);
  return buf;
}

// The memory-side unit nearest its peak (the first of equals), with how the reasons below name
// it and what a memory-bound reason adds to the name.
struct MemoryUnit {
  const char* name;
  const char* what;
  double utilisation;
};
MemoryUnit busiest_memory_unit(const Summary& s) {
  MemoryUnit busiest{"DRAM", " bandwidth", s.dram_utilisation};
  for (MemoryUnit u : {MemoryUnit{"L2", " bandwidth", s.l2_utilisation},
                       MemoryUnit{"shared-memory data path", " (MIO wavefronts, bank conflicts included)", s.mio_utilisation},
                       MemoryUnit{"L1 tag stage", " (cache lines of global accesses)", s.l1_tag_utilisation}})
    if (u.utilisation > busiest.utilisation) busiest = u;
  return busiest;
}
}  // namespace

void classify_bound(Summary& s) {
  const MemoryUnit unit = busiest_memory_unit(s);
  const double memory = unit.utilisation;
  double compute = std::max(s.issue_utilisation, s.busiest_pipe_utilisation);
  if (memory >= kBusy && memory >= compute) {
    s.bound = "memory";
    s.bound_reason = std::string(unit.name) + unit.what + " at " + percent(memory) + " of peak";
    return;
  }
  if (compute >= kBusy) {
    s.bound = "compute";
    s.bound_reason = s.busiest_pipe_utilisation >= s.issue_utilisation
                         ? s.busiest_pipe + " pipe busy " + percent(s.busiest_pipe_utilisation) + " of cycles"
                         : "issue slots " + percent(s.issue_utilisation) + " used";
    // Tensor cores waiting on their operands' shared-memory reads are busy but not computing.
    if (s.busiest_pipe == "tensor" && s.tensor_smem_bound_share >= 0.05) {
      s.bound_reason += ", " + percent(s.tensor_smem_bound_share) + " of it reading MMA operands from shared memory";
    }
    return;
  }
  int top = -1;
  for (int r = 0; r < kNumStallReasons; ++r) {
    auto reason = static_cast<StallReason>(r);
    if (reason == StallReason::kSelected || reason == StallReason::kNotSelected) continue;
    if (top < 0 || s.stalls[r] > s.stalls[top]) top = r;
  }
  char buf[240];
  std::snprintf(buf, sizeof buf, "no unit above %s of peak (busiest memory unit %s at %s, busiest pipe %s); warps mostly wait on %s (%.1f cycles per instruction)",
                percent(kBusy).c_str(), unit.name, percent(memory).c_str(), percent(compute).c_str(),
                std::string(stall_reason_name(static_cast<StallReason>(top))).c_str(), s.stalls[top]);
  s.bound = "latency";
  s.bound_reason = buf;
}

}  // namespace warpsim
