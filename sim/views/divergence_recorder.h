#pragma once
// Watches warps for the divergence view: keeps every issued instruction of a few chosen warps
// (lanes, PC, lines, the wait before it), and for every warp of the kernel attributes idle lanes
// to the branch whose divergence caused them.
//
// Attribution: after a branch, an instruction running with fewer lanes than the branch did
// opens a divergence of that branch; it closes when an instruction runs with all of the
// branch's lanes again (reconvergence). While divergences are open, each instruction's idle
// lanes (the warp's lanes minus its active lanes) are charged to the innermost one. Idle
// lanes / 32 is the issue cycles a full warp would have needed for the same lost work.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "observe/warp_observer.h"

namespace warpsim {

struct IssuedRow {
  Cycle cycle = 0;
  uint32_t mask = 0, pc = 0, line = 0, source_line = 0;
  std::string opcode;
  bool branch = false;
  Cycle waited = 0;            // cycles since the warp's previous issue (or launch)
  StallReason waited_on{};     // the state it was in just before issuing
};

struct WarpPicture {
  Dim3 cta;
  uint32_t warp = 0, sm = 0, slot = 0, full_mask = 0;
  std::vector<IssuedRow> rows;
  uint64_t issued = 0;         // may exceed rows.size() when capped
  uint64_t active_lanes = 0;
};

struct BranchCost {
  uint32_t pc = 0, line = 0, source_line = 0;
  uint64_t executed = 0, diverged = 0;
  uint64_t instructions_on_paths = 0;  // issued while this branch's divergence was innermost
  uint64_t idle_lanes = 0;
};

struct KernelDivergence {
  std::string name;
  std::string source_file;
  std::vector<WarpPicture> warps;         // the chosen warps, in launch order
  std::map<uint32_t, BranchCost> branches;  // by PC (PTX) or line (traces)
  uint64_t warp_instructions = 0, active_lanes = 0, possible_lanes = 0;
  uint64_t unattributed_idle_lanes = 0;   // idle with no open divergence (partial warps, masks in traces)
  std::array<uint64_t, 33> active_lane_histogram{};  // issued instructions by active lanes (0..32)
};

class DivergenceRecorder : public WarpObserver {
 public:
  // `warps`: global warp indices (CTA linear index x warps per CTA + warp) to picture, sorted.
  DivergenceRecorder(std::vector<uint32_t> warps, uint32_t max_rows_per_warp);

  void kernel_started(const KernelInfo& kernel, Cycle start) override;
  void kernel_finished(const KernelInfo& kernel, Cycle end) override;
  void warp_launched(uint32_t sm, uint32_t slot, const KernelInfo& kernel, Dim3 cta, uint32_t warp_in_cta, Cycle first) override;
  void warp_state(uint32_t sm, uint32_t slot, Cycle at, StallReason reason, const WarpInst* issued) override;
  void warp_retired(uint32_t sm, uint32_t slot, Cycle end) override;

  const std::vector<KernelDivergence>& kernels() const { return kernels_; }

 private:
  struct Open {
    uint32_t key, mask;
  };
  struct Live {
    size_t kernel = 0;         // index into kernels_
    bool ptx = false;          // its kernel is PTX: rows are keyed by PC, not trace line
    int picture = -1;          // index into the kernel's warps, or -1
    uint32_t full_mask = 0;
    Cycle last_issue = 0;
    StallReason last_state = StallReason::kNoInstruction;
    bool after_branch = false;
    uint32_t branch_key = 0, branch_mask = 0;
    std::vector<Open> open;    // open divergences, innermost last
  };

  std::vector<uint32_t> chosen_;
  uint32_t max_rows_;
  std::map<const KernelInfo*, size_t> running_;  // kernels started and not finished: their index in kernels_
  std::map<uint64_t, Live> live_;  // by sm << 32 | slot
  std::vector<KernelDivergence> kernels_;
};

}  // namespace warpsim
