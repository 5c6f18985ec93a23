// IEEE 754 binary16 conversions, checked over every one of the 65,536 encodings against values
// built from the format's definition with ldexp (an independent derivation).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "common/half.h"

namespace warpsim {
namespace {

TEST(Half, EveryEncodingConvertsToItsExactValue) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint32_t sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    const float got = half_to_float(static_cast<uint16_t>(h));
    if (exp == 31) {
      if (man) {
        EXPECT_TRUE(std::isnan(got)) << std::hex << h;
      } else {
        EXPECT_TRUE(std::isinf(got)) << std::hex << h;
      }
      EXPECT_EQ(std::signbit(got), sign == 1) << std::hex << h;
      continue;
    }
    const double magnitude = exp == 0 ? std::ldexp(static_cast<double>(man), -24)
                                      : std::ldexp(1.0 + static_cast<double>(man) / 1024.0, static_cast<int>(exp) - 15);
    const double expected = sign ? -magnitude : magnitude;
    EXPECT_EQ(static_cast<double>(got), expected) << std::hex << h;
    EXPECT_EQ(std::signbit(got), sign == 1) << std::hex << h;  // -0 stays negative
  }
}

TEST(Half, EveryFiniteEncodingRoundTrips) {
  for (uint32_t h = 0; h < 65536; ++h) {
    if (((h >> 10) & 0x1f) == 31 && (h & 0x3ff)) continue;  // NaN payloads are not kept
    EXPECT_EQ(float_to_half(half_to_float(static_cast<uint16_t>(h))), h) << std::hex << h;
  }
}

// A NaN becomes the canonical 0x7FFF whatever its sign or payload (CUDA's __float2half_rn);
// infinities keep their sign.
TEST(Half, NaNsBecomeTheCanonicalNaN) {
  EXPECT_EQ(float_to_half(std::bit_cast<float>(0x7fc00000u)), 0x7fff);
  EXPECT_EQ(float_to_half(std::bit_cast<float>(0xffc00001u)), 0x7fff);
  EXPECT_EQ(float_to_half(std::bit_cast<float>(0x7f800001u)), 0x7fff);
  EXPECT_EQ(float_to_half(INFINITY), 0x7c00);
  EXPECT_EQ(float_to_half(-INFINITY), 0xfc00);
}

}  // namespace
}  // namespace warpsim
