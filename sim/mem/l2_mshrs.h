#pragma once
// L2's reads from HBM in flight, and the responses waiting for them (L2's MSHRs). A read that
// misses opens a fetch for the sectors it lacks; later reads of those sectors, from the same
// slice or (with the far-partition latency) another partition's, wait on the same fetch. The
// fetch's arrival time is known only when the DRAM controller lets its bank take it (FR-FCFS may
// serve later requests first), so responses that depend on one wait here until then.
//
// Unbounded: no published figure limits L2's misses in flight, and the SMs' own MSHRs already
// bound them.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/cycle.h"
#include "mem/mem_request.h"

namespace warpsim {

// The slice's tag array names the fetch each sector waits for (SectoredCache::pending(number)),
// so a read finds it there. Fetches are numbered in the order they open and never renumbered, and
// a fetch's record keeps its arrival cycle after its bank has taken it: the sectors keep naming
// it, and a read asks arrival_of() when the data comes, rather than each fetch writing its time
// into the slice (one more host cache miss per fetch, in an array as large as L2). A record is
// overwritten only once its data has arrived, so a number whose record is gone names data that
// is there. A fetch whose line has left the slice still answers its waiters.
class L2Mshrs {
 public:
  struct Response {
    MemRequest request;
    uint32_t slice = 0;
    Cycle data = 0;            // when the data is there, as far as known
    uint32_t outstanding = 0;  // fetches it still waits for
  };
  struct Fetch {
    uint64_t number = kNoFetch;
    Cycle arrives = kNever;  // kNever until its bank takes it
    // Responses waiting, in the order they came, with the cycles added after the arrival: the
    // first kept here (most fetches have one, and a separate vector's buffer is one more host
    // cache miss per fetch), the rest in `more`.
    uint32_t first = kNone;
    Cycle first_extra = 0;
    std::vector<std::pair<uint32_t, Cycle>> more;
  };
  static constexpr uint64_t kNoFetch = ~uint64_t{0};
  static constexpr uint32_t kNone = ~uint32_t{0};
  using Waiters = std::vector<std::pair<uint32_t, Cycle>>;

  uint32_t open_response(const MemRequest& request, uint32_t slice, Cycle known) {
    const uint32_t id = take_slot(responses_, free_responses_);
    responses_[id] = Response{request, slice, known, 0};
    return id;
  }
  Response& response(uint32_t id) { return responses_[id]; }
  void close_response(uint32_t id) { free_responses_.push_back(id); }

  // Opens the next fetch at `now` (the memory side's clock: no read handled later is earlier).
  uint64_t open_fetch(Cycle now) {
    const uint64_t number = next_fetch_++;
    for (;;) {
      Fetch& f = fetches_[number & mask_];
      // The record there is free once its data has arrived by now: a read from now on that still
      // names it finds its data there, as it would at that earlier cycle.
      if (f.number == kNoFetch || f.arrives <= now) {
        f.number = number, f.arrives = kNever;  // no waiters; `more` keeps its storage
        return number;
      }
      grow();
    }
  }
  // When fetch `number`'s data arrives: kNever while its bank has not taken it; for a fetch whose
  // record is gone, 0 (its data arrived before the current cycle, which is all a reader needs).
  Cycle arrival_of(uint64_t number) const {
    const Fetch& f = fetches_[number & mask_];
    return f.number == number ? f.arrives : 0;
  }
  // `response` waits for `fetch` (once, however many of its sectors it wants).
  void wait_for(uint64_t fetch, uint32_t response, Cycle extra) {
    Fetch& f = fetches_[fetch & mask_];
    if (f.first == response) {
      f.first_extra = std::max(f.first_extra, extra);
      return;
    }
    for (auto& [id, added] : f.more) {
      if (id != response) continue;
      added = std::max(added, extra);
      return;
    }
    if (f.first == kNone) {
      f.first = response, f.first_extra = extra;
    } else {
      f.more.emplace_back(response, extra);
    }
    ++responses_[response].outstanding;
  }
  // Records when a fetch its bank has taken arrives, handing over its waiters.
  void close_fetch(uint64_t number, Cycle arrives, Waiters& waiters) {
    Fetch& f = fetches_[number & mask_];
    f.arrives = arrives;
    waiters.clear();
    if (f.first != kNone) waiters.emplace_back(f.first, f.first_extra);
    waiters.insert(waiters.end(), f.more.begin(), f.more.end());
    f.first = kNone, f.first_extra = 0;
    f.more.clear();
  }

  size_t responses_waiting() const { return responses_.size() - free_responses_.size(); }

 private:
  // A freed slot if there is one (its storage reused), else a new one.
  template <typename T>
  static uint32_t take_slot(std::vector<T>& slots, std::vector<uint32_t>& free) {
    if (free.empty()) {
      slots.emplace_back();
      return static_cast<uint32_t>(slots.size() - 1);
    }
    const uint32_t id = free.back();
    free.pop_back();
    return id;
  }

  std::vector<Response> responses_;
  std::vector<uint32_t> free_responses_;
  // Twice the records, each moved to its number's place in the larger ring (numbers that
  // differed modulo the old size differ modulo the new one).
  void grow() {
    std::vector<Fetch> larger(fetches_.size() * 2);
    const uint64_t mask = larger.size() - 1;
    for (Fetch& f : fetches_)
      if (f.number != kNoFetch) larger[f.number & mask] = std::move(f);
    fetches_ = std::move(larger);
    mask_ = mask;
  }

  // Fetch records by number modulo their count (a power of two).
  std::vector<Fetch> fetches_ = std::vector<Fetch>(1024);
  uint64_t mask_ = 1023;
  uint64_t next_fetch_ = 0;
};

}  // namespace warpsim
