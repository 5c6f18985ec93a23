#pragma once
// Messages in flight to a component, taken in order of arrival cycle and, within a cycle, in the
// order they were sent: the order of a priority queue keyed on (arrival, send sequence), without
// its cost. Most messages arrive within a short, bounded time of the cycle being handled (an
// interconnect latency plus a port's backlog), so they go into a ring of one bucket per cycle;
// the rare one outside the ring's window waits in a heap, and taking the first message compares
// the two. The order is exact whichever place a message waits in.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "engine/cycle.h"

namespace warpsim {

template <class T>
class ArrivalQueue {
 public:
  explicit ArrivalQueue(uint32_t window_log2 = 12) : ring_(size_t{1} << window_log2), mask_((uint64_t{1} << window_log2) - 1) {}

  void push(Cycle arrival, const T& item) {
    const uint64_t sequence = sequence_++;
    if (ring_count_ == 0) cursor_ = arrival;  // the ring is empty: its window may start anywhere
    if (arrival >= cursor_ && arrival - cursor_ <= mask_) {
      ring_[arrival & mask_].items.push_back(Entry{sequence, item});
      ++ring_count_;
    } else {
      overflow_.push(Waiting{arrival, sequence, item});
    }
  }

  bool empty() const { return ring_count_ == 0 && overflow_.empty(); }
  size_t size() const { return ring_count_ + overflow_.size(); }

  // The earliest arrival waiting, kNever if none.
  Cycle next_arrival() {
    const Cycle ring = first_bucket();
    const Cycle heap = overflow_.empty() ? kNever : overflow_.top().arrival;
    return std::min(ring, heap);
  }

  // Takes the first message if it has arrived by `now`.
  bool pop_due(Cycle now, T& out) {
    const Cycle ring = first_bucket();
    const bool heap_waits = !overflow_.empty() && overflow_.top().arrival <= now;
    if (ring <= now) {
      Bucket& b = ring_[ring & mask_];
      const Entry& e = b.items[b.head];
      if (!heap_waits || ring < overflow_.top().arrival || (ring == overflow_.top().arrival && e.sequence < overflow_.top().sequence)) {
        out = e.item;
        if (++b.head == b.items.size()) {
          b.items.clear();
          b.head = 0;
        }
        --ring_count_;
        return true;
      }
    }
    if (!heap_waits) return false;
    out = overflow_.top().item;
    overflow_.pop();
    return true;
  }

 private:
  struct Entry {
    uint64_t sequence;
    T item;
  };
  struct Bucket {
    std::vector<Entry> items;  // all arriving at one cycle, in send order; [head, end) waiting
    uint32_t head = 0;
  };
  struct Waiting {
    Cycle arrival;
    uint64_t sequence;
    T item;
    bool operator>(const Waiting& o) const { return arrival != o.arrival ? arrival > o.arrival : sequence > o.sequence; }
  };
  // The cycle of the first non-empty bucket (kNever if the ring is empty), moving the window's
  // start up to it: buckets before it are empty, and a message for a cycle before the window
  // goes to the heap.
  Cycle first_bucket() {
    if (ring_count_ == 0) return kNever;
    while (ring_[cursor_ & mask_].items.empty()) ++cursor_;
    return cursor_;
  }

  std::vector<Bucket> ring_;  // bucket c & mask_ holds arrivals at cycle c, for c in [cursor_, cursor_ + mask_]
  uint64_t mask_;
  Cycle cursor_ = 0;
  size_t ring_count_ = 0;
  std::priority_queue<Waiting, std::vector<Waiting>, std::greater<>> overflow_;
  uint64_t sequence_ = 0;
};

}  // namespace warpsim
