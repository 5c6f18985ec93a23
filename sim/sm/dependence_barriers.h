#pragma once
// A warp's six dependence barriers, as SASS control bits use them (isa/control_bits.h). ptxas
// gives each variable-latency instruction a barrier that its result releases (write barrier) or
// its source read releases (read barrier); a later instruction names in its wait mask the
// barriers that must be released before it issues. In hardware a barrier is a counter (Jia et
// al. 2018, section 2.1): waiting on it waits for every instruction that set it, not only the
// one whose result is needed, which is why a barrier here remembers all of them.
//
// A barrier holds the destination registers of the instructions that set it, and the timing
// model's scoreboard says when each is written: every way a result lands (a fixed pipe, MIO, a
// memory response, an mbarrier phase) already updates that entry, so the barrier needs no hook
// of its own. Instructions without destinations hold it until a cycle known at issue.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/cycle.h"
#include "sm/scoreboard.h"

namespace warpsim {

class DependenceBarriers {
 public:
  static constexpr int kCount = 6;

  void clear() {
    for (Barrier& b : barriers_) b.regs.clear(), b.at = 0;
  }

  // Barrier `b` is set by an instruction writing `regs`, or, without registers, until `at`.
  void hold(int b, std::span<const RegId> regs, Cycle at, const Scoreboard& board, Cycle now) {
    Barrier& bar = barriers_[b];
    if (regs.empty()) bar.at = std::max(bar.at, at);
    // A barrier set again and again without a wait (a loop whose results are waited for only
    // at its end) keeps only the writes still pending.
    if (bar.regs.size() > kPruneAt) std::erase_if(bar.regs, [&](RegId r) { return board.ready_at(r) <= now; });
    bar.regs.insert(bar.regs.end(), regs.begin(), regs.end());
  }

  // The first barrier of `mask` not yet released at `now`: when it may be (kNever: on a
  // message) and what it waits on. Barriers found released are emptied.
  bool first_blocking(uint8_t mask, const Scoreboard& board, Cycle now, Cycle& until, Producer& producer) {
    for (int b = 0; b < kCount; ++b) {
      if (!(mask >> b & 1)) continue;
      Barrier& bar = barriers_[b];
      if (bar.at > now) {
        until = bar.at;
        producer = Producer::kFixed;
        return true;
      }
      if (board.first_blocking(bar.regs.data(), static_cast<int>(bar.regs.size()), now, until, producer)) return true;
      bar.regs.clear();
    }
    return false;
  }

 private:
  static constexpr size_t kPruneAt = 64;
  struct Barrier {
    std::vector<RegId> regs;
    Cycle at = 0;
  };
  std::array<Barrier, kCount> barriers_;
};

}  // namespace warpsim
