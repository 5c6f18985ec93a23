#pragma once
// Tag array of a set-associative cache with sectored lines (one tag, per-sector valid and dirty
// bits) and LRU replacement. Timing lives in the owner; this only answers what is present.
// Sets are chosen by line index modulo the set count, so sizes need not be powers of two.
#include <bit>
#include <climits>
#include <cstddef>
#include <cstdint>
#include "common/bit_count.h"
#include "common/zeroed_array.h"
#include "engine/cycle.h"

namespace warpsim {

class SectoredCache {
 public:
  struct Victim {
    bool valid = false;
    uint64_t line = 0;
    uint32_t dirty_sectors = 0;
    uint32_t valid_sectors = 0;
  };

  // `track_ready` keeps a per-sector cycle at which its data arrives (used by L2 to merge
  // requests for sectors still being filled). A sector filled with ready_at = pending(number)
  // comes with the owner's fetch `number` (a number below 2^63), whose time the owner knows
  // (l2_mshrs.h).
  static constexpr Cycle kPendingBit = Cycle{1} << 63;
  static constexpr Cycle pending(uint64_t fetch) { return kPendingBit | fetch; }
  static constexpr bool is_pending(Cycle ready) { return (ready & kPendingBit) && ready != kNever; }
  static constexpr uint64_t fetch_of(Cycle ready) { return ready & ~kPendingBit; }
  SectoredCache(uint64_t size_bytes, uint32_t associativity, uint32_t line_bytes, uint32_t sector_bytes, bool track_ready);

  // Returns the way holding `line`, or -1. Does not change LRU order.
  int find(uint64_t line) const;
  uint32_t valid_sectors(uint64_t line, int way) const { return state_[slot(line, way)].valid; }
  Cycle sector_ready(uint64_t line, int way, int sector) const { return ready_[slot(line, way) * sectors_ + sector]; }
  void touch(uint64_t line, int way) { stamps_[slot(line, way)] = next_stamp(); }
  // Evict-first: the line becomes the least recently used of its set (streaming data, .cs/.lu).
  void demote(uint64_t line, int way) { stamps_[slot(line, way)] = 0; }
  void use(uint64_t line, int way, bool evict_first) { evict_first ? demote(line, way) : touch(line, way); }

  // Makes room for `line` (which must be absent) and returns its way; reports the evicted line.
  int allocate(uint64_t line, Victim& victim);
  void fill(uint64_t line, int way, uint32_t sectors, Cycle ready_at);
  void mark_dirty(uint64_t line, int way, uint32_t sectors) {
    State& l = state_[slot(line, way)];
    dirty_sectors_ += static_cast<uint64_t>(bit_count(sectors & ~l.dirty));
    l.dirty |= sectors;
  }
  void invalidate(uint64_t line, int way);

  // Dirty sectors held now: what a write-back cache still owes memory (sampled runs use it to
  // tell stores absorbed by L2 from stores written to DRAM; report/kernel_summary.cpp).
  uint64_t dirty_sectors() const { return dirty_sectors_; }
  uint64_t sets() const { return sets_; }
  // For tests: the recency clock starts at `stamp` (so that a test reaches its renumbering).
  void set_clock_for_test(uint32_t stamp) { use_clock_ = stamp; }
  uint32_t sectors_per_line() const { return sectors_; }

 private:
  struct State {
    uint32_t valid = 0;
    uint32_t dirty = 0;
  };
  size_t slot(uint64_t line, int way) const { return set_of(line) * assoc_ + static_cast<size_t>(way); }
  // line % sets without a 64-bit division (a hot path): a mask for powers of two, else
  // Lemire's multiply-shift remainder on the line folded to 32 bits.
  size_t set_of(uint64_t line) const {
    if (set_mask_) return line & set_mask_;
    uint32_t folded = static_cast<uint32_t>(line) ^ static_cast<uint32_t>(line >> 32);
    uint64_t low = fastmod_multiplier_ * folded;
    return static_cast<size_t>((static_cast<__uint128_t>(low) * sets_) >> 64);
  }

  uint64_t sets_;
  uint64_t set_mask_ = 0;           // sets - 1 when sets is a power of two (and > 1)
  uint64_t fastmod_multiplier_ = 0;
  uint32_t assoc_;
  uint32_t sectors_;
  // A recency stamp newer than every one given so far.
  uint32_t next_stamp() {
    if (use_clock_ == UINT32_MAX) renumber();
    return ++use_clock_;
  }
  // Replaces each set's stamps by their ranks within the set (equal stamps keep equal ranks, 0
  // stays 0), which is all LRU compares, and restarts the clock after the largest.
  void renumber();

  // A set's tags, recency stamps and sector states each in a contiguous run, so a lookup reads
  // its tags (two host cache lines for 16 ways), and choosing a victim its stamps (one more):
  // a way is free when its tag is 0, as it is exactly when it holds no valid sector. A way's tag
  // is the full line index + 1 (0 when it holds no sector: the arrays start as zero bytes, and
  // a big L2's are never written where the run does not go).
  ZeroedArray<uint64_t> tags_;
  ZeroedArray<uint32_t> stamps_;  // LRU: the larger, the more recent; 0 evict-first
  ZeroedArray<State> state_;
  ZeroedArray<Cycle> ready_;
  uint32_t use_clock_ = 0;
  uint64_t dirty_sectors_ = 0;
};

}  // namespace warpsim
