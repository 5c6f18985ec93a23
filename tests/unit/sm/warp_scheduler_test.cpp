#include "sm/warp_scheduler.h"

#include <gtest/gtest.h>

namespace warpsim {
namespace {

std::vector<Warp> warps_with_ages(std::vector<uint64_t> ages) {
  std::vector<Warp> w(ages.size());
  for (size_t i = 0; i < ages.size(); ++i) w[i].age = ages[i];
  return w;
}

TEST(Gto, GreedyWhileEligibleThenOldest) {
  auto warps = warps_with_ages({5, 1, 3, 0});
  auto s = make_gto_scheduler();
  EXPECT_EQ(s->pick(std::vector<uint32_t>{0, 1, 2}, warps), 1u);   // oldest of the eligible
  EXPECT_EQ(s->pick(std::vector<uint32_t>{0, 1, 2, 3}, warps), 1u);  // greedy: keeps warp 1 though 3 is older
  EXPECT_EQ(s->pick(std::vector<uint32_t>{0, 2, 3}, warps), 3u);   // warp 1 stalled: oldest now
  EXPECT_EQ(s->pick(std::vector<uint32_t>{0, 2}, warps), 2u);
}

// A SASS instruction's yield bit: its warp gives up the greedy turn when another warp is
// eligible, and keeps issuing when it is the only one.
TEST(Gto, AYieldingWarpGivesUpItsGreedyTurn) {
  auto warps = warps_with_ages({5, 1, 3, 0});
  auto s = make_gto_scheduler();
  EXPECT_EQ(s->pick(std::vector<uint32_t>{0, 1, 2}, warps), 1u);
  warps[1].yielded = true;
  EXPECT_EQ(s->pick(std::vector<uint32_t>{0, 1, 2}, warps), 2u);  // the oldest of the others
  warps[2].yielded = true;
  EXPECT_EQ(s->pick(std::vector<uint32_t>{2}, warps), 2u);
  warps[2].yielded = false;
  EXPECT_EQ(s->pick(std::vector<uint32_t>{1, 2}, warps), 2u);  // greedy again
}

TEST(Lrr, RoundRobinFromTheLastIssued) {
  auto warps = warps_with_ages({0, 1, 2, 3});
  auto s = make_lrr_scheduler();
  EXPECT_EQ(s->pick(std::vector<uint32_t>{0, 1, 2, 3}, warps), 0u);
  EXPECT_EQ(s->pick(std::vector<uint32_t>{0, 1, 2, 3}, warps), 1u);
  EXPECT_EQ(s->pick(std::vector<uint32_t>{0, 3}, warps), 3u);
  EXPECT_EQ(s->pick(std::vector<uint32_t>{0, 1, 3}, warps), 0u);  // wraps around
}

TEST(SchedulerFactory, MakesEachPolicy) {
  auto warps = warps_with_ages({2, 1});
  EXPECT_EQ(make_warp_scheduler(SchedulerPolicy::kGto)->pick(std::vector<uint32_t>{0, 1}, warps), 1u);
  EXPECT_EQ(make_warp_scheduler(SchedulerPolicy::kLrr)->pick(std::vector<uint32_t>{0, 1}, warps), 0u);
}

}  // namespace
}  // namespace warpsim
