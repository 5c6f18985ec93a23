// Instruction and memory semantics of the emulator checked against values worked out by hand:
// constant memory, prmt/set/redux, warp collectives over per-lane membermasks, %clock64, 16-bit
// float atomics, movmatrix, and a reference mismatch.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "frontend/ptx/launch.h"
#include "support/test_support.h"
#include "unit/frontend/ptx_run.h"

namespace warpsim {
namespace {

using test::buffer;
using test::Ran;
using test::run_launch;
using test::TempDir;

TEST(PtxEmulator, ConstantMemoryIsReadOnlyAndBoundsChecked) {
  TempDir dir;
  std::string ptx = test::read_file(test::source_path("traces/kernels/ptx/constant_filter.sm_80.ptx"));
  std::string launch = test::read_file(test::source_path("traces/kernels/constant_filter.launch.yaml"));
  launch = launch.substr(0, launch.find("expect:"));
  launch.replace(launch.find("ptx/constant_filter.sm_{sm}.ptx"), 31, dir.path("k.ptx"));
  std::string load = "ld.const.u32 \t%r4, [radius];";
  ASSERT_NE(ptx.find(load), std::string::npos);
  {  // a store to .const is refused when the PTX is lowered, at its line
    std::string bad = ptx;
    bad.replace(bad.find(load), load.size(), "st.const.u32 \t[radius], %r4;");
    dir.write("k.ptx", bad);
    auto r = test::run_cli({"run", "--arch", "a100", dir.write("l.launch.yaml", launch), "-q"});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("k.ptx:45:2: 'st.const.u32' writes to the constant state space"), std::string::npos) << r.err;
  }
  {  // a load past the module's 40 bytes of .const variables is a fault naming the thread
    std::string bad = ptx;
    bad.replace(bad.find(load), load.size(), "ld.const.u32 \t%r4, [radius+64];");
    dir.write("k.ptx", bad);
    auto r = test::run_cli({"run", "--arch", "a100", dir.write("l.launch.yaml", launch), "-q"});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("beyond the module's 40 bytes of .const variables by thread (0,0,0) of CTA"), std::string::npos) << r.err;
  }
}

TEST(PtxEmulator, LaunchFileConstantsReplaceThePtxInitializers) {
  // As cudaMemcpyToSymbol would: radius 1 and unit taps turn the 9-tap Gaussian into a 3-point sum.
  TempDir dir;
  std::string launch = test::shipped_launch("constant_filter.launch.yaml");
  launch = launch.substr(0, launch.find("expect:"));
  std::string with = launch + "constants:\n  taps: {elem: f32, count: 9, init: {sequence: {start: 1, step: 0}}}\n"
                                "  radius: {elem: s32, count: 1, init: {sequence: {start: 1, step: 0}}}\n";
  Ran r = run_launch("h100", dir.write("c.launch.yaml", with));
  auto in = buffer<float>(*r.workload, "in"), out = buffer<float>(*r.workload, "out");
  for (int i = 0; i < 16384; ++i) {
    float acc = 0.0f;
    for (int k = -1; k <= 1; ++k) acc += in[std::min(std::max(i + k, 0), 16383)];
    ASSERT_EQ(out[i], acc) << i;
  }
  std::string unknown = launch + "constants:\n  weights: {elem: f32, count: 9}\n";
  auto e = test::run_cli({"run", "--arch", "h100", dir.write("u.launch.yaml", unknown), "-q"});
  EXPECT_EQ(e.exit_code, 3);
  EXPECT_NE(e.err.find("u.launch.yaml:14:3: no __constant__ variable 'weights'"), std::string::npos) << e.err;
  EXPECT_NE(e.err.find("its .const variables are: radius, taps"), std::string::npos) << e.err;
  std::string big = launch + "constants:\n  taps: {elem: f32, count: 10}\n";
  e = test::run_cli({"run", "--arch", "h100", dir.write("b.launch.yaml", big), "-q"});
  EXPECT_NE(e.err.find("'taps' has 36 bytes; the launch file gives 40"), std::string::npos) << e.err;
}

// prmt, set and redux.sync against values worked out by hand from the PTX ISA's definitions.
TEST(PtxEmulator, PrmtSetAndReduxFollowThePtxIsa) {
  TempDir dir;
  dir.write("k.ptx", R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry bits(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<20>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  prmt.b32 %r2, 0x83020100, 0x07060504, 0x0123;
  st.global.u32 [%rd3], %r2;
  prmt.b32 %r3, 0x83020100, 0x07060504, 0xBB74;
  st.global.u32 [%rd3+4], %r3;
  set.lt.u32.s32 %r4, %r1, 16;
  st.global.u32 [%rd3+8], %r4;
  cvt.rn.f32.u32 %f1, %r1;
  set.ge.f32.f32 %r5, %f1, 0f41800000;
  st.global.u32 [%rd3+12], %r5;
  redux.sync.add.u32 %r6, %r1, -1;
  st.global.u32 [%rd3+16], %r6;
  sub.s32 %r7, %r1, 16;
  redux.sync.min.s32 %r8, %r7, -1;
  st.global.u32 [%rd3+20], %r8;
  redux.sync.xor.b32 %r9, %r1, -1;
  st.global.u32 [%rd3+24], %r9;
  and.b32 %r10, %r1, 1;
  setp.ne.u32 %p1, %r10, 0;
  @%p1 bra DONE;
  redux.sync.add.u32 %r11, %r1, 0x55555555;
  st.global.u32 [%rd3+28], %r11;
DONE:
  ret;
}
)");
  std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: bits\ngrid: [1, 1, 1]\nblock: [32, 1, 1]\n"
                                                   "args:\n  - {buffer: {name: out, elem: u32, count: 256, init: zeros}}\n");
  Ran r = run_launch("a100", launch);
  auto out = buffer<uint32_t>(*r.workload, "out");
  for (uint32_t t = 0; t < 32; ++t) {
    SCOPED_TRACE(t);
    const uint32_t* v = &out[t * 8];
    // Bytes of {b, a}: 0x07060504'83020100. Selector 0x0123 picks bytes 3, 2, 1, 0 into bytes 0..3.
    EXPECT_EQ(v[0], 0x00010283u);
    // 0xBB74: byte 4 (0x04), byte 7 (0x07), then twice the sign of byte 3 (0x83, negative): 0xff.
    EXPECT_EQ(v[1], 0xffff0704u);
    EXPECT_EQ(v[2], t < 16 ? 0xffffffffu : 0u);                      // set.lt.u32.s32: all ones when true
    EXPECT_EQ(v[3], t >= 16 ? std::bit_cast<uint32_t>(1.0f) : 0u);  // set.ge.f32.f32: 1.0f when true
    EXPECT_EQ(v[4], 496u);                                          // 0 + 1 + ... + 31
    EXPECT_EQ(v[5], static_cast<uint32_t>(-16));                    // min of tid - 16, signed
    EXPECT_EQ(v[6], 0u);                                            // 0 ^ 1 ^ ... ^ 31
    EXPECT_EQ(v[7], t % 2 == 0 ? 240u : 0u);                        // even lanes only: 0 + 2 + ... + 30
  }
}

// Every setp comparison (PTX ISA "setp"): signed and unsigned orders of -1 and 1 (0xffffffff is
// the larger unsigned value), ordered comparisons false and unordered ones (the `u` forms) true
// when an operand is NaN, num and nan saying which.
TEST(PtxEmulator, EveryComparisonFollowsThePtxIsa) {
  struct Case {
    const char* setp;  // cmp.type
    const char* a;
    const char* b;
    uint32_t want;
  };
  const Case cases[] = {
      {"eq.s32", "%r1", "%r2", 0},   {"ne.s32", "%r1", "%r2", 1},   {"lt.s32", "%r1", "%r2", 1},   {"le.s32", "%r1", "%r2", 1},
      {"gt.s32", "%r1", "%r2", 0},   {"ge.s32", "%r1", "%r2", 0},   {"lt.u32", "%r1", "%r2", 0},   {"lo.u32", "%r1", "%r2", 0},
      {"ls.u32", "%r1", "%r2", 0},   {"hi.u32", "%r1", "%r2", 1},   {"hs.u32", "%r1", "%r2", 1},   {"ls.u32", "%r2", "%r2", 1},
      {"eq.f32", "%f1", "%f2", 0},   {"ne.f32", "%f1", "%f2", 0},   {"lt.f32", "%f1", "%f2", 0},   {"ge.f32", "%f1", "%f2", 0},
      {"equ.f32", "%f1", "%f2", 1},  {"neu.f32", "%f1", "%f2", 1},  {"ltu.f32", "%f1", "%f2", 1},  {"leu.f32", "%f1", "%f2", 1},
      {"gtu.f32", "%f1", "%f2", 1},  {"geu.f32", "%f1", "%f2", 1},  {"num.f32", "%f1", "%f2", 0},  {"nan.f32", "%f1", "%f2", 1},
      {"lt.f32", "%f2", "%f3", 1},   {"le.f32", "%f2", "%f3", 1},   {"gt.f32", "%f2", "%f3", 0},   {"ne.f32", "%f2", "%f3", 1},
      {"equ.f32", "%f2", "%f3", 0},  {"gtu.f32", "%f2", "%f3", 0},  {"num.f32", "%f2", "%f3", 1},  {"nan.f32", "%f2", "%f3", 0}};
  std::string body;
  for (size_t i = 0; i < std::size(cases); ++i) {
    body += std::string("  setp.") + cases[i].setp + " %p1, " + cases[i].a + ", " + cases[i].b + ";\n  selp.u32 %r3, 1, 0, %p1;\n" +
            "  st.global.u32 [%rd1+" + std::to_string(4 * i) + "], %r3;\n";
  }
  const auto out = test::run_words("h100", std::string(".version 8.0\n.target sm_90\n.address_size 64\n") + R"(.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, -1;
  mov.u32 %r2, 1;
  mov.b32 %f1, 0x7fc00000;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0f40000000;
)" + body + "  ret;\n}\n",
                                   static_cast<uint32_t>(std::size(cases)));
  ASSERT_EQ(out.size(), std::size(cases));
  for (size_t i = 0; i < std::size(cases); ++i) EXPECT_EQ(out[i], cases[i].want) << "setp." << cases[i].setp << " " << cases[i].a << ", " << cases[i].b;
}

// Half-precision comparisons (PTX ISA, "Half Precision Comparison Instructions"): bf16 compares
// values, not bits; a packed f16x2/bf16x2 setp sets p from the low halves and q from the high
// halves (not q = !p), each combined with c on its own; set packs one result per half, 1.0 of
// the destination's format or 0xffff. Operands (lo, hi): a = (-1, 1), b = (1, -1), n = (-1, NaN),
// m = (1, NaN), s = two f16 subnormals 0x0001, z = 0.
TEST(PtxEmulator, HalfPrecisionComparisonsFollowThePtxIsa) {
  struct Case {
    const char* code;  // leaves its result in %r1
    uint32_t want;
  };
  const std::string pq = "selp.u32 %r1, 1, 0, %p1;\n  selp.u32 %r2, 2, 0, %p2;\n  add.u32 %r1, %r1, %r2;";
  const Case cases[] = {
      {"setp.lt.bf16 %p1, %hb1, %hb2;\n  selp.u32 %r1, 1, 0, %p1;", 1},  // -1 < 1 (as bits 0xbf80 > 0x3f80)
      {"setp.gt.bf16 %p1, %hb1, %hb2;\n  selp.u32 %r1, 1, 0, %p1;", 0},
      {"setp.lt.f16 %p1, %hf1, %hf2;\n  selp.u32 %r1, 1, 0, %p1;", 1},
      {"setp.lt.f16x2 %p1|%p2, %a, %b;\n  ", 1},
      {"setp.gt.f16x2 %p1|%p2, %a, %b;\n  ", 2},
      {"setp.lt.bf16x2 %p1|%p2, %ab, %bb;\n  ", 1},
      {"setp.ge.bf16x2 %p1|%p2, %ab, %bb;\n  ", 2},
      {"setp.ltu.f16x2 %p1|%p2, %n, %m;\n  ", 3},
      {"setp.lt.f16x2 %p1|%p2, %n, %m;\n  ", 1},
      {"setp.lt.xor.f16x2 %p1|%p2, %n, %m, %pt;\n  ", 2},  // (1 xor 1, 0 xor 1)
      {"setp.le.xor.f16x2 %p1|%p2, %a, %a, %pt;\n  ", 0},  // both true, each xor true
      {"setp.eq.ftz.f16x2 %p1|%p2, %s, %z;\n  ", 3},
      {"setp.eq.f16x2 %p1|%p2, %s, %z;\n  ", 0},
      {"set.lt.u32.f16x2 %r1, %a, %b;", 0x0000ffffu},
      {"set.gt.s32.bf16x2 %r1, %ab, %bb;", 0xffff0000u},
      {"set.lt.f16x2.f16x2 %r1, %a, %b;", 0x00003c00u},
      {"set.gt.bf16x2.bf16x2 %r1, %ab, %bb;", 0x3f800000u},
      {"set.ltu.and.f16x2.f16x2 %r1, %n, %m, %pt;", 0x3c003c00u},
      {"set.lt.u32.bf16 %r1, %hb1, %hb2;", 0xffffffffu},
      {"set.lt.u16.f16 %hr, %hf1, %hf2;\n  cvt.u32.u16 %r1, %hr;", 0xffffu},
      {"set.lt.f16.f16 %hr, %hf1, %hf2;\n  cvt.u32.u16 %r1, %hr;", 0x3c00u},
      {"set.gt.bf16.bf16 %hr, %hb2, %hb1;\n  cvt.u32.u16 %r1, %hr;", 0x3f80u},
      {"set.gt.bf16.bf16 %hr, %hb1, %hb2;\n  cvt.u32.u16 %r1, %hr;", 0u}};
  std::string body;
  for (size_t i = 0; i < std::size(cases); ++i) {
    std::string code = cases[i].code;
    if (code.ends_with("\n  ")) code += pq;
    body += "  " + code + "\n  st.global.u32 [%rd1+" + std::to_string(4 * i) + "], %r1;\n";
  }
  const auto out = test::run_words("h100", std::string(".version 8.0\n.target sm_90\n.address_size 64\n") + R"(.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>, %pt;
  .reg .b32 %r<3>, %a, %b, %ab, %bb, %n, %m, %s, %z;
  .reg .b16 %hb<3>, %hf<3>, %hr;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  setp.eq.u32 %pt, 0, 0;
  mov.b32 %a, 0x3c00bc00;
  mov.b32 %b, 0xbc003c00;
  mov.b32 %ab, 0x3f80bf80;
  mov.b32 %bb, 0xbf803f80;
  mov.b32 %n, 0x7e00bc00;
  mov.b32 %m, 0x7e003c00;
  mov.b32 %s, 0x00010001;
  mov.b32 %z, 0;
  mov.b16 %hb1, 0xbf80;
  mov.b16 %hb2, 0x3f80;
  mov.b16 %hf1, 0xbc00;
  mov.b16 %hf2, 0x3c00;
)" + body + "  ret;\n}\n",
                                   static_cast<uint32_t>(std::size(cases)));
  ASSERT_EQ(out.size(), std::size(cases));
  for (size_t i = 0; i < std::size(cases); ++i) EXPECT_EQ(out[i], cases[i].want) << cases[i].code;
}

// fma.rn on f16 and bf16 rounds a * b + c once (PTX ISA). a * b = 1.00195 * 1.25 (f16) and
// 1.0156 * 1.25 (bf16) fall exactly halfway between two values of the format, so a c of one
// smallest subnormal, however tiny, decides the direction: up for +c, down for -c, to even for
// 0. Rounding the sum to float first loses c and rounds the tie to even both times.
TEST(PtxEmulator, HalfPrecisionFmaRoundsOnce) {
  struct Case {
    const char* fma;
    const char* a;
    const char* b;
    const char* c;
    uint32_t want;
  };
  const Case cases[] = {{"f16", "0x3c02", "0x3d00", "0x0001", 0x3d03},  // 1282.5 / 1024 + 2^-24: up
                        {"f16", "0x3c02", "0x3d00", "0x8001", 0x3d02},
                        {"f16", "0x3c02", "0x3d00", "0x0000", 0x3d02},  // the tie alone: to even (1282)
                        {"bf16", "0x3f82", "0x3fa0", "0x0001", 0x3fa3},  // 162.5 / 128 + 2^-133: up
                        {"bf16", "0x3f82", "0x3fa0", "0x8001", 0x3fa2},
                        {"f16x2", "0x3c023c02", "0x3d003d00", "0x80010001", 0x3d023d03},
                        {"bf16x2", "0x3f823f82", "0x3fa03fa0", "0x00018001", 0x3fa33fa2}};
  std::string body;
  for (size_t i = 0; i < std::size(cases); ++i) {
    const bool packed = std::string(cases[i].fma).ends_with("x2");
    const std::string r = packed ? "%r" : "%h";
    body += "  mov.b" + std::string(packed ? "32 " : "16 ") + r + "1, " + cases[i].a + ";\n  mov.b" + (packed ? "32 " : "16 ") + r + "2, " +
            cases[i].b + ";\n  mov.b" + (packed ? "32 " : "16 ") + r + "3, " + cases[i].c + ";\n  fma.rn." + cases[i].fma + " " + r + "4, " + r +
            "1, " + r + "2, " + r + "3;\n" + (packed ? "" : "  cvt.u32.u16 %r4, %h4;\n") + "  st.global.u32 [%rd1+" + std::to_string(4 * i) +
            "], %r4;\n";
  }
  const auto out = test::run_words("h100", std::string(".version 8.0\n.target sm_90\n.address_size 64\n") + R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<5>;
  .reg .b16 %h<5>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
)" + body + "  ret;\n}\n",
                                   static_cast<uint32_t>(std::size(cases)));
  ASSERT_EQ(out.size(), std::size(cases));
  for (size_t i = 0; i < std::size(cases); ++i) {
    EXPECT_EQ(out[i], cases[i].want) << "fma.rn." << cases[i].fma << " " << cases[i].a << ", " << cases[i].b << ", " << cases[i].c << std::hex << ": got 0x" << out[i];
  }
}

TEST(PtxEmulator, AMismatchedReferenceFailsTheCheckWithExitCode5) {
  TempDir dir;
  std::string ref(65536 * 4, '\0');  // all zeros: wrong except where a + b = 0
  dir.write("zeros.bin", ref);
  std::string launch = test::shipped_launch("vector_add.launch.yaml");
  const std::string c_ref = test::source_path("traces/kernels/ref/vector_add_c.bin");
  launch.replace(launch.rfind(c_ref), c_ref.size(), dir.path("zeros.bin"));
  auto r = test::run_cli({"run", "--arch", "a100", dir.write("v.launch.yaml", launch), "--json", dir.path("o.json")});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.out.find("check: FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("c[1] = 1000.250000, expected 0.000000"), std::string::npos) << r.out;
  EXPECT_NE(test::read_file(dir.path("o.json")).find("\"passed\": false"), std::string::npos);
}


using test::run_and_dump;

// %clock64 in the emulator counts the warp's executed instructions: a loop waiting for it to
// advance by 100 ends, after 100 to 103 of them (the loop body is four instructions).
// Cooperative groups' tiled_partition<16> gives each half-warp its own membermask (0x0000ffff,
// 0xffff0000) in one instruction the whole warp runs: each half votes, matches, reduces and
// elects among its own 16 lanes (what nvcc emits for cg::reduce(tile, ...) and tile.any()).
TEST(PtxEmulator, WarpCollectivesCombineEachLanesOwnMembermask) {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .pred %p<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  and.b32 %r2, %r1, 16;
  mov.u32 %r3, 65535;
  shl.b32 %r4, %r3, %r2;
  setp.eq.u32 %p1, %r1, 20;
  vote.sync.any.pred %p2, %p1, %r4;
  selp.u32 %r5, 1, 0, %p2;
  vote.sync.ballot.b32 %r6, %p1, %r4;
  setp.lt.u32 %p3, %r1, 16;
  vote.sync.all.pred %p2, %p3, %r4;
  selp.u32 %r7, 1, 0, %p2;
  redux.sync.max.u32 %r8, %r1, %r4;
  redux.sync.add.u32 %r9, %r1, %r4;
  and.b32 %r10, %r1, 3;
  match.any.sync.b32 %r11, %r10, %r4;
  match.all.sync.b32 %r12|%p2, %r2, %r4;
  elect.sync %r13|%p3, %r4;
  selp.u32 %r14, 1, 0, %p3;
  add.u32 %r13, %r13, %r14;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r5, %r6, %r7, %r8};
  st.global.v4.u32 [%rd3+16], {%r9, %r11, %r12, %r13};
  ret;
}
)";
  const auto out = test::run_words("h100", ptx, 32 * 8, 32);
  for (uint32_t l = 0; l < 32; ++l) {
    SCOPED_TRACE("lane " + std::to_string(l));
    const bool high = l >= 16;
    const uint32_t base = high ? 16 : 0, mask = high ? 0xffff0000u : 0x0000ffffu;
    const uint32_t* r = &out[l * 8];
    EXPECT_EQ(r[0], high ? 1u : 0u);                      // any: only lane 20 votes, in the high half
    EXPECT_EQ(r[1], high ? 1u << 20 : 0u);                // ballot
    EXPECT_EQ(r[2], high ? 0u : 1u);                      // all: every low lane is below 16
    EXPECT_EQ(r[3], base + 15);                           // max of the half's lane ids
    EXPECT_EQ(r[4], 16 * base + 120);                     // their sum: 0 + ... + 15 = 120, 16 + ... + 31 = 376
    EXPECT_EQ(r[5], (0x1111u << (l & 3)) << base);        // lanes of the half with the same l & 3
    EXPECT_EQ(r[6], mask);                                // match.all: the half agrees on its base
    EXPECT_EQ(r[7], base + (l == base ? 1u : 0u));        // elect: the half's first lane, and it alone is told so
  }
}

// Signed division's one overflow (the most negative value by -1) wraps as two's complement does
// (remainder 0) where the host's division would trap (SIGFPE, which once killed warpsim); abs,
// neg and sad of the most negative value wrap too. Division by zero, machine-specific in the PTX
// ISA, gives all ones (remainder: the dividend).
TEST(PtxEmulator, IntegerOverflowsWrapAndNeverTrapTheHost) {
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, -2147483648;
  mov.u32 %r2, -1;
  mov.u32 %r3, 0;
  div.s32 %r4, %r1, %r2;
  rem.s32 %r5, %r1, %r2;
  div.u32 %r6, %r1, %r3;
  rem.s32 %r7, %r1, %r3;
  mov.u64 %rd2, -9223372036854775808;
  mov.u64 %rd3, -1;
  div.s64 %rd4, %rd2, %rd3;
  rem.s64 %rd5, %rd2, %rd3;
  abs.s64 %rd6, %rd2;
  neg.s64 %rd7, %rd2;
  mov.u64 %rd8, 9223372036854775807;
  sad.s64 %rd9, %rd2, %rd8, 0;
  st.global.v4.u32 [%rd1], {%r4, %r5, %r6, %r7};
  st.global.v2.u64 [%rd1+16], {%rd4, %rd5};
  st.global.v2.u64 [%rd1+32], {%rd6, %rd7};
  st.global.u64 [%rd1+48], %rd9;
  ret;
}
)";
  const auto w = test::run_words("h100", ptx, 14);
  EXPECT_EQ(w[0], 0x80000000u);  // INT_MIN / -1
  EXPECT_EQ(w[1], 0u);
  EXPECT_EQ(w[2], 0xffffffffu);  // x / 0
  EXPECT_EQ(w[3], 0x80000000u);  // x % 0: x
  auto word64 = [&](size_t i) { return uint64_t{w[i]} | uint64_t{w[i + 1]} << 32; };
  EXPECT_EQ(word64(4), 0x8000000000000000ull);   // INT64_MIN / -1
  EXPECT_EQ(word64(6), 0u);
  EXPECT_EQ(word64(8), 0x8000000000000000ull);   // |INT64_MIN|
  EXPECT_EQ(word64(10), 0x8000000000000000ull);  // -INT64_MIN
  EXPECT_EQ(word64(12), ~uint64_t{0});           // |INT64_MIN - INT64_MAX| = 2^64 - 1
}

TEST(PtxEmulator, ClockAdvancesWithTheWarpsInstructions) {
  const std::string out = run_and_dump("a100", R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry spin(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b64 %rd<8>;
  mov.u64 %rd1, %clock64;
LOOP:
  mov.u64 %rd2, %clock64;
  sub.s64 %rd3, %rd2, %rd1;
  setp.lt.u64 %p1, %rd3, 100;
  @%p1 bra LOOP;
  ld.param.u64 %rd4, [out];
  st.global.u64 [%rd4], %rd3;
  ret;
}
)",
                                       "ptx: k.ptx\nkernel: spin\ngrid: [1]\nblock: [32]\nargs:\n"
                                       "  - {buffer: {name: out, elem: u64, count: 1}}\ndump: [out]\n",
                                       "out");
  ASSERT_EQ(out.size(), 8u);
  uint64_t elapsed;
  std::memcpy(&elapsed, out.data(), 8);
  EXPECT_GE(elapsed, 100u);
  EXPECT_LT(elapsed, 104u);
}


// 16-bit float atomics (atom.add.noftz.bf16, .f16x2) change only their own 16 or 32 bits and add
// as floats: bf16 1.0 + 1.0 = 2.0 (0x4000), and f16 0x3f80 (1.875) + 1.0 = 2.875 (0x41c0) in each
// half. (They were added as integers, over 32 bits.)
TEST(PtxEmulator, SixteenBitFloatAtomicsAddAsFloatsInTheirOwnBits) {
  const std::string out = run_and_dump("h100", R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b16 %h<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.b16 %h1, 0x3F80;
  atom.global.add.noftz.bf16 %h2, [%rd1], %h1;
  mov.b32 %r1, 0x3C003C00;
  atom.global.add.noftz.f16x2 %r2, [%rd1+4], %r1;
  ret;
}
)",
                                       "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [1]\nargs:\n"
                                       "  - {buffer: {name: p, elem: u16, count: 4, init: {sequence: {start: 16256, step: 0}}}}\ndump: [p]\n",
                                       "p");
  ASSERT_EQ(out.size(), 8u);
  uint16_t v[4];
  std::memcpy(v, out.data(), 8);
  EXPECT_EQ(v[0], 0x4000);
  EXPECT_EQ(v[1], 0x3f80);  // untouched
  EXPECT_EQ(v[2], 0x41c0);
  EXPECT_EQ(v[3], 0x41c0);
}

}  // namespace
}  // namespace warpsim

namespace warpsim {
namespace {

// movmatrix.sync.aligned.m8n8.trans.b16: lane l holds elements 2l and 2l + 1 of an 8x8 matrix
// (row l/4, columns 2(l%4) and 2(l%4)+1), each element's value its own index 8 row + col; after
// the transpose lane l holds, at the same places, elements (2(l%4), l/4) and (2(l%4)+1, l/4).
TEST(PtxEmulator, MovmatrixTransposesTheWarpsEightByEightTile) {
  TempDir dir;
  dir.write("m.ptx", R"(.version 7.8
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out_param)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %laneid;
  shl.b32 %r2, %r1, 1;
  add.u32 %r3, %r2, 1;
  shl.b32 %r3, %r3, 16;
  or.b32 %r4, %r3, %r2;
  movmatrix.sync.aligned.m8n8.trans.b16 %r5, %r4;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)");
  const std::string launch = dir.write("m.launch.yaml", "ptx: m.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs:\n"
                                                          "  - {buffer: {name: out, elem: u32, count: 32}}\n");
  for (const char* arch : {"v100", "h100"}) {
    const auto out = buffer<uint32_t>(*run_launch(arch, launch).workload, "out");
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t r = l / 4, c = 2 * (l % 4);
      EXPECT_EQ(out[l], (c * 8 + r) | ((c + 1) * 8 + r) << 16) << arch << " lane " << l;
    }
  }
  // Only the m8n8 .trans .b16 form exists.
  std::string text = test::read_file(dir.path("m.ptx"));
  text.replace(text.find("m8n8.trans.b16"), 14, "m8n8.b16");
  dir.write("m.ptx", text);
  const auto bad = test::run_cli({"run", "--arch", "h100", launch, "-q"});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("m.ptx:14:3: expected movmatrix.sync.aligned.m8n8.trans.b16"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace warpsim
