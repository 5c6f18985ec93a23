// Ampere's mbarrier word as its SASS drives it (ptx/value_bits.h, ampere_mbarrier_arrive): with
// the word mbarrier.init stores for n arrivals, the high word's bit 31 (what test_wait compares
// with a token's) flips after exactly n arrivals, then after n more, and an arrival added as a
// pending count (cp.async.mbarrier.arrive adds minus the lanes to the high word) needs one more
// arrival before the phase completes.
#include <gtest/gtest.h>

#include <cstdint>

#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {
namespace {

uint64_t init(uint32_t n) { return uint64_t{0x80000000u - n} << 32 | (0x40000000u - n); }
bool phase(uint64_t word) { return word >> 63; }

TEST(AmpereMbarrier, APhaseCompletesAfterItsArrivalsAndTheCountComesBack) {
  for (uint32_t n : {1u, 3u, 256u, 1024u}) {
    uint64_t w = init(n);
    for (int round = 0; round < 3; ++round) {
      const bool before = phase(w);
      for (uint32_t k = 0; k + 1 < n; ++k) {
        w = ampere_mbarrier_arrive(w, 1);
        EXPECT_EQ(phase(w), before) << n << " arrivals, round " << round << ", after " << k + 1;
      }
      w = ampere_mbarrier_arrive(w, 1);
      EXPECT_NE(phase(w), before) << n << " arrivals, round " << round;
    }
    EXPECT_EQ(static_cast<uint32_t>(w), 0x40000000u - n);  // the low word keeps the count
  }
}

TEST(AmpereMbarrier, APendingArrivalHoldsThePhase) {
  uint64_t w = init(2);
  w += uint64_t{static_cast<uint32_t>(-1)} << 32;  // ATOMS.ADD [bar + 4], -1: one more to come
  w = ampere_mbarrier_arrive(w, 1);
  w = ampere_mbarrier_arrive(w, 1);
  EXPECT_FALSE(phase(w));
  w = ampere_mbarrier_arrive(w, 1);  // ARRIVES.LDGSTSBAR.64: the pending one, once the copies land
  EXPECT_TRUE(phase(w));
  EXPECT_EQ(combine_bits(kAmpereArrive, ValueType{'u', 64, 1}, init(1), 1) >> 63, 1u);
}

}  // namespace
}  // namespace warpsim::ptx
