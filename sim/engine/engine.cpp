#include "engine/engine.h"

#include "common/error.h"

namespace warpsim {

void Engine::wake(Component& c, Cycle when) {
  if (when >= c.scheduled_at_) return;
  c.scheduled_at_ = when;
  c.live_sequence_ = next_sequence_;
  queue_.push(Entry{when, c.priority(), next_sequence_++, &c});
}

Cycle Engine::run(const std::function<bool()>& done) {
  while (!queue_.empty()) {
    Entry e = queue_.top();
    queue_.pop();
    Component& c = *e.component;
    if (c.live_sequence_ != e.sequence || c.scheduled_at_ == kNever) continue;  // superseded
    if (e.when < now_) {
      throw SimulationError("engine: time went backwards at " + c.name());
    }
    now_ = e.when;
    c.scheduled_at_ = kNever;
    ++ticks_;
    Cycle next = c.tick(now_);
    if (next != kNever) {
      if (next <= now_) throw SimulationError("engine: " + c.name() + " asked for a tick in the past");
      wake(c, next);
    }
    if (done && done()) break;
  }
  return now_;
}

}  // namespace warpsim
