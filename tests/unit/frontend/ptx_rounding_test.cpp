// Floating-point rounding and flushing in the emulator, against bits worked out by hand from the
// PTX ISA's definitions: directed rounding (.rz/.rm/.rp), .ftz on f32 and f16, and %smid.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "support/test_support.h"

namespace warpsim {
namespace {

// Runs `body` (PTX after an sm_90 header: one entry `k` with a .u64 parameter `out`) on h100.
std::vector<uint32_t> run_rounding(const std::string& body, uint32_t count, uint32_t threads = 1) {
  return test::run_words("h100", std::string(".version 8.0\n.target sm_90\n.address_size 64\n") + body, count, threads);
}

// .rz/.rm/.rp round the exact result toward zero, minus or plus infinity (IEEE 754, as the PTX
// ISA's add/mul/fma/div/sqrt/rcp define them). Operands chosen so the four modes differ; the
// expected bits are worked out by hand:
//  1 + 2^-30 lies between 1 and 1 + 2^-23: rz/rm give 1 (0x3f800000), rp 0x3f800001;
//  -1 - 2^-30: rz/rp give -1 (0xbf800000), rm 0xbf800001;
//  (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: rz 0x3f800002, rp 0x3f800003;
//  fma(1 + 2^-23, 1 + 2^-23, -1) = 2^-22 + 2^-46, half an ulp above 2^-22: rn (tie to even) and
//  rz give 2^-22 (0x34800000), rp 0x34800001: one rounding, not two;
//  1 / 3: 0x3eaaaaab to nearest (above), rz 0x3eaaaaaa; rcp.rp the same as rn;
//  sqrt(2): to nearest 0x3fb504f3 lies below, so rp gives 0x3fb504f4;
//  in f64, 1 / 3 to nearest 0x3fd5555555555555 lies below, rp gives ...56.
TEST(PtxInstructions, DirectedRounding) {
  const auto out = run_rounding(R"(.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<24>;
  .reg .f64 %fd<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f30800000;
  add.rz.f32 %f3, %f1, %f2;
  add.rm.f32 %f4, %f1, %f2;
  add.rp.f32 %f5, %f1, %f2;
  neg.f32 %f6, %f1;
  sub.rz.f32 %f7, %f6, %f2;
  sub.rm.f32 %f8, %f6, %f2;
  sub.rp.f32 %f9, %f6, %f2;
  mov.f32 %f10, 0f3F800001;
  mul.rz.f32 %f11, %f10, %f10;
  mul.rp.f32 %f12, %f10, %f10;
  fma.rn.f32 %f13, %f10, %f10, %f6;
  fma.rz.f32 %f14, %f10, %f10, %f6;
  fma.rp.f32 %f15, %f10, %f10, %f6;
  mov.f32 %f16, 0f40400000;
  div.rn.f32 %f17, %f1, %f16;
  div.rz.f32 %f18, %f1, %f16;
  rcp.rp.f32 %f19, %f16;
  mov.f32 %f20, 0f40000000;
  sqrt.rn.f32 %f21, %f20;
  sqrt.rp.f32 %f22, %f20;
  st.global.v4.f32 [%rd1], {%f3, %f4, %f5, %f7};
  st.global.v4.f32 [%rd1+16], {%f8, %f9, %f11, %f12};
  st.global.v4.f32 [%rd1+32], {%f13, %f14, %f15, %f17};
  st.global.v4.f32 [%rd1+48], {%f18, %f19, %f21, %f22};
  mov.f64 %fd1, 0d4008000000000000;
  rcp.rn.f64 %fd2, %fd1;
  rcp.rp.f64 %fd3, %fd1;
  st.global.v2.f64 [%rd1+64], {%fd2, %fd3};
  ret;
}
)",
                             20);
  ASSERT_EQ(out.size(), 20u);
  const std::vector<uint32_t> expected = {0x3f800000, 0x3f800000, 0x3f800001, 0xbf800000, 0xbf800001, 0xbf800000,
                                          0x3f800002, 0x3f800003, 0x34800000, 0x34800000, 0x34800001, 0x3eaaaaab,
                                          0x3eaaaaaa, 0x3eaaaaab, 0x3fb504f3, 0x3fb504f4,
                                          0x55555555, 0x3fd55555, 0x55555556, 0x3fd55555};
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(out[i], expected[i]) << "word " << i;
}

// %smid and %nsmid: the SM the GPU placed the CTA on and the GPU's SM count. The first round of
// dispatch puts CTA i on SM i (breadth-first, one CTA per SM), so 8 CTAs read 0..7.
TEST(PtxInstructions, SmidIsWhereTheCtaRuns) {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %smid;
  mov.u32 %r3, %nsmid;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r2, %r3};
  ret;
}
)";
  for (const auto& [arch, sms] : {std::pair{"h100", 132u}, std::pair{"b200", 148u}}) {
    const std::string bytes = test::run_and_dump(arch, ptx,
                                                 "ptx: k.ptx\nkernel: k\ngrid: [8]\nblock: [32]\nargs:\n"
                                                 "  - {buffer: {name: out, elem: u32, count: 16}}\ndump: [out]\n",
                                                 "out");
    ASSERT_EQ(bytes.size(), 64u) << arch;
    std::vector<uint32_t> w(16);
    std::memcpy(w.data(), bytes.data(), 64);
    for (uint32_t c = 0; c < 8; ++c) {
      EXPECT_EQ(w[2 * c], c) << arch << " CTA " << c;
      EXPECT_EQ(w[2 * c + 1], sms) << arch;
    }
  }
}

// .ftz (what nvcc emits under --use_fast_math): f32 subnormal sources and results become zeros
// of their sign, in the arithmetic's fast and general paths, comparisons and conversions; the
// same instructions without it keep subnormals. s = 2^-127 (0x00400000), n = 2^-126 (the least
// normal), n x 0.5 = s; 2^-126.5 is subnormal.
TEST(PtxInstructions, FlushToZero) {
  const auto out = run_rounding(R"(.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<24>;
  .reg .f64 %fd<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.f32 %f1, 0f00400000;
  mov.f32 %f2, 0f00000000;
  mov.f32 %f3, 0f00800000;
  mov.f32 %f4, 0f3F000000;
  mov.f32 %f5, 0f3F800000;
  neg.f32 %f6, %f1;
  add.f32 %f7, %f1, %f2;
  add.ftz.f32 %f8, %f1, %f2;
  mul.f32 %f9, %f3, %f4;
  mul.ftz.f32 %f10, %f3, %f4;
  mul.ftz.f32 %f11, %f5, %f6;
  fma.rn.f32 %f12, %f5, %f1, %f2;
  fma.rn.ftz.f32 %f13, %f5, %f1, %f2;
  min.f32 %f14, %f1, %f5;
  min.ftz.f32 %f15, %f1, %f5;
  mov.f32 %f16, 0fC2FD0000;
  ex2.approx.f32 %f17, %f16;
  ex2.approx.ftz.f32 %f18, %f16;
  cvt.ftz.f32.f32 %f19, %f1;
  setp.gt.f32 %p1, %f1, %f2;
  setp.gt.ftz.f32 %p2, %f1, %f2;
  selp.u32 %r1, 1, 0, %p1;
  selp.u32 %r2, 1, 0, %p2;
  cvt.ftz.f64.f32 %fd1, %f1;
  st.global.v4.f32 [%rd1], {%f7, %f8, %f9, %f10};
  st.global.v4.f32 [%rd1+16], {%f11, %f12, %f13, %f14};
  st.global.v4.f32 [%rd1+32], {%f15, %f17, %f18, %f19};
  st.global.v2.u32 [%rd1+48], {%r1, %r2};
  st.global.f64 [%rd1+56], %fd1;
  ret;
}
)",
                             16);
  ASSERT_EQ(out.size(), 16u);
  // 2^-126.5 = 2^-149 x 2^22.5: the nearest subnormal's fraction is round(2^22.5) = 5931642.
  const std::vector<uint32_t> expected = {0x00400000, 0, 0x00400000, 0, 0x80000000, 0x00400000, 0, 0x00400000,
                                          0, 5931642, 0, 0, 1, 0, 0, 0};
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(out[i], expected[i]) << "word " << i;
}

// .ftz on f16 and f16x2: half subnormals (exponent bits 0: s = 0x0200 = 2^-15; the least normal
// is n = 0x0400 = 2^-14) become zeros of their sign as sources and results, in comparisons too;
// bf16 forms have no .ftz. Without it subnormals stay.
TEST(PtxInstructions, FlushToZeroOnHalves) {
  const auto out = run_rounding(R"(.visible .entry k(.param .u64 out)
{
  .reg .b16 %h<16>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<2>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.b16 %h1, 0x0200;
  mov.b16 %h2, 0x0000;
  mov.b16 %h3, 0x0400;
  mov.b16 %h4, 0x3800;
  mov.b16 %h5, 0x3C00;
  mov.b16 %h6, 0x8200;
  add.f16 %h7, %h1, %h2;
  add.ftz.f16 %h8, %h1, %h2;
  mul.f16 %h9, %h3, %h4;
  mul.ftz.f16 %h10, %h3, %h4;
  mul.ftz.f16 %h11, %h5, %h6;
  fma.rn.ftz.f16 %h12, %h5, %h3, %h2;
  mov.b32 %r1, {%h1, %h5};
  mov.b32 %r2, 0;
  add.f16x2 %r3, %r1, %r2;
  add.ftz.f16x2 %r4, %r1, %r2;
  setp.gt.f16 %p1, %h1, %h2;
  setp.gt.ftz.f16 %p2, %h1, %h2;
  selp.u32 %r5, 1, 0, %p1;
  selp.u32 %r6, 1, 0, %p2;
  mov.b32 %r7, {%h7, %h8};
  st.global.u32 [%rd1], %r7;
  mov.b32 %r7, {%h9, %h10};
  st.global.u32 [%rd1+4], %r7;
  mov.b32 %r7, {%h11, %h12};
  st.global.u32 [%rd1+8], %r7;
  st.global.v4.u32 [%rd1+16], {%r3, %r4, %r5, %r6};
  ret;
}
)",
                             8);
  ASSERT_EQ(out.size(), 8u);
  const std::vector<uint32_t> expected = {0x00000200,              // add keeps s; add.ftz flushes it
                                          0x00000200,              // n x 0.5 = s; with .ftz the product flushes
                                          0x04008000,              // 1 x -s flushes to -0; 1 x n + 0 stays n
                                          0,                       // not written
                                          0x3C000200, 0x3C000000,  // each f16x2 element alone
                                          1, 0};                   // s > 0, but not once s is flushed
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(out[i], expected[i]) << "word " << i;
}

// %gridid numbers a launch file's launches from 1: of two launches of one kernel, the second
// writes last and reads 2.
TEST(PtxInstructions, GridIdNumbersTheLaunches) {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, %gridid;
  st.global.u64 [%rd1], %rd2;
  ret;
}
)";
  const std::string bytes = test::run_and_dump("h100", ptx,
                                               "ptx: k.ptx\nbuffers:\n  out: {elem: u64, count: 2}\nlaunches:\n"
                                               "  - {kernel: k, grid: [1], block: [1], args: [{buffer: out}]}\n"
                                               "  - {kernel: k, grid: [1], block: [1], args: [{buffer: out}]}\n"
                                               "dump: [out]\n",
                                               "out");
  ASSERT_EQ(bytes.size(), 16u);
  uint64_t id = 0;
  std::memcpy(&id, bytes.data(), 8);
  EXPECT_EQ(id, 2u);
}

}  // namespace
}  // namespace warpsim
