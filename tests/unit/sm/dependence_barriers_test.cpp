// A warp's dependence barriers: released when every instruction that set them has written its
// registers (a counter in hardware, so one wait covers all of them), or at a cycle known at issue
// for an instruction without registers; a barrier outside the wait mask never blocks.
#include "sm/dependence_barriers.h"

#include <gtest/gtest.h>

namespace warpsim {
namespace {

TEST(DependenceBarriers, AWaitCoversEveryInstructionThatSetTheBarrier) {
  Scoreboard board;
  DependenceBarriers barriers;
  const RegId first[] = {4}, second[] = {6, 7};
  board.set(4, 100, Producer::kMemory);
  barriers.hold(2, first, 0, board, 0);
  board.set(6, kNever, Producer::kMemory);  // a load still in flight
  board.set(7, kNever, Producer::kMemory);
  barriers.hold(2, second, 0, board, 0);
  Cycle until = 0;
  Producer producer = Producer::kFixed;
  EXPECT_FALSE(barriers.first_blocking(0b000011, board, 50, until, producer));  // barriers 0 and 1: never set
  ASSERT_TRUE(barriers.first_blocking(0b000100, board, 50, until, producer));
  EXPECT_EQ(until, 100u);
  EXPECT_EQ(producer, Producer::kMemory);
  // Register 4 has landed; the second load has not: the barrier still holds.
  ASSERT_TRUE(barriers.first_blocking(0b000100, board, 100, until, producer));
  EXPECT_EQ(until, kNever);
  board.set(6, 180, Producer::kMemory);
  board.set(7, 180, Producer::kMemory);
  ASSERT_TRUE(barriers.first_blocking(0b000100, board, 150, until, producer));
  EXPECT_EQ(until, 180u);
  EXPECT_FALSE(barriers.first_blocking(0b000100, board, 180, until, producer));
  // Released barriers are emptied: a later write of the same register does not hold them.
  board.set(4, 500, Producer::kFixed);
  EXPECT_FALSE(barriers.first_blocking(0b000100, board, 200, until, producer));
}

TEST(DependenceBarriers, WithoutRegistersTheBarrierHoldsUntilTheCycleGiven) {
  Scoreboard board;
  DependenceBarriers barriers;
  barriers.hold(5, {}, 31, board, 30);
  Cycle until = 0;
  Producer producer = Producer::kMemory;
  ASSERT_TRUE(barriers.first_blocking(0b100000, board, 30, until, producer));
  EXPECT_EQ(until, 31u);
  EXPECT_FALSE(barriers.first_blocking(0b100000, board, 31, until, producer));
  barriers.clear();
  barriers.hold(5, {}, 40, board, 30);
  EXPECT_TRUE(barriers.first_blocking(0b100000, board, 39, until, producer));
}

}  // namespace
}  // namespace warpsim
