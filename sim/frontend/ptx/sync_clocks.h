#pragma once
// Happens-before between a CTA's warps for the shared-memory race checker, as vector clocks
// (Lamport; Fidge and Mattern), the method of ThreadSanitizer and FastTrack, at warp grain.
//
// Each warp has a clock that advances when it releases: when it arrives at a barrier (bar.sync,
// bar.arrive, bar.red, an mbarrier arrive, a bulk copy completing bytes on an mbarrier,
// barrier.cluster.arrive; and through memory, an atomic or a strong store to a word). A barrier gathers the clocks of the warps that arrive in one of its
// phases; a warp that waits for the phase to complete acquires them. An access of warp U at
// clock c is ordered before warp W's access when W has acquired U's clock c or later. So a
// producer/consumer hand-off through a named barrier or an mbarrier orders exactly the warps
// that take part in it, where counting bar.sync instructions ordered everything or nothing.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace warpsim::ptx {

// What one barrier phase carries from the warps arriving in it to the warps waiting for it:
// per warp, the latest clock that arrived (0: none).
using PhaseClock = std::vector<uint32_t>;

class SyncClocks {
 public:
  // Clocks for `warps` warps; each starts at 1, so an access is never ordered before a warp that
  // has acquired nothing from its warp.
  void reset(uint32_t warps) {
    n_ = warps;
    known_.assign(size_t{warps} * warps, 0);
    for (uint32_t w = 0; w < warps; ++w) known_[size_t{w} * warps + w] = 1;
  }
  bool enabled() const { return n_ != 0; }
  // Row `warp`: per warp, the latest clock `warp` has acquired (its own: its clock now), so
  // warp `other`'s access at clock c is ordered before `warp`'s when row(warp)[other] >= c.
  // Valid until the next reset.
  const uint32_t* row(uint32_t warp) const { return &known_[size_t{warp} * n_]; }
  // `warp` arrives in a phase: what it has seen joins the phase's clock; then its own clock advances.
  void release(uint32_t warp, PhaseClock& phase) {
    join_into(warp, phase);
    advance(warp);
  }
  // The two halves of release, for an instruction that releases into several clocks at once.
  void join_into(uint32_t warp, PhaseClock& phase) const {
    phase.resize(n_, 0);
    const uint32_t* row = &known_[size_t{warp} * n_];
    for (uint32_t u = 0; u < n_; ++u) phase[u] = std::max(phase[u], row[u]);
  }
  void advance(uint32_t warp) { ++known_[size_t{warp} * n_ + warp]; }
  // `warp` waited for a phase to complete: it has seen what every warp arriving in it had seen.
  void acquire(uint32_t warp, const PhaseClock& phase) {
    uint32_t* row = &known_[size_t{warp} * n_];
    for (uint32_t u = 0; u < n_ && u < phase.size(); ++u) row[u] = std::max(row[u], phase[u]);
  }

 private:
  uint32_t n_ = 0;
  std::vector<uint32_t> known_;  // row w: the clock of each warp that warp w has acquired
};

}  // namespace warpsim::ptx
