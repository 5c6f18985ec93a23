// cvt and the result modifiers (.sat, .relu, .NaN, .xorsign.abs, .satfinite): the float formats'
// encodings checked against values worked out by hand from IEEE 754 and the OCP Microscaling
// Formats specification, then the emulator on hand-written PTX.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "frontend/ptx/float_formats.h"
#include "frontend/ptx/value_bits.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using ptx::Rounding;

uint64_t encode(const char* format, double x, Rounding r = Rounding::kNearestEven, bool satfinite = false) {
  return ptx::encode_float(x, *ptx::find_float_format(format), r, satfinite);
}

TEST(FloatFormats, LargestValuesAndSpecialEncodings) {
  EXPECT_EQ(ptx::max_finite(*ptx::find_float_format("e4m3")), 448.0);
  EXPECT_EQ(ptx::max_finite(*ptx::find_float_format("e5m2")), 57344.0);
  EXPECT_EQ(ptx::max_finite(*ptx::find_float_format("e2m1")), 6.0);
  EXPECT_EQ(ptx::max_finite(*ptx::find_float_format("e2m3")), 7.5);
  EXPECT_EQ(ptx::max_finite(*ptx::find_float_format("e3m2")), 28.0);
  EXPECT_EQ(ptx::max_finite(*ptx::find_float_format("f16")), 65504.0);
  EXPECT_EQ(encode("e4m3", 448), 0x7Eu);
  EXPECT_EQ(encode("e4m3", NAN), 0x7Fu);         // S.1111.111, E4M3's only NaN
  EXPECT_EQ(encode("e4m3", 1000), 0x7Fu);        // overflow without .satfinite: NaN (no infinity)
  EXPECT_EQ(encode("e4m3", -1000), 0xFFu);       // with its sign, as CUDA's __nv_cvt_float_to_fp8
  EXPECT_EQ(encode("e4m3", -1000, Rounding::kNearestEven, true), 0xFEu);
  EXPECT_EQ(encode("e5m2", 1e6), 0x7Cu);         // infinity
  EXPECT_EQ(encode("e5m2", 1e6, Rounding::kNearestEven, true), 0x7Bu);
  EXPECT_EQ(encode("e2m1", NAN, Rounding::kNearestEven, true), 0x7u);  // no NaN: +MAX_NORM
  EXPECT_EQ(encode("f16", 70000), 0x7C00u);
  EXPECT_EQ(encode("f16", 70000, Rounding::kZero), 0x7BFFu);  // toward zero never overflows to infinity
  EXPECT_EQ(encode("f16", 70000, Rounding::kNearestEven, true), 0x7BFFu);
  EXPECT_EQ(encode("f16", -70000, Rounding::kUp), 0xFBFFu);
  EXPECT_EQ(encode("f16", NAN), 0x7FFFu);
  // Infinity stays infinity in every rounding mode (a finite value past the largest does not):
  // CUDA 13.0's host __float2half_rz returns sign | 0x7c00 for it.
  EXPECT_EQ(encode("f16", INFINITY, Rounding::kZero), 0x7C00u);
  EXPECT_EQ(encode("f16", -INFINITY, Rounding::kUp), 0xFC00u);
  EXPECT_EQ(encode("bf16", INFINITY, Rounding::kDown), 0x7F80u);
  EXPECT_EQ(encode("f16", INFINITY, Rounding::kZero, true), 0x7BFFu);  // .satfinite
}

TEST(FloatFormats, RoundingModesOnTheFormatsGrids) {
  // FP4 E2M1 holds 0, 0.5, 1, 1.5, 2, 3, 4, 6.
  const double values[] = {0.5, 1, 1.5, 2, 3, 4, 6};
  for (uint64_t k = 0; k < 7; ++k) {
    EXPECT_EQ(encode("e2m1", values[k]), k + 1) << values[k];
    EXPECT_EQ(ptx::decode_float(k + 1, *ptx::find_float_format("e2m1")), values[k]);
    EXPECT_EQ(encode("e2m1", -values[k]), k + 9);
  }
  EXPECT_EQ(encode("e2m1", 5), 0x6u);   // a tie between 4 and 6: the even mantissa, 4
  EXPECT_EQ(encode("e2m1", 0.25), 0x0u);  // a tie between 0 and 0.5
  EXPECT_EQ(encode("e2m1", 2.6), 0x5u);
  EXPECT_EQ(encode("e2m1", 2.6, Rounding::kZero), 0x4u);
  EXPECT_EQ(encode("e2m1", -2.6, Rounding::kDown), 0xDu);  // -3
  EXPECT_EQ(encode("e2m1", -2.6, Rounding::kUp), 0xCu);    // -2
  EXPECT_EQ(encode("f16", 1 + std::ldexp(1, -11)), 0x3C00u);      // tie: even
  EXPECT_EQ(encode("f16", 1 + 3 * std::ldexp(1, -11)), 0x3C02u);  // tie: even, upward
  EXPECT_EQ(encode("f16", 1.9999, Rounding::kZero), 0x3FFFu);
  EXPECT_EQ(encode("f16", std::ldexp(1, -24)), 0x0001u);  // the smallest subnormal
  EXPECT_EQ(encode("bf16", 1 + std::ldexp(1, -8)), 0x3F80u);
  EXPECT_EQ(encode("bf16", 1 + 3 * std::ldexp(1, -8)), 0x3F82u);
  EXPECT_EQ(encode("e5m2", 1.25), 0x3Du);
  EXPECT_EQ(encode("e4m3", 0.001953125), 0x01u);  // 2^-9: E4M3's smallest subnormal
}

// The MMA operand decoder (matrix_element_value, what mma/wgmma/tcgen05 read fragments and shared
// memory with) gives every code of every input format the value cvt's decode_float does, which
// tools/conversions/compare_with_cuda.sh checks against CUDA's headers.
TEST(FloatFormats, MmaOperandsDecodeAsCvtDoes) {
  const std::pair<const char*, uint32_t> formats[] = {{"f16", 65536}, {"bf16", 65536}, {"e4m3", 256}, {"e5m2", 256},
                                                       {"e3m2", 64},    {"e2m3", 64},    {"e2m1", 16}};
  for (const auto& [name, codes] : formats) {
    const ptx::FloatFormat& f = *ptx::find_float_format(name);
    for (uint32_t code = 0; code < codes; ++code) {
      const double want = ptx::decode_float(code, f), got = ptx::matrix_element_value(name, code);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << name << " " << code;
      } else {
        EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(want)) << name << " " << code;  // -0 included
      }
    }
  }
}

// cvt .rs (PTX ISA, cvt): toward zero, or away from it when the random bits added to the bits the
// result drops carry out. Expectations worked by hand from the values' binary expansions.
TEST(FloatFormats, StochasticRoundingCarriesTheRandomBitsIntoTheLastPlace) {
  auto sr = [](const char* format, double x, uint32_t random, uint32_t count, bool satfinite = false) {
    return ptx::encode_float(x, *ptx::find_float_format(format), Rounding::kStochastic, satfinite, {random, count});
  };
  const double x = 1 + std::ldexp(1, -11);  // f16 drops 2^-11 = 4096 of its 13 bits below 2^-10
  EXPECT_EQ(sr("f16", x, 4095, 13), 0x3C00u);
  EXPECT_EQ(sr("f16", x, 4096, 13), 0x3C01u);
  EXPECT_EQ(sr("f16", -x, 4096, 13), 0xBC01u);  // away from zero
  EXPECT_EQ(sr("f16", -x, 0, 13), 0xBC00u);
  EXPECT_EQ(sr("f16", 1.5, 8191, 13), 0x3E00u);  // nothing dropped: nothing to carry
  // bf16 drops f32's 16 low mantissa bits: 1 + 2^-9 drops 0x4000 of 0x10000.
  EXPECT_EQ(sr("bf16", 1 + std::ldexp(1, -9), 49151, 16), 0x3F80u);
  EXPECT_EQ(sr("bf16", 1 + std::ldexp(1, -9), 49152, 16), 0x3F81u);
  // 65519 = 2047.46875 x 32: 3840 of 8192 dropped below 65504; a carry passes the largest f16.
  EXPECT_EQ(sr("f16", 65519, 4351, 13), 0x7BFFu);
  EXPECT_EQ(sr("f16", 65519, 4352, 13), 0x7C00u);
  EXPECT_EQ(sr("f16", 65519, 4352, 13, true), 0x7BFFu);  // .satfinite
  EXPECT_EQ(sr("f16", INFINITY, 0, 13), 0x7C00u);
  EXPECT_EQ(sr("f16", -INFINITY, 0, 13, true), 0xFBFFu);
  EXPECT_EQ(sr("f16", NAN, 0, 13), 0x7FFFu);
  // A subnormal result drops more than 13 bits; the random bits meet the top 13 (assumed: the
  // ISA's figure for this case could not be read). 2^-25 is half the smallest subnormal.
  EXPECT_EQ(sr("f16", std::ldexp(1, -25), 4095, 13), 0x0000u);
  EXPECT_EQ(sr("f16", std::ldexp(1, -25), 4096, 13), 0x0001u);
  // Unbiased: over every value of the random bits the results average to x exactly.
  const double y = 1 + 1234 * std::ldexp(1, -23);
  double sum = 0;
  for (uint32_t r = 0; r < 8192; ++r) sum += ptx::decode_float(sr("f16", y, r, 13), *ptx::find_float_format("f16"));
  EXPECT_EQ(sum, 8192 * y);
}

const char* kConversionHeader = ".version 8.6\n.target sm_100a\n.address_size 64\n";

// Runs `body` (PTX after the header: one entry `k` with a .u64 parameter `out`) on b200, whose
// sm_100a takes every conversion PTX defines.
std::vector<uint32_t> run_conversion(const std::string& body, uint32_t count) { return test::run_words("b200", kConversionHeader + body, count); }

// The packed conversions FP8/FP4 kernels use: the first source goes to the high half.
TEST(PtxConversions, PackedFp8AndFp4ConversionsPutTheFirstSourceHigh) {
  const auto out = run_conversion(R"(.visible .entry k(.param .u64 out)
{
  .reg .b16 %h<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  cvt.rn.satfinite.e4m3x2.f32 %h1, 0f43E00000, 0fC0200000;
  cvt.rn.satfinite.e5m2x2.f32 %h2, 0f3FA00000, 0f47C35000;
  cvt.rn.f16x2.e4m3x2 %r1, %h1;
  cvt.rn.bf16x2.f32 %r2, 0f3F800000, 0fC0000000;
  cvt.rn.f16x2.f32 %r3, 0f3F800000, 0fC0000000;
  cvt.rn.satfinite.e2m1x2.f32 %h3, 0f40C00000, 0f3F000000;
  cvt.rn.f16x2.e2m1x2 %r4, %h3;
  mov.b32 %r5, 0x3C00C000;
  cvt.rn.satfinite.relu.e4m3x2.f16x2 %h4, %r5;
  cvt.u32.u16 %r6, %h1;
  cvt.u32.u16 %r7, %h2;
  cvt.u32.u16 %r8, %h3;
  cvt.u32.u16 %r9, %h4;
  st.global.v4.u32 [%rd1], {%r6, %r7, %r1, %r2};
  st.global.v4.u32 [%rd1+16], {%r3, %r8, %r4, %r9};
  ret;
}
)", 8);
  ASSERT_EQ(out.size(), 8u);
  EXPECT_EQ(out[0], 0x7EC2u);      // 448 = 0 1111 110 high; -2.5 = -1.25 x 2^1 = 1 1000 010 low
  EXPECT_EQ(out[1], 0x3D7Bu);      // 1.25 = 0 01111 01 high; 100000 saturates to 57344 = 0 11110 11 low
  EXPECT_EQ(out[2], 0x5F00C100u);  // back to f16: 448 = 0x5F00, -2.5 = 0xC100
  EXPECT_EQ(out[3], 0x3F80C000u);  // bf16 1.0 high, -2.0 low
  EXPECT_EQ(out[4], 0x3C00C000u);  // f16 1.0 high, -2.0 low
  EXPECT_EQ(out[5], 0x71u);        // 6.0 = 0x7 high nibble, 0.5 = 0x1 low
  EXPECT_EQ(out[6], 0x46003800u);  // f16 6.0, 0.5
  EXPECT_EQ(out[7], 0x3800u);      // .relu: 1.0 (e4m3 0x38) high, -2.0 to +0 low
}

// cvt.rs packs two f32 into f16x2 or bf16x2, a high; rbits's high half rounds a and its low half
// b (13 low bits of each for f16, the 3 above ignored; all 16 for bf16).
TEST(PtxConversions, StochasticRoundingTakesEachHalfOfRbitsForItsOperand) {
  const auto out = run_conversion(R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  cvt.rs.f16x2.f32 %r1, 0f3F801000, 0fBF801000, 0x10000FFF;
  cvt.rs.f16x2.f32 %r2, 0f3F801000, 0fBF801000, 0xF0001FFF;
  cvt.rs.bf16x2.f32 %r3, 0f3F804000, 0f3F804000, 0xBFFFC000;
  cvt.rs.relu.satfinite.f16x2.f32 %r4, 0fC0000000, 0f477FEF00, 0xFFFFFFFF;
  cvt.rs.f16x2.f32 %r5, 0f477FEF00, 0f477FEF00, 0x110010FF;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.u32 [%rd1+16], %r5;
  ret;
}
)", 5);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], 0x3C01BC00u);  // 1 + 2^-11: 4096 + 0x1000 carries; -(1 + 2^-11): 4096 + 0xFFF does not
  EXPECT_EQ(out[1], 0x3C01BC01u);  // 0xF000's top 3 bits ignored; 0x1FFF carries
  EXPECT_EQ(out[2], 0x3F803F81u);  // 1 + 2^-9 drops 0x4000: 0xBFFF does not carry, 0xC000 does
  EXPECT_EQ(out[3], 0x00007BFFu);  // .relu: -2 -> 0; 65519 carries past 65504: .satfinite keeps 65504
  EXPECT_EQ(out[4], 0x7C007BFFu);  // 3840 + 0x1100 carries to infinity; + 0x10FF does not
}

// UE8M0 scale factors (MX formats), as CUDA 13.0's cuda_fp8.h documents __nv_cvt_float_to_e8m0
// and __nv_cvt_e8m0_to_bf16raw: |x| rounded to a power of two toward zero or up, 2^-127 at the
// bottom, NaN (0xFF) above 2^127 unless .satfinite, NaN from NaN; back to bf16 with 2^-127 as the
// subnormal 0x0040 and NaN as 0x7FFF. The first source goes high, as for the other packed forms.
TEST(PtxConversions, Ue8m0ScaleFactorsRoundToPowersOfTwo) {
  const auto out = run_conversion(R"(.visible .entry k(.param .u64 out)
{
  .reg .b16 %h<12>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  cvt.rz.ue8m0x2.f32 %h1, 0f40400000, 0f3F800000;
  cvt.rp.ue8m0x2.f32 %h2, 0f40400000, 0fC0800000;
  cvt.rp.ue8m0x2.f32 %h3, 0f00400000, 0f00600000;
  cvt.rz.ue8m0x2.f32 %h4, 0f00000000, 0f00000001;
  cvt.rp.ue8m0x2.f32 %h5, 0f7F7FFFFF, 0f7F800000;
  cvt.rp.satfinite.ue8m0x2.f32 %h6, 0f7F7FFFFF, 0f7F800000;
  cvt.rz.satfinite.ue8m0x2.f32 %h7, 0f7FFFFFFF, 0f7F7FFFFF;
  mov.b32 %r1, 0x40403F81;
  cvt.rz.ue8m0x2.bf16x2 %h8, %r1;
  cvt.rp.ue8m0x2.bf16x2 %h9, %r1;
  cvt.rn.bf16x2.ue8m0x2 %r2, %h1;
  cvt.rn.bf16x2.ue8m0x2 %r3, %h3;
  cvt.rn.bf16x2.ue8m0x2 %r4, %h5;
  cvt.u32.u16 %r5, %h1;
  cvt.u32.u16 %r6, %h2;
  cvt.u32.u16 %r7, %h3;
  cvt.u32.u16 %r8, %h4;
  cvt.u32.u16 %r9, %h5;
  cvt.u32.u16 %r10, %h6;
  cvt.u32.u16 %r11, %h7;
  cvt.u32.u16 %r12, %h8;
  cvt.u32.u16 %r13, %h9;
  st.global.v4.u32 [%rd1], {%r5, %r6, %r7, %r8};
  st.global.v4.u32 [%rd1+16], {%r9, %r10, %r11, %r12};
  st.global.v4.u32 [%rd1+32], {%r13, %r2, %r3, %r4};
  ret;
}
)", 12);
  ASSERT_EQ(out.size(), 12u);
  EXPECT_EQ(out[0], 0x807Fu);   // .rz: 3 -> 2^1 (128), 1 -> 2^0 (127)
  EXPECT_EQ(out[1], 0x8181u);   // .rp: 3 -> 2^2, -4 -> 2^2 (the magnitude)
  EXPECT_EQ(out[2], 0x0001u);   // .rp: 2^-127 stays (0), 1.5 x 2^-127 -> 2^-126 (1)
  EXPECT_EQ(out[3], 0x0000u);   // 0 and the smallest subnormal clip to 2^-127
  EXPECT_EQ(out[4], 0xFFFFu);   // .rp of the largest float passes 2^127, as does infinity: NaN
  EXPECT_EQ(out[5], 0xFEFEu);   // ... or 2^127 with .satfinite
  EXPECT_EQ(out[6], 0xFFFEu);   // NaN stays NaN under .satfinite; .rz of the largest float is 2^127
  EXPECT_EQ(out[7], 0x807Fu);   // bf16x2 3.0 (high) and 1.0078125: exponents 128 and 127
  EXPECT_EQ(out[8], 0x8180u);   // .rp: both have mantissa bits
  EXPECT_EQ(out[9], 0x40003F80u);  // back to bf16: 2.0 and 1.0
  EXPECT_EQ(out[10], 0x00400080u); // 2^-127 (bf16 subnormal 0x0040) and 2^-126
  EXPECT_EQ(out[11], 0x7FFF7FFFu); // NaN
}

// cvt.pack.sat (PTX ISA, "cvt.pack"): a and b saturated to the convert type, b lowest, a above
// it, and for types narrower than 16 bits c's low bits above both.
TEST(PtxConversions, PackSaturatesTwoIntegersAndKeepsTheRestOfC) {
  const auto out = run_conversion(R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.b32 %r10, 40000;
  mov.b32 %r11, -5;
  cvt.pack.sat.s16.s32 %r1, %r10, %r11;
  mov.b32 %r10, -3;
  mov.b32 %r11, 70000;
  cvt.pack.sat.u16.s32 %r2, %r10, %r11;
  mov.b32 %r10, 200;
  mov.b32 %r11, -200;
  mov.b32 %r12, 0x12345678;
  cvt.pack.sat.s8.s32.b32 %r3, %r10, %r11, %r12;
  mov.b32 %r10, 9;
  mov.b32 %r11, 20;
  mov.b32 %r12, 0xABCDEF01;
  cvt.pack.sat.u4.s32.b32 %r4, %r10, %r11, %r12;
  mov.b32 %r10, -7;
  mov.b32 %r11, 1;
  mov.b32 %r12, 0xFFFFFFFF;
  cvt.pack.sat.s2.s32.b32 %r5, %r10, %r11, %r12;
  mov.b32 %r10, 5;
  mov.b32 %r11, 2;
  mov.b32 %r12, 0;
  cvt.pack.sat.u2.s32.b32 %r6, %r10, %r11, %r12;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v2.u32 [%rd1+16], {%r5, %r6};
  ret;
}
)", 6);
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0], 0x7FFFFFFBu);  // s16: 40000 -> 32767 high, -5 = 0xFFFB low
  EXPECT_EQ(out[1], 0x0000FFFFu);  // u16: -3 -> 0 high, 70000 -> 65535 low
  EXPECT_EQ(out[2], 0x56787F80u);  // s8: 127 and -128 (0x7F80), c's low 16 bits above
  EXPECT_EQ(out[3], 0xCDEF019Fu);  // u4: 9 and 15 (0x9F), c's low 24 bits above
  EXPECT_EQ(out[4], 0xFFFFFFF9u);  // s2: -7 -> -2 (0b10) and 1 (0b01), c's ones above
  EXPECT_EQ(out[5], 0x0000000Eu);  // u2: 5 -> 3 and 2: 0b1110
}

// Forms outside the ISA's are refused at their line, naming the forms that exist.
TEST(PtxConversions, MalformedPackAndUe8m0FormsAreRefused) {
  test::TempDir dir;
  auto run = [&](const std::string& line) {
    dir.write("k.ptx", std::string(kConversionHeader) + ".visible .entry k()\n{\n  .reg .b16 %h<4>;\n  .reg .b32 %r<4>;\n  .reg .f32 %f<4>;\n" +
                           line + "  ret;\n}\n");
    return test::run_cli({"run", "--arch", "b200", dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [1]\n"), "-q"});
  };
  const std::pair<const char*, const char*> cases[] = {
      {"  cvt.pack.sat.s8.s32 %r1, %r2, %r3;\n", "k.ptx:9:3: the emulator cannot run 'cvt.pack.sat.s8.s32': expected cvt.pack.sat.{u16,s16}.s32"},
      {"  cvt.pack.s16.s32 %r1, %r2, %r3;\n", "the emulator cannot run 'cvt.pack.s16.s32'"},
      {"  cvt.pack.sat.u16.s32.b32 %r1, %r2, %r3, %r1;\n", "the emulator cannot run 'cvt.pack.sat.u16.s32.b32'"},
      {"  cvt.rn.ue8m0x2.f32 %h1, %f1, %f2;\n", "expected cvt.rz|rp{.satfinite}.ue8m0x2.f32 d, a, b"},
      {"  cvt.rz.bf16x2.ue8m0x2 %r1, %h1;\n", "expected cvt.rn.bf16x2.ue8m0x2 d, a"},
      {"  cvt.rz.ue8m0x2.f16x2 %h1, %r1;\n", "UE8M0 converts from f32 or bf16x2 and into bf16x2 only"},
      {"  cvt.rs.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f3, %f1}, %r2;\n", "modelled for f32 into f16x2 and bf16x2 only"},
      {"  cvt.rs.f16x2.f32 %r1, %f1, %f2;\n", "expected cvt.rs d, a, b, rbits"}};
  for (const auto& [line, message] : cases) {
    const auto r = run(line);
    EXPECT_EQ(r.exit_code, 3) << line;
    EXPECT_NE(r.err.find(message), std::string::npos) << line << r.err;
  }
}

// Scalar conversions: float to integer clamps and takes NaN to 0; .sat clamps integers and
// floats; integral rounding (.rmi = floor) stays in the float format; narrowing rounds with the
// instruction's mode.
TEST(PtxConversions, ScalarConversionsSaturateAndRound) {
  const auto out = run_conversion(R"(.visible .entry k(.param .u64 out)
{
  .reg .b16 %h<4>;
  .reg .f32 %f<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  cvt.rzi.s32.f32 %r1, 0f4F32D05E;
  cvt.rzi.s32.f32 %r2, 0fF149F2CA;
  cvt.rni.s32.f32 %r3, 0f7FC00000;
  cvt.rni.u8.f32 %r4, 0f43960000;
  cvt.sat.u8.s32 %r5, -5;
  cvt.sat.s8.s32 %r6, 300;
  cvt.rmi.f32.f32 %f1, 0f402CCCCD;
  cvt.rpi.f32.f32 %f2, 0fC02CCCCD;
  cvt.sat.f32.f32 %f3, 0f3FC00000;
  cvt.rz.f16.f32 %h1, 0f3FFFF972;
  cvt.rn.relu.f16.f32 %h2, 0fC0000000;
  cvt.rn.satfinite.f16.f32 %h3, 0f47C35000;
  mov.b32 %r7, %f1;
  mov.b32 %r8, %f2;
  mov.b32 %r9, %f3;
  cvt.u32.u16 %r10, %h1;
  cvt.u32.u16 %r11, %h2;
  cvt.u32.u16 %r12, %h3;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
  st.global.v4.u32 [%rd1+32], {%r9, %r10, %r11, %r12};
  ret;
}
)", 12);
  ASSERT_EQ(out.size(), 12u);
  EXPECT_EQ(out[0], 0x7FFFFFFFu);  // 3e9 clamps to INT32_MAX
  EXPECT_EQ(out[1], 0x80000000u);  // -1e30 clamps to INT32_MIN
  EXPECT_EQ(out[2], 0u);           // NaN
  EXPECT_EQ(out[3], 255u);         // 300 clamps to u8
  EXPECT_EQ(out[4], 0u);
  EXPECT_EQ(out[5], 127u);
  EXPECT_EQ(std::bit_cast<float>(out[6]), 2.0f);   // floor(2.7)
  EXPECT_EQ(std::bit_cast<float>(out[7]), -2.0f);  // ceil(-2.7)
  EXPECT_EQ(std::bit_cast<float>(out[8]), 1.0f);   // 1.5 clamped to [0, 1]
  EXPECT_EQ(out[9], 0x3FFFu);   // 1.99980 toward zero: 1.99902, not 2.0
  EXPECT_EQ(out[10], 0u);       // .relu: -2 to +0
  EXPECT_EQ(out[11], 0x7BFFu);  // 100000 saturates to 65504
}

// .sat, .relu, .NaN and .xorsign.abs on arithmetic, and three-source max (sm_100).
TEST(PtxConversions, ArithmeticResultModifiers) {
  const auto out = run_conversion(R"(.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  add.sat.f32 %f1, 0f3FC00000, 0f3E4CCCCD;
  mul.sat.f32 %f2, 0fC0000000, 0f3F800000;
  fma.rn.sat.f32 %f3, 0f7FC00000, 0f3F800000, 0f3F800000;
  max.f32 %f4, 0f3F800000, 0f40400000, 0f40000000;
  add.sat.s32 %r1, 0x7FFFFFF0, 0x100;
  sub.sat.s32 %r2, 0x80000010, 0x100;
  max.relu.s32 %r3, -5, -3;
  mov.b32 %r4, 0x3C00C200;
  mov.b32 %r5, 0x7E00BC00;
  max.NaN.f16x2 %r6, %r4, %r5;
  max.f16x2 %r7, %r4, %r5;
  min.xorsign.abs.f16x2 %r8, %r4, %r5;
  fma.rn.relu.f16x2 %r9, %r4, %r4, 0xBC00BC00;
  mov.b32 %r10, %f1;
  mov.b32 %r11, %f2;
  mov.b32 %r12, %f3;
  mov.b32 %r13, %f4;
  st.global.v4.u32 [%rd1], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd1+16], {%r1, %r2, %r3, %r6};
  st.global.v4.u32 [%rd1+32], {%r7, %r8, %r9, %r9};
  ret;
}
)", 12);
  ASSERT_EQ(out.size(), 12u);
  EXPECT_EQ(std::bit_cast<float>(out[0]), 1.0f);  // 1.7 clamped
  EXPECT_EQ(std::bit_cast<float>(out[1]), 0.0f);  // -2 clamped
  EXPECT_EQ(out[2], 0u);                          // NaN to +0
  EXPECT_EQ(std::bit_cast<float>(out[3]), 3.0f);
  EXPECT_EQ(out[4], 0x7FFFFFFFu);
  EXPECT_EQ(out[5], 0x80000000u);
  EXPECT_EQ(out[6], 0u);
  // f16x2 (high, low): a = (1.0, -3.0), b = (NaN, -1.0).
  EXPECT_EQ(out[7] >> 16, 0x7FFFu);      // .NaN: NaN in, NaN out
  EXPECT_EQ(out[7] & 0xFFFF, 0xBC00u);   // max(-3, -1) = -1
  EXPECT_EQ(out[8] >> 16, 0x3C00u);      // plain max ignores the NaN: 1.0
  EXPECT_EQ(out[9] & 0xFFFF, 0x3C00u);   // min(|-3|, |-1|) = 1, signs -,- xor to +
  EXPECT_EQ(out[10], 0x00004800u);       // relu(1*1 - 1) = 0 high; relu(9 - 1) = 8 (0x4800) low
}

}  // namespace
}  // namespace warpsim
