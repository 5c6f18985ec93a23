#pragma once
// Tag array of a set-associative cache with sectored lines (one tag, per-sector valid and dirty
// bits) and LRU replacement. Timing lives in the owner; this only answers what is present.
// Sets are chosen by line index modulo the set count, so sizes need not be powers of two.
#include <bit>
#include <cstddef>
#include <cstdint>
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
  // requests for sectors still being filled). A sector filled with ready_at = pending(id) is on
  // its way at a time not known yet, from the owner's fetch `id`; settle() gives it its time.
  static constexpr Cycle kPendingBit = Cycle{1} << 63;
  static constexpr Cycle pending(uint32_t fetch) { return kPendingBit | fetch; }
  static constexpr bool is_pending(Cycle ready) { return (ready & kPendingBit) && ready != kNever; }
  static constexpr uint32_t fetch_of(Cycle ready) { return static_cast<uint32_t>(ready); }
  SectoredCache(uint64_t size_bytes, uint32_t associativity, uint32_t line_bytes, uint32_t sector_bytes, bool track_ready);

  // Returns the way holding `line`, or -1. Does not change LRU order.
  int find(uint64_t line) const;
  uint32_t valid_sectors(uint64_t line, int way) const { return lines_[slot(line, way)].valid; }
  Cycle sector_ready(uint64_t line, int way, int sector) const { return ready_[slot(line, way) * sectors_ + sector]; }
  void touch(uint64_t line, int way) { lines_[slot(line, way)].last_use = ++use_clock_; }
  // Evict-first: the line becomes the least recently used of its set (streaming data, .cs/.lu).
  void demote(uint64_t line, int way) { lines_[slot(line, way)].last_use = 0; }
  void use(uint64_t line, int way, bool evict_first) { evict_first ? demote(line, way) : touch(line, way); }

  // Makes room for `line` (which must be absent) and returns its way; reports the evicted line.
  int allocate(uint64_t line, Victim& victim);
  void fill(uint64_t line, int way, uint32_t sectors, Cycle ready_at);
  void mark_dirty(uint64_t line, int way, uint32_t sectors) {
    Line& l = lines_[slot(line, way)];
    dirty_sectors_ += static_cast<uint64_t>(std::popcount(sectors & ~l.dirty));
    l.dirty |= sectors;
  }
  void invalidate(uint64_t line, int way);
  // Gives the sectors of `line` still waiting for `fetch` their arrival cycle (`way`: where it
  // was filled; no search of the set).
  void settle(uint64_t line, int way, uint32_t fetch, Cycle ready_at);

  // Dirty sectors held now: what a write-back cache still owes memory (sampled runs use it to
  // tell stores absorbed by L2 from stores written to DRAM; report/kernel_summary.cpp).
  uint64_t dirty_sectors() const { return dirty_sectors_; }
  uint64_t sets() const { return sets_; }
  uint32_t sectors_per_line() const { return sectors_; }

 private:
  struct Line {
    uint64_t last_use = 0;
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
  // Tags apart from the rest, so a lookup scans one contiguous run of a set's tags. A way's tag
  // is the full line index + 1 (0 when it holds no sector: the arrays start as zero bytes, and
  // a big L2's are never written where the run does not go).
  ZeroedArray<uint64_t> tags_;
  ZeroedArray<Line> lines_;
  ZeroedArray<Cycle> ready_;
  uint64_t use_clock_ = 0;
  uint64_t dirty_sectors_ = 0;
};

}  // namespace warpsim
