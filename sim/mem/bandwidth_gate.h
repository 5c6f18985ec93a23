#pragma once
// A server with a fixed service rate: each use occupies it for bytes / rate, queued behind
// earlier uses. Time is kept in 2^-20 cycle so fractional rates stay exact integers.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/cycle.h"

namespace warpsim {

class BandwidthGate {
 public:
  static constexpr uint64_t kScale = 1 << 20;

  BandwidthGate() = default;
  explicit BandwidthGate(double bytes_per_cycle) : fp_per_byte_(std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(kScale / bytes_per_cycle)))) {}

  // Occupies the server for `bytes` starting no earlier than `ready`; returns the cycle the
  // last byte leaves.
  Cycle serve(Cycle ready, uint64_t bytes) {
    uint64_t start = std::max(ready * kScale, free_fp_);
    free_fp_ = start + bytes * fp_per_byte_;
    busy_fp_ += bytes * fp_per_byte_;
    return (free_fp_ + kScale - 1) / kScale;
  }
  // Cycles of backlog at `now`.
  Cycle backlog(Cycle now) const { return free_fp_ > now * kScale ? (free_fp_ - now * kScale) / kScale : 0; }
  uint64_t busy_cycles() const { return busy_fp_ / kScale; }
  void reset() { free_fp_ = 0; busy_fp_ = 0; }

 private:
  uint64_t fp_per_byte_ = kScale;
  uint64_t free_fp_ = 0;
  uint64_t busy_fp_ = 0;
};

}  // namespace warpsim
