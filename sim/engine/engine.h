#pragma once
// The discrete-event engine: a queue of (cycle, priority, sequence) → component. The sequence
// number makes ties deterministic. Each component has at most one live entry; waking it for an
// earlier cycle supersedes the old entry (which is skipped when popped).
#include <cstdint>
#include <functional>
#include <queue>
#include <span>
#include <vector>

#include "engine/component.h"

namespace warpsim {

// Ticks every batchable component due at one cycle and priority; `next[i]` receives what
// batch[i]'s tick returned. A runner may tick them on several threads, as long as what one does
// to anything shared is applied after all of them, in batch order (gpu/sm_batch.h).
class BatchRunner {
 public:
  virtual ~BatchRunner() = default;
  virtual void run(std::span<Component* const> batch, Cycle now, std::span<Cycle> next) = 0;
};

class Engine {
 public:
  // Ask for `c` to be ticked at `when` (or earlier, if it already is).
  void wake(Component& c, Cycle when);

  // Runs until no component has work, or until `done()` returns true after a tick.
  // Returns the cycle of the last tick. Throws SimulationError when time would go backwards.
  Cycle run(const std::function<bool()>& done);

  // With a runner, batchable components due together are ticked by it (nullptr: one by one).
  void set_batch_runner(BatchRunner* runner) { runner_ = runner; }

  Cycle now() const { return now_; }
  uint64_t ticks_executed() const { return ticks_; }
  bool idle() const { return soon_head_ == soon_.size() && queue_.empty(); }

 private:
  struct Entry {
    Cycle when;
    uint8_t priority;
    uint64_t sequence;
    Component* component;
    bool operator>(const Entry& o) const {
      if (when != o.when) return when > o.when;
      if (priority != o.priority) return priority > o.priority;
      return sequence > o.sequence;
    }
  };
  void reschedule(Component& c, Cycle next);
  void run_batch(Component& first);
  // The earliest entry of the two queues below, and its removal.
  bool next_is_soon() const {
    return soon_head_ != soon_.size() && (queue_.empty() || !(soon_[soon_head_] > queue_.top()));
  }
  const Entry& top() const { return next_is_soon() ? soon_[soon_head_] : queue_.top(); }
  void pop();

  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
  // Wake-ups for the next cycle that come in queue order (each later than the one before): most
  // of a busy run's, as every SM with work asks for the next cycle. They wait in this FIFO
  // instead of the heap; the earliest of its head and the heap's top goes first, so the order is
  // the heap's alone would give (docs/performance.md).
  std::vector<Entry> soon_;
  size_t soon_head_ = 0;
  BatchRunner* runner_ = nullptr;
  std::vector<Component*> batch_;  // scratch
  std::vector<Cycle> batch_next_;  // scratch
  uint64_t next_sequence_ = 0;
  uint64_t ticks_ = 0;
  Cycle now_ = 0;
};

}  // namespace warpsim
