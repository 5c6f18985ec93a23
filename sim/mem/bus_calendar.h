#pragma once
// A data bus that is booked, not queued: each transfer takes the earliest free stretch long
// enough for it at or after the cycle its data is ready, so a transfer that is ready early can
// use the gap in front of one that is waiting (a DRAM bank activating a row, say). A FIFO server
// (bandwidth_gate.h) would leave that gap idle. Times are kept in 2^-20 cycle, as in
// BandwidthGate, so fractional rates stay exact.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/drop_forgotten.h"
#include "engine/cycle.h"

namespace warpsim {

class BusCalendar {
 public:
  static constexpr uint64_t kScale = 1 << 20;

  explicit BusCalendar(double bytes_per_cycle) : fp_per_byte_(std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(kScale / bytes_per_cycle)))) {}

  // Books `bytes` at or after `ready_fp` (in 2^-20 cycle); returns when the last byte has crossed.
  uint64_t book_fp(uint64_t ready_fp, uint64_t bytes) {
    const uint64_t length = bytes * fp_per_byte_;
    forget_before(ready_fp);
    // Booked stretches are disjoint and sorted by start; find the first gap of `length` at or
    // after `ready_fp`, starting from the last stretch that begins before it.
    auto it = std::upper_bound(booked_.begin() + first_, booked_.end(), ready_fp, [](uint64_t t, const Stretch& s) { return t < s.start; });
    uint64_t start = ready_fp;
    if (it != booked_.begin() + first_ && std::prev(it)->end > start) start = std::prev(it)->end;
    while (it != booked_.end() && it->start < start + length) {
      start = std::max(start, it->end);
      ++it;
    }
    const uint64_t end = start + length;
    // `it` is the first stretch after the new one. Merge with neighbours that touch, so a
    // saturated bus stays one stretch.
    const bool joins_before = it != booked_.begin() + first_ && std::prev(it)->end == start;
    const bool joins_after = it != booked_.end() && it->start == end;
    if (joins_before && joins_after) {
      std::prev(it)->end = it->end;
      booked_.erase(it);
    } else if (joins_before) {
      std::prev(it)->end = end;
    } else if (joins_after) {
      it->start = start;
    } else {
      booked_.insert(it, Stretch{start, end});
    }
    return end;
  }
 private:
  struct Stretch {
    uint64_t start, end;
  };
  // Bookings that ended long before `t` cannot matter again: requests reach the bus in nearly
  // increasing time order (the memory side handles them as they arrive).
  void forget_before(uint64_t t) {
    const uint64_t horizon = 4096 * kScale;
    if (t < horizon) return;
    while (first_ < booked_.size() && booked_[first_].end < t - horizon) ++first_;
    drop_forgotten(booked_, first_);
  }

  uint64_t fp_per_byte_;
  std::vector<Stretch> booked_;  // sorted by start; [first_, end) are live
  size_t first_ = 0;
};

}  // namespace warpsim
