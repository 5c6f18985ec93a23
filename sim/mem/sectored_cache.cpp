#include "mem/sectored_cache.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace warpsim {

SectoredCache::SectoredCache(uint64_t size_bytes, uint32_t associativity, uint32_t line_bytes, uint32_t sector_bytes,
                             bool track_ready)
    : sets_(std::max<uint64_t>(1, size_bytes / (uint64_t{associativity} * line_bytes))),  // a zero-size cache (all shared memory) still has one set
      assoc_(associativity),
      sectors_(line_bytes / sector_bytes),
      tags_(sets_ * assoc_),
      lines_(sets_ * assoc_),
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
  uint32_t chosen = 0;
  for (uint32_t w = 0; w < assoc_; ++w) {
    const Line& l = lines_[base + w];
    if (!l.valid) {
      chosen = w;
      break;
    }
    if (l.last_use < lines_[base + chosen].last_use) chosen = w;
  }
  Line& l = lines_[base + chosen];
  if (l.valid) victim = Victim{true, tags_[base + chosen] - 1, l.dirty, l.valid};
  dirty_sectors_ -= static_cast<uint64_t>(std::popcount(l.dirty));
  l = Line{++use_clock_, 0, 0};
  // The tag is set by fill(): a way allocated but never filled stays free.
  tags_[base + chosen] = 0;
  return static_cast<int>(chosen);
}

void SectoredCache::fill(uint64_t line, int way, uint32_t sectors, Cycle ready_at) {
  size_t s = slot(line, way);
  lines_[s].valid |= sectors;
  if (sectors) tags_[s] = line + 1;
  if (!ready_.empty()) {
    for (uint32_t i = 0; i < sectors_; ++i)
      if (sectors & (1u << i)) ready_[s * sectors_ + i] = ready_at;
  }
}

void SectoredCache::settle(uint64_t line, int way, uint32_t fetch, Cycle ready_at) {
  // Only the ready times are looked at (one host cache line): a slot that no longer holds the
  // line holds none marked with this fetch in a valid sector (filling overwrites the marks, and a
  // fetch's id is reused only after it has settled), so a stale mark it sets is in an invalid one.
  Cycle* ready = ready_.data() + slot(line, way) * sectors_;
  for (uint32_t i = 0; i < sectors_; ++i)
    if (ready[i] == pending(fetch)) ready[i] = ready_at;
}

void SectoredCache::invalidate(uint64_t line, int way) {
  const size_t s = slot(line, way);
  dirty_sectors_ -= static_cast<uint64_t>(std::popcount(lines_[s].dirty));
  lines_[s] = Line{};
  tags_[s] = 0;
}

}  // namespace warpsim
