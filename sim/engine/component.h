#pragma once
// A Component is anything the engine ticks. It is ticked only when it asked to be (the cycle
// its last tick returned) or when a message woke it; an idle component costs nothing.
#include <string>

#include "engine/cycle.h"

namespace warpsim {

class Engine;

class Component {
 public:
  // Lower priority values tick first within a cycle; ties break by scheduling order.
  enum Priority : uint8_t { kMemoryPriority = 0, kSmPriority = 1 };

  Component(std::string name, Priority priority) : name_(std::move(name)), priority_(priority) {}
  virtual ~Component() = default;
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

  // Advance to `now`. Returns the next cycle this component needs a tick without outside
  // input, or kNever if it waits for a message.
  virtual Cycle tick(Cycle now) = 0;
  // One line for the deadlock watchdog.
  virtual std::string describe_state() const = 0;

  const std::string& name() const { return name_; }
  Priority priority() const { return priority_; }
  // Components due in the same cycle at the same priority that are all batchable are handed to
  // the engine's BatchRunner together (SMs: engine.h).
  bool batchable() const { return batchable_; }

 protected:
  void set_batchable(bool b) { batchable_ = b; }

 private:
  friend class Engine;
  std::string name_;
  Priority priority_;
  bool batchable_ = false;
  Cycle scheduled_at_ = kNever;   // cycle of the live queue entry
  uint64_t live_sequence_ = 0;     // sequence of the live entry; entries with others are stale
};

}  // namespace warpsim
