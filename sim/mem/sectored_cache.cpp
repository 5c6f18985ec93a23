#include "mem/sectored_cache.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <vector>

#include "common/bit_count.h"

namespace warpsim {

SectoredCache::SectoredCache(uint64_t size_bytes, uint32_t associativity, uint32_t line_bytes, uint32_t sector_bytes,
                             bool track_ready)
    : sets_(std::max<uint64_t>(1, size_bytes / (uint64_t{associativity} * line_bytes))),  // a zero-size cache (all shared memory) still has one set
      assoc_(associativity),
      sectors_(line_bytes / sector_bytes),
      tags_(sets_ * assoc_),
      stamps_(sets_ * assoc_),
      state_(sets_ * assoc_),
      ready_(track_ready ? sets_ * assoc_ * sectors_ : 0) {
  if (sets_ > 1 && (sets_ & (sets_ - 1)) == 0) set_mask_ = sets_ - 1;
  fastmod_multiplier_ = UINT64_MAX / sets_ + 1;
  if (size_bytes == 0) assoc_ = 0;  // never hits, never allocates
}

int SectoredCache::find(uint64_t line) const {
  size_t base = set_of(line) * assoc_;
  const uint64_t* tags = tags_.data() + base;
  for (uint32_t w = 0; w < assoc_; ++w) {
    if (tags[w] == line + 1) return static_cast<int>(w);
  }
  return -1;
}

int SectoredCache::allocate(uint64_t line, Victim& victim) {
  victim = Victim{};
  if (assoc_ == 0) return -1;
  size_t base = set_of(line) * assoc_;
  const uint64_t* tags = tags_.data() + base;
  const uint32_t* stamps = stamps_.data() + base;
  uint32_t chosen = 0;
  for (uint32_t w = 0; w < assoc_; ++w) {
    if (tags[w] == 0) {  // holds no valid sector
      chosen = w;
      break;
    }
    if (stamps[w] < stamps[chosen]) chosen = w;
  }
  State& l = state_[base + chosen];
  if (l.valid) victim = Victim{true, tags_[base + chosen] - 1, l.dirty, l.valid};
  dirty_sectors_ -= static_cast<uint64_t>(bit_count(l.dirty));
  l = State{};
  stamps_[base + chosen] = next_stamp();
  // The tag is set by fill(): a way allocated but never filled stays free.
  tags_[base + chosen] = 0;
  return static_cast<int>(chosen);
}

void SectoredCache::fill(uint64_t line, int way, uint32_t sectors, Cycle ready_at) {
  size_t s = slot(line, way);
  state_[s].valid |= sectors;
  if (sectors) tags_[s] = line + 1;
  if (!ready_.empty()) {
    for (uint32_t i = 0; i < sectors_; ++i)
      if (sectors & (1u << i)) ready_[s * sectors_ + i] = ready_at;
  }
}

void SectoredCache::invalidate(uint64_t line, int way) {
  const size_t s = slot(line, way);
  dirty_sectors_ -= static_cast<uint64_t>(bit_count(state_[s].dirty));
  state_[s] = State{};
  stamps_[s] = 0;
  tags_[s] = 0;
}

void SectoredCache::renumber() {
  if (assoc_ == 0) return;
  std::vector<uint32_t> distinct;
  uint32_t largest = 0;
  for (uint64_t set = 0; set < sets_; ++set) {
    uint32_t* stamps = stamps_.data() + set * assoc_;
    distinct.assign(stamps, stamps + assoc_);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const uint32_t first = distinct.front() == 0 ? 0 : 1;  // a 0 (evict-first) stays 0
    for (uint32_t w = 0; w < assoc_; ++w) {
      stamps[w] = first + static_cast<uint32_t>(std::lower_bound(distinct.begin(), distinct.end(), stamps[w]) - distinct.begin());
      largest = std::max(largest, stamps[w]);
    }
  }
  use_clock_ = largest;
}

}  // namespace warpsim
