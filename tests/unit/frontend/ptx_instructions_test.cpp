// Instructions nvcc emits for ordinary CUDA code (funnel shifts, bfind, carry chains, dot
// products, match.sync, isspacep, generic local pointers, special registers), each run through
// the emulator on hand-written PTX and compared with values worked out by hand from the PTX ISA's
// definitions.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "support/test_support.h"

namespace warpsim {
namespace {

const char* kInstructionHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

// Runs `body` (PTX after the header: one entry `k` with a .u64 parameter `out`) on h100.
std::vector<uint32_t> run_instructions(const std::string& body, uint32_t count, uint32_t threads = 1, uint32_t dynamic_shared = 0) {
  return test::run_words("h100", kInstructionHeader + body, count, threads, dynamic_shared);
}

// shf.l: the high word of {b:a} << n; shf.r: the low word of {b:a} >> n; .wrap takes n mod 32,
// .clamp at most 32.
TEST(PtxInstructions, FunnelShifts) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.b32 %r1, 0x89ABCDEF;
  mov.b32 %r2, 0x01234567;
  shf.l.wrap.b32 %r3, %r1, %r2, 8;
  shf.l.wrap.b32 %r4, %r1, %r2, 40;
  shf.l.clamp.b32 %r5, %r1, %r2, 40;
  shf.r.wrap.b32 %r6, %r1, %r2, 36;
  shf.r.clamp.b32 %r7, %r1, %r2, 40;
  st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};
  st.global.u32 [%rd1+16], %r7;
  ret;
}
)", 5);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], 0x23456789u);  // 0x0123456789ABCDEF << 8, high word
  EXPECT_EQ(out[1], 0x23456789u);  // 40 wraps to 8
  EXPECT_EQ(out[2], 0x89ABCDEFu);  // clamped to 32: a itself
  EXPECT_EQ(out[3], 0x789ABCDEu);  // 36 wraps to 4: 0x0123456789ABCDEF >> 4, low word
  EXPECT_EQ(out[4], 0x01234567u);  // clamped to 32: b itself
}

// bfind: the position of the most significant non-sign bit, 0xffffffff when there is none;
// .shiftamt gives 31 minus it.
TEST(PtxInstructions, FindsTheMostSignificantNonSignBit) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  bfind.u32 %r1, 0x00F00000;
  bfind.shiftamt.u32 %r2, 0x00F00000;
  bfind.u32 %r3, 0;
  bfind.s32 %r4, -1;
  bfind.s32 %r5, -65536;
  mov.b64 %rd2, 0x0000010000000000;
  bfind.u64 %r6, %rd2;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v2.u32 [%rd1+16], {%r5, %r6};
  ret;
}
)", 6);
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0], 23u);
  EXPECT_EQ(out[1], 8u);
  EXPECT_EQ(out[2], 0xffffffffu);
  EXPECT_EQ(out[3], 0xffffffffu);  // -1: every bit is a sign bit
  EXPECT_EQ(out[4], 15u);          // 0xFFFF0000: the highest 0 is bit 15
  EXPECT_EQ(out[5], 40u);
}

// A 64-bit add and subtract and the high half of a 64x32-bit product, built from 32-bit
// pieces through the carry flag, as nvcc's multi-word arithmetic does.
TEST(PtxInstructions, CarryChainsDoMultiWordArithmetic) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  add.cc.u32 %r1, 0xFFFFFFFF, 1;
  addc.u32 %r2, 1, 0;
  sub.cc.u32 %r3, 0, 1;
  subc.u32 %r4, 1, 0;
  add.cc.u32 %r5, 1, 1;
  addc.cc.u32 %r6, 0xFFFFFFFF, 0;
  addc.u32 %r7, 0, 0;
  mad.lo.cc.u32 %r8, 0xFFFFFFFF, 3, 3;
  madc.hi.u32 %r9, 0xFFFFFFFF, 3, 7;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
  st.global.v2.u32 [%rd1+32], {%r9, %r10};
  st.global.u32 [%rd1+40], %r11;
  ret;
}
)", 11);
  ASSERT_EQ(out.size(), 11u);
  EXPECT_EQ(out[0], 0u);  // 0x1_FFFFFFFF + 1 = 0x2_00000000
  EXPECT_EQ(out[1], 2u);
  EXPECT_EQ(out[2], 0xFFFFFFFFu);  // 0x1_00000000 - 1 = 0x0_FFFFFFFF: a borrow
  EXPECT_EQ(out[3], 0u);
  EXPECT_EQ(out[4], 2u);  // no carry out of 1 + 1 ...
  EXPECT_EQ(out[5], 0xFFFFFFFFu);  // ... so nothing carries in here, nor out
  EXPECT_EQ(out[6], 0u);
  EXPECT_EQ(out[7], 0u);   // (0xFFFFFFFF * 3).lo = 0xFFFFFFFD, + 3 = 2^32: 0 and a carry
  EXPECT_EQ(out[8], 10u);  // (0xFFFFFFFF * 3).hi = 2, + 7, + the carry
}

// dp4a/dp2a: c plus a dot product of bytes (and halves), signed or not per operand; sad: c + |a - b|.
TEST(PtxInstructions, DotProductsAndAbsoluteDifferences) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.b32 %r1, 0xFC03FE01;
  mov.b32 %r2, 0x08F90605;
  dp4a.s32.s32 %r3, %r1, %r2, 10;
  dp4a.u32.u32 %r4, %r1, %r2, 10;
  dp4a.s32.u32 %r5, %r1, %r2, 0;
  mov.b32 %r6, 0xFFFE0003;
  dp2a.lo.s32.s32 %r7, %r6, %r2, 1;
  dp2a.hi.s32.s32 %r8, %r6, %r2, 1;
  sad.s32 %r9, -3, 4, 100;
  sad.u32 %r10, 3, 10, 1;
  st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r7};
  st.global.v4.u32 [%rd1+16], {%r8, %r9, %r10, %r10};
  ret;
}
)", 8);
  ASSERT_EQ(out.size(), 8u);
  // a's bytes (low first) 1, 0xFE, 3, 0xFC; b's 5, 6, 0xF9, 8.
  EXPECT_EQ(static_cast<int32_t>(out[0]), 1 * 5 + -2 * 6 + 3 * -7 + -4 * 8 + 10);
  EXPECT_EQ(out[1], 1u * 5 + 254u * 6 + 3u * 249 + 252u * 8 + 10);
  EXPECT_EQ(static_cast<int32_t>(out[2]), 1 * 5 + -2 * 6 + 3 * 249 + -4 * 8);
  // a's halves 3, -2; b's low bytes 5, 6 and high bytes -7, 8.
  EXPECT_EQ(static_cast<int32_t>(out[3]), 3 * 5 + -2 * 6 + 1);
  EXPECT_EQ(static_cast<int32_t>(out[4]), 3 * -7 + -2 * 8 + 1);
  EXPECT_EQ(out[5], 107u);
  EXPECT_EQ(out[6], 8u);
}

// copysign d, a, b: b's magnitude with a's sign; tanh (approximate on a GPU, exact here).
TEST(PtxInstructions, CopysignAndTanh) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .reg .f32 %f<8>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  copysign.f32 %f1, 0fBF800000, 0f40200000;
  copysign.f32 %f2, 0f3F800000, 0fC0200000;
  tanh.approx.f32 %f3, 0f3F000000;
  mov.b32 %r1, 0x38003800;
  tanh.approx.f16x2 %r2, %r1;
  st.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f3};
  st.global.u32 [%rd1+16], %r2;
  ret;
}
)", 5);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(std::bit_cast<float>(out[0]), -2.5f);
  EXPECT_EQ(std::bit_cast<float>(out[1]), 2.5f);
  EXPECT_NEAR(std::bit_cast<float>(out[2]), 0.46211716f, 1e-6f);
  EXPECT_EQ(out[4], 0x37653765u);  // tanh(0.5) = 0.462117 rounds to f16 0x3765 (0.462158), in both halves
}

// match.any.sync: the lanes holding the same value; match.all.sync: every lane's mask and a true
// predicate when all agree, else 0 and false.
TEST(PtxInstructions, MatchFindsLanesWithEqualValues) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  and.b32 %r2, %r1, 3;
  match.any.sync.b32 %r3, %r2, 0xffffffff;
  match.all.sync.b32 %r4|%p1, %r2, 0xffffffff;
  match.all.sync.b32 %r5|%p2, 7, 0xffffffff;
  selp.u32 %r6, 1, 0, %p1;
  selp.u32 %r7, 1, 0, %p2;
  mul.wide.u32 %rd2, %r1, 20;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  st.global.u32 [%rd3+4], %r4;
  st.global.u32 [%rd3+8], %r5;
  st.global.u32 [%rd3+12], %r6;
  st.global.u32 [%rd3+16], %r7;
  ret;
}
)", 32 * 5, 32);
  ASSERT_EQ(out.size(), 160u);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(out[l * 5], 0x11111111u << (l % 4)) << "lane " << l;
    EXPECT_EQ(out[l * 5 + 1], 0u);
    EXPECT_EQ(out[l * 5 + 2], 0xffffffffu);
    EXPECT_EQ(out[l * 5 + 3], 0u);
    EXPECT_EQ(out[l * 5 + 4], 1u);
  }
}

// Generic pointers to a thread's local array (cvta.local) reach that thread's own local memory,
// and isspacep tells global, shared and local generic addresses apart.
TEST(PtxInstructions, GenericLocalPointersAndIsspacep) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .local .align 4 .b8 depot[16];
  .shared .align 4 .b8 tile[64];
  .reg .pred %p<10>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, depot;
  cvta.local.u64 %rd3, %rd2;
  add.u32 %r2, %r1, 100;
  st.u32 [%rd3+4], %r2;
  ld.local.u32 %r3, [depot+4];
  st.local.u32 [depot+8], %r1;
  ld.u32 %r4, [%rd3+8];
  mov.u64 %rd4, tile;
  cvta.shared.u64 %rd5, %rd4;
  isspacep.local %p1, %rd3;
  isspacep.global %p2, %rd3;
  isspacep.shared %p3, %rd5;
  isspacep.local %p4, %rd5;
  isspacep.global %p5, %rd1;
  isspacep.shared %p6, %rd1;
  selp.u32 %r5, 1, 0, %p1;
  selp.u32 %r6, 2, 0, %p2;
  selp.u32 %r7, 4, 0, %p3;
  selp.u32 %r8, 8, 0, %p4;
  selp.u32 %r9, 16, 0, %p5;
  selp.u32 %r10, 32, 0, %p6;
  or.b32 %r11, %r5, %r6;
  or.b32 %r11, %r11, %r7;
  or.b32 %r11, %r11, %r8;
  or.b32 %r11, %r11, %r9;
  or.b32 %r11, %r11, %r10;
  mul.wide.u32 %rd6, %r1, 12;
  add.s64 %rd7, %rd1, %rd6;
  st.global.u32 [%rd7], %r3;
  st.global.u32 [%rd7+4], %r4;
  st.global.u32 [%rd7+8], %r11;
  ret;
}
)", 2 * 3, 2);
  ASSERT_EQ(out.size(), 6u);
  for (uint32_t t = 0; t < 2; ++t) {
    EXPECT_EQ(out[t * 3], 100 + t) << "a generic store reached the thread's local memory";
    EXPECT_EQ(out[t * 3 + 1], t) << "a generic load read the thread's local memory";
    EXPECT_EQ(out[t * 3 + 2], 1u | 4u | 16u);
  }
}

// %lanemask_gt/_ge, %dynamic_smem_size, and %total_smem_size (static plus dynamic, in 128-byte units).
TEST(PtxInstructions, SharedMemorySizesAndLaneMasks) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 tile[100];
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  mov.u32 %r2, %lanemask_gt;
  mov.u32 %r3, %lanemask_ge;
  mov.u32 %r4, %dynamic_smem_size;
  mov.u32 %r5, %total_smem_size;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r2, %r3, %r4, %r5};
  ret;
}
)", 32 * 4, 32, 200);
  ASSERT_EQ(out.size(), 128u);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(out[l * 4], l == 31 ? 0u : ~0u << (l + 1)) << "lane " << l;
    EXPECT_EQ(out[l * 4 + 1], ~0u << l);
    EXPECT_EQ(out[l * 4 + 2], 200u);
    EXPECT_EQ(out[l * 4 + 3], 384u);  // 100 static (padded to 112) + 200 dynamic = 312, three 128-byte units
  }
}

// A shared address in a 32-bit register wraps at 2^32 when an offset is added, as nvcc relies on
// when it subtracts before adding a larger displacement (sm_100 code for s[255 - tid]).
TEST(PtxInstructions, ThirtyTwoBitAddressesWrap) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 s[64];
  .reg .b32 %r<8>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, s;
  st.shared.u32 [%r1+8], 77;
  sub.s32 %r2, %r1, 4;
  ld.shared.u32 %r3, [%r2+12];
  st.global.u32 [%rd1], %r3;
  ret;
}
)", 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], 77u);
}

// What nvcc's headers and libdevice put in PTX: `.reg.b16` with no space (cuda_fp16.hpp's inline
// assembly), a function declared before its definition, and griddepcontrol (a no-op here, since
// launches run one after another).
TEST(PtxInstructions, HeaderIdiomsParse) {
  const auto out = run_instructions(R"(.func (.param .b32 r) twice(.param .b32 x);
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  griddepcontrol.wait;
  ld.param.u64 %rd1, [out];
  {.reg.b16 lo, hi;
   mov.b32 {lo, hi}, 0x00050003;
   cvt.u32.u16 %r1, hi;
  }
  {
  .param .b32 a;
  st.param.b32 [a], %r1;
  .param .b32 b;
  call.uni (b), twice, (a);
  ld.param.b32 %r2, [b];
  }
  st.global.u32 [%rd1], %r2;
  griddepcontrol.launch_dependents;
  ret;
}
.func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %v<3>;
  ld.param.b32 %v1, [x];
  add.u32 %v2, %v1, %v1;
  st.param.b32 [r], %v2;
  ret;
}
)", 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], 10u);
}

// fns, bmsk, szext and lop3 (CUB's radix sort uses bmsk) against the PTX ISA's own examples
// and hand-worked cases; prmt's modes against its selector table.
TEST(PtxInstructions, BitFieldInstructions) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  fns.b32 %r1, 0xaaaaaaaa, 3, 1;
  fns.b32 %r2, 0xaaaaaaaa, 3, -1;
  fns.b32 %r3, 0xaaaaaaaa, 2, 1;
  fns.b32 %r4, 0xaaaaaaaa, 2, -1;
  fns.b32 %r5, 0x00000001, 4, -2;
  bmsk.wrap.b32 %r6, 1, 2;
  bmsk.clamp.b32 %r7, 13, 9;
  bmsk.clamp.b32 %r8, 4, 40;
  bmsk.clamp.b32 %r9, 40, 3;
  szext.wrap.u32 %r10, 0xffffffff, 0;
  szext.clamp.s32 %r11, 0x180, 8;
  szext.clamp.s32 %r12, 0x12345678, 40;
  szext.wrap.s32 %r13, 0x80, 40;
  lop3.b32 %r14, 0x0000FF00, 0x00F0F0F0, 0x0CCCCCCC, 0x96;
  lop3.b32 %r15, 0x0000FF00, 0x00F0F0F0, 0x0CCCCCCC, 0xE8;
  mov.b32 %r16, 0x33221100;
  mov.b32 %r17, 0x77665544;
  prmt.b32.f4e %r18, %r16, %r17, 1;
  prmt.b32.b4e %r19, %r16, %r17, 0;
  prmt.b32.rc16 %r20, %r16, %r17, 1;
  prmt.b32.ecl %r21, %r16, %r17, 2;
  prmt.b32.ecr %r22, %r16, %r17, 1;
  prmt.b32.rc8 %r23, %r16, %r17, 7;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
  st.global.v4.u32 [%rd1+32], {%r9, %r10, %r11, %r12};
  st.global.v4.u32 [%rd1+48], {%r13, %r14, %r15, %r18};
  st.global.v4.u32 [%rd1+64], {%r19, %r20, %r21, %r22};
  st.global.u32 [%rd1+80], %r23;
  ret;
}
)", 21);
  ASSERT_EQ(out.size(), 21u);
  EXPECT_EQ(out[0], 3u);  // the PTX ISA's four fns examples
  EXPECT_EQ(out[1], 3u);
  EXPECT_EQ(out[2], 3u);
  EXPECT_EQ(out[3], 1u);
  EXPECT_EQ(out[4], 0xffffffffu);  // one set bit below bit 4, not two
  EXPECT_EQ(out[5], 0x6u);         // the PTX ISA's bmsk example
  EXPECT_EQ(out[6], 0x003FE000u);  // nine bits from bit 13
  EXPECT_EQ(out[7], 0xFFFFFFF0u);  // width clamped to 32: every bit from bit 4
  EXPECT_EQ(out[8], 0u);           // start beyond bit 31
  EXPECT_EQ(out[9], 0u);           // the PTX ISA's szext example
  EXPECT_EQ(out[10], 0xFFFFFF80u); // 0x80 sign-extended from 8 bits
  EXPECT_EQ(out[11], 0x12345678u); // N >= 32 clamped: a itself
  EXPECT_EQ(out[12], 0xFFFFFF80u); // 40 wraps to 8
  EXPECT_EQ(out[13], 0x0000FF00u ^ 0x00F0F0F0u ^ 0x0CCCCCCCu);  // 0x96: a ^ b ^ c
  EXPECT_EQ(out[14], (0x0000FF00u & 0x00F0F0F0u) | (0x0000FF00u & 0x0CCCCCCCu) | (0x00F0F0F0u & 0x0CCCCCCCu));  // 0xE8: majority
  // {b, a} bytes 7..0 = 77 66 55 44 33 22 11 00.
  EXPECT_EQ(out[15], 0x44332211u);  // f4e, selector 1: bytes 4 3 2 1
  EXPECT_EQ(out[16], 0x55667700u);  // b4e, selector 0: bytes 5 6 7 0
  EXPECT_EQ(out[17], 0x33223322u);  // rc16, selector 1: 3 2 3 2
  EXPECT_EQ(out[18], 0x33222222u);  // ecl, selector 2: 3 2 2 2
  EXPECT_EQ(out[19], 0x11111100u);  // ecr, selector 1: 1 1 1 0
  EXPECT_EQ(out[20], 0x33333333u);  // rc8: only the selector's two low bits count (7 -> 3)
}

// atom.cas.b16 (atomicCAS on unsigned short) swaps 16 bits at a 2-byte-aligned address, leaving
// its neighbour alone. (It was taken for a 4-byte access and faulted as misaligned.)
TEST(PtxInstructions, SixteenBitCompareAndSwap) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .reg .b16 %h<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.b16 %h1, 0;
  mov.b16 %h2, 0x1234;
  atom.global.cas.b16 %h3, [%rd1+2], %h1, %h2;
  atom.global.cas.b16 %h3, [%rd1+4], %h2, %h2;
  ret;
}
)", 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], 0x12340000u);  // the high half of word 0 matched 0 and was swapped
  EXPECT_EQ(out[1], 0u);           // word 1's low half held 0, not 0x1234: unchanged
}

// The SIMD video instructions nvcc emits for __vabsdiffu4, __vsadu4 and friends, and the rest of
// the family, in the default form (every byte or half selected).
TEST(PtxInstructions, SimdVideoInstructions) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  vabsdiff4.u32.u32.u32 %r1, 0x10FF0580, 0x2000FF10, 0;
  vabsdiff4.u32.u32.u32.add %r2, 0x10FF0580, 0x2000FF10, 1;
  vabsdiff4.s32.s32.s32 %r3, 0x10FF0580, 0x2000FF10, 0;
  vadd4.s32.s32.s32.sat %r4, 0x0080017F, 0x00FF0101, 0;
  vavrg2.u32.u32.u32 %r5, 0xFFFF0003, 0x00010004, 0;
  vabsdiff2.u32.u32.u32.add %r6, 0x00010010, 0x00040001, 5;
  max.s16x2 %r7, 0xFFFF0005, 0x0001FFF0;
  add.u16x2 %r8, 0xFFFF0005, 0x00020001;
  max.relu.s16x2 %r9, 0xFFFF8000, 0xFFFE8001;
  vset4.s32.s32.lt %r10, 0x7F80FF01, 0x80810001, 0;
  vset2.u32.u32.ge.add %r11, 0xFFFF0001, 0x00010002, 10;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
  st.global.v2.u32 [%rd1+32], {%r9, %r10};
  st.global.u32 [%rd1+40], %r11;
  ret;
}
)", 11);
  ASSERT_EQ(out.size(), 11u);
  EXPECT_EQ(out[0], 0x10FFFA70u);  // bytes |0x80-0x10|, |0x05-0xFF|, |0xFF-0x00|, |0x10-0x20|
  EXPECT_EQ(out[1], 1u + 0x70 + 0xFA + 0xFF + 0x10);
  EXPECT_EQ(out[2], 0x10010690u);  // signed bytes: |-128-16| = 144, |5-(-1)| = 6, |-1-0| = 1, 16
  EXPECT_EQ(out[3], 0x0080027Fu);  // 127+1 clamps to 127, 1+1, -128-1 clamps to -128, 0
  EXPECT_EQ(out[4], 0x80000004u);  // (3+4+1)/2 = 4; (65535+1+1)/2 = 32768
  EXPECT_EQ(out[5], 5u + 15 + 3);
  // Packed 16-bit integers (__vmaxs2 and friends compile to these): each half on its own.
  EXPECT_EQ(out[6], 0x00010005u);  // max(-1, 1) = 1 high; max(5, -16) = 5 low
  EXPECT_EQ(out[7], 0x00010006u);  // 0xFFFF + 2 wraps to 1 in its half, no carry into the other
  EXPECT_EQ(out[8], 0u);           // max(-1, -2) and max(-32768, -32767) are negative: .relu gives 0
  // vset4 signed bytes, low first: 1 < 1 no, -1 < 0 yes, -128 < -127 yes, 127 < -128 no.
  EXPECT_EQ(out[9], 0x00010100u);
  EXPECT_EQ(out[10], 10u + 0 + 1);  // vset2 .add: 1 >= 2 no, 0xFFFF >= 1 yes, added to 10
}

// alloca (variable-length arrays) takes aligned space above the thread's static locals;
// stacksave/stackrestore free it again, so the next alloca returns the same address.
TEST(PtxInstructions, AllocaAndTheStack) {
  const auto out = run_instructions(R"(.visible .entry k(.param .u64 out)
{
  .local .align 4 .b8 fixed[20];
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  st.local.u32 [fixed+16], 7;
  stacksave.u64 %rd2;
  alloca.u64 %rd3, 12, 16;
  alloca.u64 %rd4, 4, 4;
  st.local.u32 [%rd3+8], 42;
  cvta.local.u64 %rd5, %rd4;
  st.u32 [%rd5], 43;
  stackrestore.u64 %rd2;
  alloca.u64 %rd6, 8, 16;
  ld.local.u32 %r1, [%rd6+8];
  ld.local.u32 %r2, [%rd4];
  ld.local.u32 %r3, [fixed+16];
  cvt.u32.u64 %r4, %rd3;
  cvt.u32.u64 %r5, %rd4;
  cvt.u32.u64 %r6, %rd6;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v2.u32 [%rd1+16], {%r5, %r6};
  ret;
}
)", 6);
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0], 42u);  // the same memory, reached through the second allocation of the same place
  EXPECT_EQ(out[1], 43u);  // a generic store through cvta.local reached it
  EXPECT_EQ(out[2], 7u);   // the static locals below the stack are untouched
  EXPECT_EQ(out[3] % 16, 0u);
  EXPECT_GE(out[3], 20u);       // above the 20 bytes of static locals
  EXPECT_EQ(out[4], out[3] + 16);  // after the first: asked for 4-byte alignment, given 8 (max(immAlign, frame_align))
  EXPECT_EQ(out[5], out[3]);       // stackrestore freed both
}

// The race checker orders accesses by mbarrier phases every warp of the CTA arrived in (as
// cuda::barrier's arrive_and_wait does), not only by bar.sync; a warp that did not arrive is not
// ordered, and its writes still race with the other warp's reads.
TEST(PtxInstructions, CtaWideMbarrierPhasesOrderSharedAccesses) {
  auto kernel = [](uint32_t count, bool second_warp_arrives) {
    return std::string(kInstructionHeader) + R"(.visible .entry k(.param .u64 out)
{
  .shared .align 8 .b64 bar;
  .shared .align 4 .b8 s[256];
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  mbarrier.init.shared.b64 [bar], )" + std::to_string(count) + R"(;
SKIP:
  bar.sync 0;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  setp.ge.u32 %p3, %r1, )" + (second_warp_arrives ? "64" : "32") + R"(;
  @%p3 bra WAIT;
  mbarrier.arrive.shared.b64 %rd1, [bar];
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;
  xor.b32 %r5, %r1, 32;
  shl.b32 %r6, %r5, 2;
  add.u32 %r7, %r3, %r6;
  ld.shared.u32 %r5, [%r7];
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r5;
  ret;
}
)";
  };
  test::TempDir dir;
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [64]\nargs:\n"
                                                        "  - {buffer: {name: out, elem: u32, count: 64}}\ndump: [out]\n");
  dir.write("k.ptx", kernel(64, true));
  auto r = test::run_cli({"run", "--arch", "h100", launch, "--checks", "error", "--dump-dir", dir.path(""), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string bytes = test::read_file(dir.path("out.bin"));
  ASSERT_EQ(bytes.size(), 256u);
  for (uint32_t t = 0; t < 64; ++t) {
    uint32_t v;
    std::memcpy(&v, bytes.data() + 4 * t, 4);
    EXPECT_EQ(v, t ^ 32u);
  }
  dir.write("k.ptx", kernel(32, false));  // only warp 0 arrives: warp 1's write is not ordered before warp 0's read
  r = test::run_cli({"run", "--arch", "h100", launch, "--checks", "error", "-q"});
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("race"), std::string::npos) << r.err;
}

// A pointer from the host (cudaMemcpyFromSymbol of a function pointer) to a module that takes no
// function's address: no function the call could reach (indirect_call_test.cpp has the rest).
TEST(PtxInstructions, AnIndirectCallNoFunctionCanAnswerIsRefusedAtTheCall) {
  test::TempDir dir;
  dir.write("k.ptx", std::string(kInstructionHeader) + R"(.visible .entry k(.param .u64 f)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [f];
  proto : .callprototype ()_ ();
  call %rd1, proto;
  ret;
}
)");
  auto r = test::run_cli({"run", "--arch", "h100", dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [1]\nargs:\n  - {scalar: u64, value: 0}\n")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("k.ptx:9:3: indirect call, but no function of this module with its 0 parameter(s) and 0 return value(s)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
