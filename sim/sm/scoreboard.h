#pragma once
// Per-warp register readiness: the cycle each register's pending write completes, and what kind
// of producer it waits on (which decides the stall reason reported while waiting). A tensor-core
// result is told apart because SASS timing still waits on it register by register (Sm::classify).
#include <cstdint>
#include <vector>

#include "engine/cycle.h"
#include "frontend/warp_inst.h"
#include "stats/stall_reason.h"

namespace warpsim {

enum class Producer : uint8_t { kFixed, kMio, kMemory, kTensor };

inline StallReason stall_for(Producer p) {
  switch (p) {
    case Producer::kFixed:
    case Producer::kTensor: return StallReason::kWait;
    case Producer::kMio: return StallReason::kShortScoreboard;
    case Producer::kMemory: return StallReason::kLongScoreboard;
  }
  return StallReason::kWait;
}

class Scoreboard {
 public:
  void clear() { regs_.clear(); }
  // Cycle at which `r` may be read (0 if never written).
  Cycle ready_at(RegId r) const { return r < regs_.size() ? regs_[r].ready() : 0; }
  Producer producer(RegId r) const { return regs_[r].producer(); }
  void set(RegId r, Cycle ready, Producer p) {
    if (r >= regs_.size()) regs_.resize(r + 1u);
    regs_[r] = Entry(ready, p);
  }

  // The last cycle a fixed-latency write lands (pending memory results are tracked elsewhere).
  Cycle latest_fixed_ready() const {
    Cycle latest = 0;
    for (const Entry& e : regs_)
      if (e.ready() != kNever && e.ready() > latest) latest = e.ready();
    return latest;
  }

  // Asks the host CPU to fetch the entries `first_blocking` will read for these registers.
  void prefetch(const RegId* regs, int n) const {
    for (int i = 0; i < n; ++i)
      if (regs[i] < regs_.size()) __builtin_prefetch(&regs_[regs[i]]);
  }

  // The first of an instruction's `n` operand registers not ready at `now`; false if all are.
  bool first_blocking(const RegId* regs, int n, Cycle now, Cycle& until, Producer& producer) const {
    for (int i = 0; i < n; ++i) {
      RegId r = regs[i];
      if (r < regs_.size() && regs_[r].ready() > now) {
        until = regs_[r].ready();
        producer = regs_[r].producer();
        return true;
      }
    }
    return false;
  }

  // The same, over only the registers whose pending write comes from `from`.
  bool first_blocking_from(Producer from, const RegId* regs, int n, Cycle now, Cycle& until) const {
    for (int i = 0; i < n; ++i) {
      RegId r = regs[i];
      if (r < regs_.size() && regs_[r].ready() > now && regs_[r].producer() == from) {
        until = regs_[r].ready();
        return true;
      }
    }
    return false;
  }

 private:
  // Ready cycle and producer packed in 8 bytes: a warp's scoreboard is read for every warp the
  // scheduler looks at, so its size decides how often that look misses the cache. Cycles below
  // 2^56 are exact; kNever (waiting for memory) is kept as the all-ones 56-bit value.
  class Entry {
   public:
    Entry() = default;
    Entry(Cycle ready, Producer p)
        : bits_((ready >= kReadyMask ? kReadyMask : ready) | uint64_t{static_cast<uint8_t>(p)} << 56) {}
    Cycle ready() const {
      const uint64_t r = bits_ & kReadyMask;
      return r == kReadyMask ? kNever : r;
    }
    Producer producer() const { return static_cast<Producer>(bits_ >> 56); }

   private:
    static constexpr uint64_t kReadyMask = (uint64_t{1} << 56) - 1;
    uint64_t bits_ = 0;
  };
  std::vector<Entry> regs_;
};

}  // namespace warpsim
