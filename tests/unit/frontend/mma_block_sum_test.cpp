// The tensor cores' block FMA (mma_block_sum.h), on hand-worked cases: each picks inputs whose
// result differs between the rule under test and the alternative (IEEE rounding, normalised
// product exponents, another block size), with the expected value worked out in the comment.
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "frontend/ptx/mma_block_sum.h"

namespace warpsim::ptx {
namespace {

constexpr int kF16 = -14, kE4m3 = -6, kBf16 = -126;

float p2(int e) { return std::ldexp(1.0f, e); }

float dot(MmaSumSpec spec, std::vector<float> a, std::vector<float> b, float c, bool f16_out = false, int emin = kF16) {
  return MmaBlockSum(spec, emin, emin, f16_out).dot(a.data(), b.data(), static_cast<uint32_t>(a.size()), c);
}

const MmaSumSpec kV100{4, 0}, kA100{8, 1}, kH100{16, 2}, kH100Fp8{32, -10};

TEST(MmaBlockSum, WithoutASpecEachProductIsRoundedAsFmaf) {
  // 1 + 1.5 x 2^-24: fmaf rounds to nearest, up to 1 + 2^-23.
  EXPECT_EQ(dot({}, {1.5f * p2(-12)}, {p2(-12)}, 1.0f), 1.0f + p2(-23));
}

TEST(MmaBlockSum, TermsBelowTheGridAreTruncatedWithoutGuardBits) {
  // V100: the grid is 2^(0 - 23) under c = 1, so 1.5 x 2^-24 truncates to nothing.
  EXPECT_EQ(dot(kV100, {1.5f * p2(-12)}, {p2(-12)}, 1.0f), 1.0f);
  // Truncation is of the magnitude (toward zero) for negative terms too.
  EXPECT_EQ(dot(kV100, {-1.5f * p2(-12)}, {p2(-12)}, -1.0f), -1.0f);
  // A100's one extra bit keeps two 2^-24 products: 1 + 2^-23 exactly; V100 loses both.
  EXPECT_EQ(dot(kA100, {p2(-12), p2(-12)}, {p2(-12), p2(-12)}, 1.0f), 1.0f + p2(-23));
  EXPECT_EQ(dot(kV100, {p2(-12), p2(-12)}, {p2(-12), p2(-12)}, 1.0f), 1.0f);
}

TEST(MmaBlockSum, AnF32ResultIsTruncated) {
  // H100 keeps 1 + 3 x 2^-25 in its sum (grid 2^-25) but rounds the f32 result toward zero: 1.
  EXPECT_EQ(dot(kH100, {3.0f * p2(-13)}, {p2(-12)}, 1.0f), 1.0f);
  EXPECT_EQ(dot({}, {3.0f * p2(-13)}, {p2(-12)}, 1.0f), 1.0f + p2(-23));  // fmaf: to nearest
}

TEST(MmaBlockSum, TheBlockSizeDecidesWhichProductsShareAGrid) {
  // 16 - 16 + 2^-20 + 2^-20 in one block of four: the grid is 2^(4 - 23), under both small
  // products, so the sum is 0. In blocks of two the small pair has its own block: 2^-19.
  const std::vector<float> a{4, -4, p2(-10), p2(-10)}, b{4, 4, p2(-10), p2(-10)};
  EXPECT_EQ(dot(kV100, a, b, 0.0f), 0.0f);
  EXPECT_EQ(dot(MmaSumSpec{2, 0}, a, b, 0.0f), p2(-19));
}

TEST(MmaBlockSum, AProductAlignsByItsInputsExponentsNotItsOwn) {
  // 1.5 x 1.5 = 2.25 has exponent 1 but aligns at 0 + 0: the grid is 2^-23, which keeps both
  // 2^-23 products (2.25 + 2^-22, exact in f32). Aligned at 1, both would truncate away.
  EXPECT_EQ(dot(kV100, {1.5f, p2(-12), p2(-12)}, {1.5f, p2(-11), p2(-11)}, 0.0f), 2.25f + p2(-22));
}

TEST(MmaBlockSum, ASubnormalInputAlignsAtItsFormatsSmallestExponent) {
  // f16 2^-20 (subnormal) counts as 2^-14: the grid is 2^(-14 - 23), under 3 x 2^-44, which is
  // lost; with its own exponent (-20) the grid would be 2^-43 and keep 2^-43 of it.
  EXPECT_EQ(dot(kV100, {p2(-20), 3.0f * p2(-24)}, {1.0f, p2(-20)}, 0.0f), p2(-20));
}

TEST(MmaBlockSum, HoppersFp8PathKeepsThirteenFractionBits) {
  // An accumulator of 1 + 2^-20 passes through an FP8 MMA of zeros: H100's grid is 2^(0 - 13).
  EXPECT_EQ(dot(kH100Fp8, {0.0f}, {0.0f}, 1.0f + p2(-20), false, kE4m3), 1.0f);
  EXPECT_EQ(dot(MmaSumSpec{32, 2}, {0.0f}, {0.0f}, 1.0f + p2(-20), false, kE4m3), 1.0f + p2(-20));  // B200
  // 1 + 2^-12 (2^-6 x 2^-6) keeps its bit; 1 + 2^-14 (2^-6 x the subnormal 2^-8) does not.
  EXPECT_EQ(dot(kH100Fp8, {p2(-6)}, {p2(-6)}, 1.0f, false, kE4m3), 1.0f + p2(-12));
  EXPECT_EQ(dot(kH100Fp8, {p2(-6)}, {p2(-8)}, 1.0f, false, kE4m3), 1.0f);
}

TEST(MmaBlockSum, AnF16ResultIsRoundedToNearestEven) {
  // 1 + 1.5 x 2^-11 is 0.75 of an f16 place above 1: to nearest, 1 + 2^-10.
  EXPECT_EQ(dot(kV100, {1.5f * p2(-11)}, {1.0f}, 1.0f, true), 1.0f + p2(-10));
  // 1 + 2^-11 is a tie: to even, 1.
  EXPECT_EQ(dot(kV100, {p2(-11)}, {1.0f}, 1.0f, true), 1.0f);
}

TEST(MmaBlockSum, BlocksBeforeTheLastStayInTheF32Accumulator) {
  // Blocks of two: 1024 + 0.25 (not an f16 value), then - 1024: 0.25 if the first block's sum
  // stays in f32, 0 had it been rounded to f16.
  EXPECT_EQ(dot(MmaSumSpec{2, 0}, {32, 0.5f, -32, 0}, {32, 0.5f, 32, 0}, 0.0f, true), 0.25f);
}

TEST(MmaBlockSum, InfinitiesNaNsAndOverflow) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isnan(dot(kH100, {inf, 1}, {0, 1}, 0.0f)));      // inf x 0
  EXPECT_TRUE(std::isnan(dot(kH100, {inf, inf}, {1, -1}, 0.0f)));   // inf - inf
  EXPECT_EQ(dot(kH100, {inf, 1}, {1, 1}, 5.0f), inf);
  // bf16 2^100 x 2^30 = 2^130: past f32's range even when rounding toward zero.
  EXPECT_EQ(dot(kH100, {p2(100)}, {p2(30)}, 0.0f, false, kBf16), inf);
  EXPECT_EQ(dot(kH100, {-p2(100)}, {p2(30)}, 0.0f, false, kBf16), -inf);
}

TEST(MmaBlockSum, ZerosAndExactCancellationGivePositiveZero) {
  EXPECT_TRUE(std::signbit(-0.0f));
  const float none = dot(kH100, {0, 0}, {1, 2}, -0.0f), cancelled = dot(kH100, {1, -1}, {1, 1}, 0.0f);
  EXPECT_EQ(none, 0.0f);
  EXPECT_FALSE(std::signbit(none));
  EXPECT_FALSE(std::signbit(cancelled));
}

TEST(MmaBlockSum, APrecisionWithoutASpecOrMixedPrecisionsUseIeee) {
  MmaSumSpecs specs{};
  specs[static_cast<int>(TensorPrecision::kFp8)] = kH100Fp8;
  EXPECT_FALSE(mma_block_sum(specs, "e4m3", "e5m2", false).ieee());  // both FP8
  EXPECT_TRUE(mma_block_sum(specs, "e4m3", "e2m1", false).ieee());   // FP8 x FP4
  EXPECT_TRUE(mma_block_sum(specs, "f16", "f16", false).ieee());     // no spec for FP16
  EXPECT_EQ(mma_input_emin("e4m3"), -6);
  EXPECT_EQ(mma_input_emin("e5m2"), -14);
  EXPECT_EQ(mma_input_emin("bf16"), -126);
}

// The same rules a second way, with the C library (ilogb for exponents, ldexp and trunc for the
// grid, nearbyint for rounding) instead of exponent fields, scaled conversions and bit tests:
// every product, aligned term and sum here is exact in double.
float reference_dot(MmaSumSpec spec, const std::vector<float>& a, const std::vector<float>& b, float c, bool f16_out, int emin) {
  auto round_to = [](double v, int fraction_bits, int lowest, int highest, bool nearest) {
    if (v == 0) return 0.0;
    const int e = std::max(std::ilogb(std::fabs(v)), lowest);
    const double scaled = std::ldexp(std::fabs(v), fraction_bits - e);
    double r = std::ldexp(nearest ? std::nearbyint(scaled) : std::trunc(scaled), e - fraction_bits);
    if (r >= std::ldexp(1.0, highest + 1)) r = INFINITY;
    return v < 0 ? -r : r;
  };
  double acc = c;
  for (size_t i = 0; i < a.size(); i += spec.terms) {
    const size_t end = std::min(a.size(), i + spec.terms);
    if (std::isinf(acc)) continue;  // an overflowed block: finite products leave it infinite
    int top = acc != 0 ? std::max(std::ilogb(acc), -126) : INT32_MIN;
    for (size_t j = i; j < end; ++j)
      if (a[j] != 0 && b[j] != 0) top = std::max(top, std::max(std::ilogb(a[j]), emin) + std::max(std::ilogb(b[j]), emin));
    if (top == INT32_MIN) {
      acc = 0;
      continue;
    }
    const int grid = top - 23 - spec.extra_bits;
    double sum = std::trunc(std::ldexp(acc, -grid));
    for (size_t j = i; j < end; ++j) sum += std::trunc(std::ldexp(static_cast<double>(a[j]) * b[j], -grid));
    if (sum == 0) {
      acc = 0;  // an exact zero is +0 (a result rounded to zero keeps its sign)
      continue;
    }
    const double value = std::ldexp(sum, grid);
    acc = end < a.size() || !f16_out ? round_to(value, std::min(23, 23 + spec.extra_bits), -126, 127, false)
                                     : round_to(value, std::min(10, 23 + spec.extra_bits), -14, 15, true);
  }
  return static_cast<float>(acc);
}

TEST(MmaBlockSum, AgreesWithADoublePrecisionRestatementOnRandomBlocks) {
  // 20,000 random dot products: FP16 (subnormals included), BF16 (wide exponents, overflow) and
  // e4m3 inputs, random block sizes and extra bits, f32 and f16 results, bit for bit.
  std::mt19937_64 rng(2026);
  auto f16_value = [&] {
    uint16_t h;
    do h = static_cast<uint16_t>(rng()); while ((h & 0x7c00) == 0x7c00);
    return static_cast<float>(std::ldexp((h & 0x3ff) + ((h & 0x7c00) ? 1024.0 : 0.0), std::max((h >> 10) & 31, 1) - 25) * ((h & 0x8000) ? -1 : 1));
  };
  auto bf16_value = [&] {
    uint32_t h;
    do h = static_cast<uint32_t>(rng()) & 0xffff; while ((h & 0x7f80) == 0x7f80);
    return std::bit_cast<float>(h << 16);
  };
  auto e4m3_value = [&] {
    uint32_t x;
    do x = static_cast<uint32_t>(rng()) & 0xff; while ((x & 0x7f) == 0x7f);
    const double v = std::ldexp((x & 7) + ((x >> 3 & 15) ? 8.0 : 0.0), std::max(static_cast<int>(x >> 3 & 15), 1) - 10);
    return static_cast<float>((x & 0x80) ? -v : v);
  };
  uint32_t checked = 0;
  for (int n = 0; n < 20000; ++n) {
    const int kind = static_cast<int>(rng() % 3);
    const int emin = kind == 0 ? kF16 : kind == 1 ? kBf16 : kE4m3;
    const MmaSumSpec spec{std::array<uint32_t, 4>{4, 8, 16, 32}[rng() % 4], std::array<int32_t, 4>{-10, 0, 1, 2}[rng() % 4]};
    const bool f16_out = kind == 0 && rng() % 2;
    const uint32_t k = 1 + static_cast<uint32_t>(rng() % 64);
    std::vector<float> a(k), b(k);
    for (uint32_t i = 0; i < k; ++i) {
      a[i] = kind == 0 ? f16_value() : kind == 1 ? bf16_value() : e4m3_value();
      b[i] = kind == 0 ? f16_value() : kind == 1 ? bf16_value() : e4m3_value();
      if (rng() % 8 == 0) a[i] = 0;
    }
    float c = kind == 0 ? f16_value() : static_cast<float>(std::ldexp(static_cast<double>(rng() % (1u << 24)), static_cast<int>(rng() % 40) - 30));
    if (f16_out) c = static_cast<float>(reference_dot(MmaSumSpec{1, 0}, {0.0f}, {0.0f}, c, true, kF16));  // an f16 value
    if (rng() % 2) c = -c;
    const float got = MmaBlockSum(spec, emin, emin, f16_out).dot(a.data(), b.data(), k, c);
    const float want = reference_dot(spec, a, b, c, f16_out, emin);
    ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want))
        << "case " << n << ": " << got << " vs " << want << " (terms " << spec.terms << ", extra " << spec.extra_bits << ", k " << k << ")";
    ++checked;
  }
  EXPECT_EQ(checked, 20000u);
}

}  // namespace
}  // namespace warpsim::ptx
