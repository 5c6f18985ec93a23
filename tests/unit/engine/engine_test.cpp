#include "engine/engine.h"

#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "common/error.h"

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

namespace warpsim {
namespace {

struct BatchMember : Recorder {
  BatchMember(std::string n, std::vector<std::string>& log) : Recorder(std::move(n), kSmPriority, log) { set_batchable(true); }
};

// Records each batch as the engine hands it over, and ticks its members in order.
struct BatchLog : BatchRunner {
  std::vector<std::string> batches;
  void run(std::span<Component* const> batch, Cycle now, std::span<Cycle> next) override {
    std::string s = std::to_string(now) + ":";
    for (size_t i = 0; i < batch.size(); ++i) {
      s += " " + batch[i]->name();
      next[i] = batch[i]->tick(now);
    }
    batches.push_back(s);
  }
};

TEST(EngineBatch, ComponentsDueTogetherAreOneBatchInQueueOrder) {
  std::vector<std::string> log;
  Engine e;
  BatchLog runner;
  e.set_batch_runner(&runner);
  BatchMember a("a", log), b("b", log), c("c", log);
  Recorder mem("m", Component::kMemoryPriority, log);
  e.wake(c, 5);
  e.wake(a, 5);
  e.wake(b, 7);
  e.wake(mem, 5);
  e.wake(b, 5);  // supersedes b@7: its stale entry is skipped, not batched twice
  a.plan = {9};
  c.plan = {9};
  e.run(nullptr);
  // The memory component, at a lower priority value, ticks alone first; c was woken before a
  // and b, so it leads the batch; the wake-ups its members ask for are applied in batch order,
  // so c leads again at 9 (one by one, a's tick at 5 would have asked for 9 before c's).
  EXPECT_EQ(log, (std::vector<std::string>{"m@5", "c@5", "a@5", "b@5", "c@9", "a@9"}));
  EXPECT_EQ(runner.batches, (std::vector<std::string>{"5: c a b", "9: c a"}));
  EXPECT_EQ(e.ticks_executed(), 6u);
}

TEST(EngineBatch, ComponentsThatAreNotBatchableTickAlone) {
  std::vector<std::string> log;
  Engine e;
  BatchLog runner;
  e.set_batch_runner(&runner);
  BatchMember a("a", log);
  Recorder plain("p", Component::kSmPriority, log), later("q", Component::kSmPriority, log);
  e.wake(a, 2);
  e.wake(plain, 2);
  e.wake(later, 3);
  e.run(nullptr);
  EXPECT_EQ(log, (std::vector<std::string>{"a@2", "p@2", "q@3"}));
  EXPECT_EQ(runner.batches, (std::vector<std::string>{"2: a"}));
}

TEST(EngineBatch, ABatchMemberAskingForThePastIsAnError) {
  std::vector<std::string> log;
  Engine e;
  BatchLog runner;
  e.set_batch_runner(&runner);
  BatchMember a("a", log);
  a.plan = {4};
  e.wake(a, 4);
  EXPECT_THROW(e.run(nullptr), SimulationError);
}

}  // namespace
}  // namespace warpsim
