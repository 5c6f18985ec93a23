// The interconnect's arrival queue hands messages over in the order a priority queue keyed on
// (arrival cycle, send order) would, wherever they wait (the ring of per-cycle buckets or the
// heap for arrivals outside its window).
#include <gtest/gtest.h>

#include <functional>
#include <queue>
#include <random>
#include <tuple>
#include <vector>

#include "mem/arrival_queue.h"

namespace warpsim {
namespace {

TEST(ArrivalQueue, SameCycleInSendOrderEarlierCyclesFirst) {
  ArrivalQueue<int> q(3);  // a window of 8 cycles
  q.push(10, 1);
  q.push(12, 2);
  q.push(10, 3);
  q.push(40, 4);  // beyond the window: waits in the heap
  q.push(5, 5);   // before the window's start: the heap too
  EXPECT_EQ(q.size(), 5u);
  EXPECT_EQ(q.next_arrival(), 5u);
  int out = 0;
  EXPECT_FALSE(q.pop_due(4, out));
  std::vector<int> order;
  while (q.pop_due(12, out)) order.push_back(out);
  EXPECT_EQ(order, (std::vector<int>{5, 1, 3, 2}));
  EXPECT_EQ(q.next_arrival(), 40u);
  ASSERT_TRUE(q.pop_due(40, out));
  EXPECT_EQ(out, 4);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.next_arrival(), kNever);
}

// A message pushed for a cycle already handled, and one beyond the window that arrives at the
// same cycle as ring entries sent after it, still come out in (arrival, send order).
TEST(ArrivalQueue, MatchesAPriorityQueueOnRandomTraffic) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    ArrivalQueue<uint32_t> q(4);  // 16 cycles: many arrivals land outside it
    using Key = std::tuple<Cycle, uint64_t, uint32_t>;
    std::priority_queue<Key, std::vector<Key>, std::greater<>> reference;
    uint64_t sent = 0;
    Cycle now = 0;
    for (int step = 0; step < 4000; ++step) {
      const int pushes = static_cast<int>(rng() % 4);
      for (int i = 0; i < pushes; ++i) {
        // Mostly a short way ahead, sometimes far ahead or (a zero-latency link) in the past.
        const uint64_t kind = rng() % 10;
        const Cycle arrival = kind == 0 ? now + 20 + rng() % 200 : kind == 1 && now > 3 ? now - rng() % 3 : now + rng() % 12;
        const auto id = static_cast<uint32_t>(sent);
        q.push(arrival, id);
        reference.emplace(arrival, sent++, id);
      }
      ASSERT_EQ(q.size(), reference.size());
      ASSERT_EQ(q.next_arrival(), reference.empty() ? kNever : std::get<0>(reference.top()));
      uint32_t out = 0;
      while (q.pop_due(now, out)) {
        ASSERT_FALSE(reference.empty());
        ASSERT_LE(std::get<0>(reference.top()), now);
        ASSERT_EQ(out, std::get<2>(reference.top())) << "round " << round << " step " << step;
        reference.pop();
      }
      ASSERT_TRUE(reference.empty() || std::get<0>(reference.top()) > now);
      now += 1 + (rng() % 8 == 0 ? rng() % 40 : 0);  // sometimes idle for a while
    }
  }
}

}  // namespace
}  // namespace warpsim
