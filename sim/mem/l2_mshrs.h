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

// The slice's tag array names the fetch each sector waits for (SectoredCache::pending(id)), so a
// read finds it there; a fetch whose line has left the slice still answers its waiters, and
// settles only sectors that still name it.
class L2Mshrs {
 public:
  struct Response {
    MemRequest request;
    uint32_t slice = 0;
    Cycle data = 0;            // when the data is there, as far as known
    uint32_t outstanding = 0;  // fetches it still waits for
  };
  struct Fetch {
    uint64_t line = 0;
    uint32_t slice = 0;
    int way = 0;  // where the slice holds the line (unless it has let it go since)
    // Responses waiting, in the order they came, with the cycles added after the arrival: the
    // first kept here (most fetches have one, and a separate vector's buffer is one more host
    // cache miss per fetch), the rest in `more`.
    uint32_t first = kNone;
    Cycle first_extra = 0;
    std::vector<std::pair<uint32_t, Cycle>> more;
  };
  static constexpr uint32_t kNone = ~uint32_t{0};
  using Waiters = std::vector<std::pair<uint32_t, Cycle>>;

  uint32_t open_response(const MemRequest& request, uint32_t slice, Cycle known) {
    const uint32_t id = take_slot(responses_, free_responses_);
    responses_[id] = Response{request, slice, known, 0};
    return id;
  }
  Response& response(uint32_t id) { return responses_[id]; }
  void close_response(uint32_t id) { free_responses_.push_back(id); }

  uint32_t open_fetch(uint64_t line, uint32_t slice, int way) {
    const uint32_t id = take_slot(fetches_, free_fetches_);
    fetches_[id].line = line, fetches_[id].slice = slice, fetches_[id].way = way;  // no waiters; `more` keeps its storage
    return id;
  }
  const Fetch& fetch(uint32_t id) const { return fetches_[id]; }
  // `response` waits for `fetch` (once, however many of its sectors it wants).
  void wait_for(uint32_t fetch, uint32_t response, Cycle extra) {
    Fetch& f = fetches_[fetch];
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
  // Frees a fetch its bank has taken, handing over its waiters.
  void close_fetch(uint32_t id, Waiters& waiters) {
    Fetch& f = fetches_[id];
    waiters.clear();
    if (f.first != kNone) waiters.emplace_back(f.first, f.first_extra);
    waiters.insert(waiters.end(), f.more.begin(), f.more.end());
    f.first = kNone, f.first_extra = 0;
    f.more.clear();
    free_fetches_.push_back(id);
  }

  size_t fetches_in_flight() const { return fetches_.size() - free_fetches_.size(); }
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
  std::vector<Fetch> fetches_;
  std::vector<uint32_t> free_fetches_;
};

}  // namespace warpsim
