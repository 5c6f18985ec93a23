#include "engine/engine.h"

#include "common/drop_forgotten.h"
#include "common/error.h"

namespace warpsim {

void Engine::wake(Component& c, Cycle when) {
  if (when >= c.scheduled_at_) return;
  c.scheduled_at_ = when;
  c.live_sequence_ = next_sequence_;
  const Entry e{when, c.priority(), next_sequence_++, &c};
  if (when == now_ + 1 && (soon_head_ == soon_.size() || e > soon_.back())) {
    soon_.push_back(e);
  } else {
    queue_.push(e);
  }
}

void Engine::pop() {
  if (!next_is_soon()) return queue_.pop();
  if (++soon_head_ == soon_.size()) {
    soon_.clear();
    soon_head_ = 0;
  } else {
    // In a busy run the FIFO seldom empties (each cycle's SMs ask for the next one while it is
    // taken): drop what was taken, so it does not grow through memory the host has long evicted.
    drop_forgotten(soon_, soon_head_);
  }
}

void Engine::reschedule(Component& c, Cycle next) {
  if (next == kNever) return;
  if (next <= now_) throw SimulationError("engine: " + c.name() + " asked for a tick in the past");
  wake(c, next);
}

// Pops every live entry due with `first`'s cycle and priority whose component is batchable, in
// queue order, and hands them to the runner; their wake-ups follow in the same order, so the
// queue's sequence numbers (its tie-breaks) do not depend on how the runner spread the work.
void Engine::run_batch(Component& first) {
  batch_.assign(1, &first);
  while (!idle()) {
    const Entry& e = top();
    Component& c = *e.component;
    if (c.live_sequence_ != e.sequence || c.scheduled_at_ == kNever) {  // superseded
      pop();
      continue;
    }
    if (e.when != now_ || e.priority != first.priority() || !c.batchable()) break;
    pop();
    c.scheduled_at_ = kNever;
    batch_.push_back(&c);
  }
  ticks_ += batch_.size();
  batch_next_.assign(batch_.size(), kNever);
  runner_->run(batch_, now_, batch_next_);
  for (size_t i = 0; i < batch_.size(); ++i) reschedule(*batch_[i], batch_next_[i]);
}

Cycle Engine::run(const std::function<bool()>& done) {
  while (!idle()) {
    Entry e = top();
    pop();
    Component& c = *e.component;
    if (c.live_sequence_ != e.sequence || c.scheduled_at_ == kNever) continue;  // superseded
    if (e.when < now_) {
      throw SimulationError("engine: time went backwards at " + c.name());
    }
    now_ = e.when;
    c.scheduled_at_ = kNever;
    if (runner_ && c.batchable()) {
      run_batch(c);
    } else {
      ++ticks_;
      reschedule(c, c.tick(now_));
    }
    if (done && done()) break;
  }
  return now_;
}

}  // namespace warpsim
