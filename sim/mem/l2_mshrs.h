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
    std::vector<std::pair<uint32_t, Cycle>> waiters;  // response, cycles added after the arrival
  };
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
    fetches_[id].line = line, fetches_[id].slice = slice, fetches_[id].way = way;  // waiters is empty, its storage kept
    return id;
  }
  const Fetch& fetch(uint32_t id) const { return fetches_[id]; }
  // `response` waits for `fetch` (once, however many of its sectors it wants).
  void wait_for(uint32_t fetch, uint32_t response, Cycle extra) {
    auto& waiters = fetches_[fetch].waiters;
    for (auto& [id, added] : waiters) {
      if (id != response) continue;
      added = std::max(added, extra);
      return;
    }
    waiters.emplace_back(response, extra);
    ++responses_[response].outstanding;
  }
  // Frees a fetch its bank has taken, handing over its waiters.
  void close_fetch(uint32_t id, Waiters& waiters) {
    waiters.assign(fetches_[id].waiters.begin(), fetches_[id].waiters.end());
    fetches_[id].waiters.clear();
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
