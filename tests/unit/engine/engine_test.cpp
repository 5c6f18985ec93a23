#include "engine/engine.h"

#include <gtest/gtest.h>

#include <vector>

namespace warpsim {
namespace {

struct Recorder : Component {
  Recorder(std::string n, Priority p, std::vector<std::string>& log) : Component(std::move(n), p), log_(log) {}
  Cycle tick(Cycle now) override {
    log_.push_back(name() + "@" + std::to_string(now));
    ++ticks;
    if (!plan.empty()) {
      Cycle next = plan.front();
      plan.erase(plan.begin());
      return next;
    }
    return kNever;
  }
  std::string describe_state() const override { return name(); }
  std::vector<Cycle> plan;
  int ticks = 0;
  std::vector<std::string>& log_;
};

TEST(Engine, OrdersByTimeThenPriorityThenSequence) {
  std::vector<std::string> log;
  Engine e;
  Recorder sm_a("a", Component::kSmPriority, log), sm_b("b", Component::kSmPriority, log), mem("m", Component::kMemoryPriority, log);
  e.wake(sm_b, 5);
  e.wake(sm_a, 5);
  e.wake(mem, 5);
  e.wake(sm_a, 3);  // supersedes a@5
  e.run(nullptr);
  EXPECT_EQ(log, (std::vector<std::string>{"a@3", "m@5", "b@5"}));
}

TEST(Engine, IdleComponentsAreNotTicked) {
  std::vector<std::string> log;
  Engine e;
  Recorder r("r", Component::kSmPriority, log);
  r.plan = {1000000};  // after its first tick it sleeps a million cycles
  e.wake(r, 0);
  Cycle end = e.run(nullptr);
  EXPECT_EQ(end, 1000000u);
  EXPECT_EQ(r.ticks, 2);
  EXPECT_EQ(e.ticks_executed(), 2u);
}

TEST(Engine, ReturningTheSupersededCycleDoesNotTickTwice) {
  std::vector<std::string> log;
  Engine e;
  Recorder r("r", Component::kSmPriority, log);
  e.wake(r, 10);
  e.wake(r, 4);
  r.plan = {10};  // the tick at 4 asks for 10 again: one tick at 10, not two
  e.run(nullptr);
  EXPECT_EQ(log, (std::vector<std::string>{"r@4", "r@10"}));
}

TEST(Engine, DoneStopsTheRun) {
  std::vector<std::string> log;
  Engine e;
  Recorder r("r", Component::kSmPriority, log);
  r.plan = {2, 3, 4, 5};
  e.wake(r, 1);
  e.run([&] { return r.ticks == 2; });
  EXPECT_EQ(r.ticks, 2);
  EXPECT_FALSE(e.idle());
}

}  // namespace
}  // namespace warpsim
