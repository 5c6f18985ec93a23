#include "engine/engine.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <span>
#include <tuple>
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

namespace warpsim {
namespace {

// A reference scheduler written from the engine's contract alone (tick order is cycle, then
// priority, then the order of the wake-ups; a wake-up for an earlier cycle supersedes the
// component's live one; later ones are ignored), with no fast paths: a sorted set.
class ReferenceScheduler {
 public:
  using Priority = Component::Priority;
  void wake(int id, Priority p, Cycle when) {
    auto& live = live_.try_emplace(id, kNever, 0).first->second;
    if (when >= live.first) return;
    if (live.first != kNever) queue_.erase(std::make_tuple(live.first, p, live.second, id));
    live = {when, next_};
    queue_.insert(std::make_tuple(when, p, next_++, id));
  }
  bool pop(Cycle& when, int& id) {
    if (queue_.empty()) return false;
    const auto [w, p, seq, who] = *queue_.begin();
    queue_.erase(queue_.begin());
    live_[who] = {kNever, 0};
    when = w, id = who;
    return true;
  }

 private:
  std::set<std::tuple<Cycle, Priority, uint64_t, int>> queue_;
  std::map<int, std::pair<Cycle, uint64_t>> live_{};
  uint64_t next_ = 0;
};

// What component `id` does when ticked at `now`: a pseudo-random choice of the cycle it asks
// for (mostly the next one, as busy SMs do) and of another component it wakes.
struct Plan {
  Cycle next;
  int other;
  Cycle other_at;
};
Plan plan_for(int id, Cycle now, int components) {
  uint64_t x = (now + 1) * 0x9e3779b97f4a7c15ULL ^ static_cast<uint64_t>(id) * 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 29, x *= 0x94d049bb133111ebULL, x ^= x >> 32;
  const Cycle next = x % 10 < 6 ? now + 1 : x % 10 < 9 ? now + 1 + (x >> 8) % 7 : kNever;
  const int other = static_cast<int>((x >> 16) % static_cast<uint64_t>(components + 2));  // >= components: none
  const Cycle other_at = (x >> 24) % 3 == 0 ? now + 1 : now + 1 + (x >> 32) % 5;
  return {now > 400 ? kNever : next, other, other_at};
}

struct Player : Component {
  Player(int id, Priority p, Engine& e, std::vector<Player*>& all, std::vector<std::string>& log)
      : Component("c" + std::to_string(id), p), id_(id), engine_(e), all_(all), log_(log) {}
  Cycle tick(Cycle now) override {
    log_.push_back(name() + "@" + std::to_string(now));
    const Plan plan = plan_for(id_, now, static_cast<int>(all_.size()));
    if (plan.other < static_cast<int>(all_.size()) && plan.other != id_ && now <= 400) engine_.wake(*all_[plan.other], plan.other_at);
    return plan.next;
  }
  std::string describe_state() const override { return name(); }
  int id_;
  Engine& engine_;
  std::vector<Player*>& all_;
  std::vector<std::string>& log_;
};

// With many components the next-cycle FIFO holds several cycles' wake-ups at once, and drops the
// ones it has handed out while others wait (engine.cpp's pop): the order is still the contract's.
TEST(Engine, NextCycleWakeUpsInterleavedWithOthersTickInTheContractsOrder) {
  for (const int kComponents : {7, 600}) {
    auto priority = [](int id) { return id % 3 == 0 ? Component::kMemoryPriority : Component::kSmPriority; };
    std::vector<std::string> log;
    Engine e;
    std::vector<std::unique_ptr<Player>> owned;
    std::vector<Player*> all;
    for (int i = 0; i < kComponents; ++i) {
      owned.push_back(std::make_unique<Player>(i, priority(i), e, all, log));
      all.push_back(owned.back().get());
    }
    for (int i = kComponents - 1; i >= 0; --i) e.wake(*all[i], static_cast<Cycle>(i % 3));
    e.run(nullptr);

    std::vector<std::string> expected;
    ReferenceScheduler ref;
    for (int i = kComponents - 1; i >= 0; --i) ref.wake(i, priority(i), static_cast<Cycle>(i % 3));
    Cycle now;
    int id;
    while (ref.pop(now, id)) {
      expected.push_back("c" + std::to_string(id) + "@" + std::to_string(now));
      const Plan plan = plan_for(id, now, kComponents);
      if (plan.other < kComponents && plan.other != id && now <= 400) ref.wake(plan.other, priority(plan.other), plan.other_at);
      if (plan.next != kNever) ref.wake(id, priority(id), plan.next);
    }
    ASSERT_GT(expected.size(), 1000u);  // a long, busy schedule
    EXPECT_EQ(log, expected) << kComponents << " components";
  }
}

}  // namespace
}  // namespace warpsim
