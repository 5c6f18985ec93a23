#pragma once
// Tells a warp that polls an mbarrier or memory forever from one that is only waiting, so that a
// phase that can never complete (a TMA box or a bulk copy delivering fewer bytes than expect_tx
// announced, a missing arrive) or a flag no one will set (a grid barrier that one CTA skips) is
// reported at once instead of after the livelock limit.
//
// The argument: between two of its failing polls, a warp that executed only instructions whose
// effects stay in its own registers (no store, atomic, arrive, barrier, copy or exit, no load of
// memory written from outside the unit watched, no clock read: EmuInst::register_only) and came
// back to the same state, while no warp of the unit (its CTA or cluster for an mbarrier; the
// grid, once all its CTAs have begun, for memory) executed anything else either, will repeat
// that loop forever for as long as nothing else writes: its loads see the same bytes and its
// waits the same barriers. When every live warp of the unit is in such a loop or at a CTA
// barrier (released only by an arrival), none of them can ever write again.
//
// Cycles are found as Brent's algorithm finds them: the state at poll 2^k is kept and compared
// with every poll up to 2^(k+1), so a loop of any period is found after a few times its length.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace warpsim::ptx {

class SpinWatch {
 public:
  // At a failing poll: `effects` counts the instructions with effects the unit watched (CTA,
  // cluster or grid) has executed so far, `state()` gives everything the warp's next steps depend
  // on. It is asked for only while nothing with effects runs, so loops that write as they go
  // cost a comparison of counters per poll.
  template <class State>
  void poll(uint64_t effects, State&& state) {
    if (effects != effects_) {
      effects_ = effects;
      snapshot_.clear(), cycling_ = false;
      return;
    }
    if (cycling_) return;
    const std::span<const uint32_t> now = state();
    if (snapshot_.empty()) {
      snapshot_.assign(now.begin(), now.end());
      power_ = 1, since_ = 0;
      return;
    }
    if (std::ranges::equal(now, snapshot_)) {
      cycling_ = true;
      return;
    }
    if (++since_ == power_) {
      snapshot_.assign(now.begin(), now.end());
      power_ *= 2, since_ = 0;
    }
  }
  // True when the warp was seen in a loop without effects and nothing with effects ran since.
  bool cycling(uint64_t effects) const { return cycling_ && effects == effects_; }
  void reset() { snapshot_.clear(), cycling_ = false; }

 private:
  std::vector<uint32_t> snapshot_;
  uint64_t effects_ = 0;
  uint64_t power_ = 1, since_ = 0;
  bool cycling_ = false;
};

}  // namespace warpsim::ptx
