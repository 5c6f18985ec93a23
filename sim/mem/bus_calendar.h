#pragma once
// A data bus that is booked, not queued: each transfer takes the earliest free stretch long
// enough for it at or after the cycle its data is ready, so a transfer that is ready early can
// use the gap in front of one that is waiting (a DRAM bank activating a row, say). A FIFO server
// (bandwidth_gate.h) would leave that gap idle. Times are kept in 2^-20 cycle, as in
// BandwidthGate, so fractional rates stay exact.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>

#include "engine/cycle.h"

namespace warpsim {

class BusCalendar {
 public:
  static constexpr uint64_t kScale = 1 << 20;

  explicit BusCalendar(double bytes_per_cycle) : fp_per_byte_(std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(kScale / bytes_per_cycle)))) {}

  // Books `bytes` at or after `ready`; returns the cycle the last byte has crossed.
  Cycle book(Cycle ready, uint64_t bytes) { return (book_fp(ready * kScale, bytes) + kScale - 1) / kScale; }
  // The same in 2^-20 cycle: when the last byte has crossed.
  uint64_t book_fp(uint64_t ready_fp, uint64_t bytes) {
    const uint64_t length = bytes * fp_per_byte_;
    busy_fp_ += length;
    uint64_t start = ready_fp;
    forget_before(start);
    // Intervals are disjoint and sorted; find the first gap of `length` at or after `start`.
    auto it = booked_.upper_bound(start);
    if (it != booked_.begin() && std::prev(it)->second > start) start = std::prev(it)->second;
    while (it != booked_.end() && it->first < start + length) {
      start = std::max(start, it->second);
      ++it;
    }
    const uint64_t end = start + length;
    // Merge with neighbours that touch, so the map stays short when the bus is saturated.
    auto next = booked_.lower_bound(end);
    uint64_t merged_end = end;
    if (next != booked_.end() && next->first == end) {
      merged_end = next->second;
      next = booked_.erase(next);
    }
    auto prev = booked_.lower_bound(start);
    if (prev != booked_.begin() && std::prev(prev)->second == start) {
      std::prev(prev)->second = merged_end;
    } else {
      booked_.emplace(start, merged_end);
    }
    return end;
  }
  uint64_t busy_cycles() const { return busy_fp_ / kScale; }

 private:
  // Bookings that ended long before `t` cannot matter again: requests reach the bus in nearly
  // increasing time order (the memory side handles them as they arrive).
  void forget_before(uint64_t t) {
    const uint64_t horizon = 4096 * kScale;
    if (t < horizon) return;
    while (!booked_.empty() && booked_.begin()->second < t - horizon) booked_.erase(booked_.begin());
  }

  uint64_t fp_per_byte_;
  uint64_t busy_fp_ = 0;
  std::map<uint64_t, uint64_t> booked_;  // start -> end
};

}  // namespace warpsim
