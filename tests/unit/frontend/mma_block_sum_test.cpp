// The tensor cores' block FMA (mma_block_sum.h), on hand-worked cases: each picks inputs whose
// result differs between the rule under test and the alternative (IEEE rounding, normalised
// product exponents, another block size), with the expected value worked out in the comment.
#include <cmath>
#include <limits>
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

}  // namespace
}  // namespace warpsim::ptx
