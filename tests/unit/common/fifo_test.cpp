// Fifo against std::deque as the reference: the same sequence of pushes and pops must come out in
// the same order, including across the compaction that keeps a never-draining queue bounded.
#include "common/fifo.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <string>

namespace warpsim {
namespace {

TEST(Fifo, PopsInPushOrderLikeADeque) {
  Fifo<std::string> fifo;
  std::deque<std::string> reference;
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    // Pushes slightly more often than pops: the queue seldom drains, so compaction runs.
    if (reference.empty() || rng() % 100 < 52) {
      const std::string item = "item" + std::to_string(i);
      fifo.push_back(item);
      reference.push_back(item);
    } else {
      ASSERT_EQ(fifo.front(), reference.front()) << "at step " << i;
      fifo.pop_front();
      reference.pop_front();
    }
    ASSERT_EQ(fifo.size(), reference.size());
    ASSERT_EQ(fifo.empty(), reference.empty());
  }
  std::deque<std::string> rest(fifo.begin(), fifo.end());
  EXPECT_EQ(rest, reference);
  fifo.clear();
  EXPECT_TRUE(fifo.empty());
  EXPECT_EQ(fifo.begin(), fifo.end());
}

TEST(Fifo, IteratesFromTheFrontAfterPops) {
  Fifo<int> fifo;
  for (int i = 0; i < 5; ++i) fifo.push_back(i);
  fifo.pop_front();
  fifo.pop_front();
  std::vector<int> seen(fifo.begin(), fifo.end());
  EXPECT_EQ(seen, (std::vector<int>{2, 3, 4}));
  fifo.pop_front(), fifo.pop_front(), fifo.pop_front();
  EXPECT_TRUE(fifo.empty());
  fifo.push_back(9);  // storage reused after draining
  EXPECT_EQ(fifo.front(), 9);
  EXPECT_EQ(fifo.size(), 1u);
}

}  // namespace
}  // namespace warpsim
