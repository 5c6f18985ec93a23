// The inline bit count agrees with std::popcount on edge cases and random masks.
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "common/bit_count.h"

namespace warpsim {
namespace {

TEST(BitCount, MatchesStdPopcount) {
  for (uint32_t x : {0u, 1u, 0x80000000u, 0xffffffffu, 0x0000ffffu, 0xffff0000u, 0x55555555u, 0xaaaaaaaau, 0x0f0f0f0fu})
    EXPECT_EQ(bit_count(x), std::popcount(x)) << x;
  std::mt19937 rng(11);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t x = static_cast<uint32_t>(rng());
    ASSERT_EQ(bit_count(x), std::popcount(x)) << x;
  }
  static_assert(bit_count(0xf0u) == 4);
}

}  // namespace
}  // namespace warpsim
