// Hopper's vector atomics (atom/red .v2/.v4/.v8), 128-bit registers (.b128: mov, ld, st, atom.cas
// and atom.exch) and the PTX ISA's flush of subnormals in atom.add.f32 on global memory but not on
// shared: handwritten PTX, one warp, expectations worked out from the PTX ISA by hand. Where the
// order of a warp's atomics decides a result, the test checks what holds in any order. The
// shipped kernel (traces/kernels/wide_atomics.cu) is checked against its reference by
// OnEachConfig/EveryShippedKernel.PassesItsReferenceCheck.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "support/test_support.h"
#include "unit/frontend/ptx_run.h"

namespace warpsim {
namespace {

using test::run_launch;
using test::TempDir;

const char* kAtomicsHeader = ".version 8.3\n.target sm_90\n.address_size 64\n";

// Writes NAME.ptx (kAtomicsHeader + body) and a one-warp launch of its kernel k with `buffers`.
std::string launch_of(const TempDir& dir, const std::string& name, const std::string& body, const std::string& buffers) {
  dir.write(name + ".ptx", kAtomicsHeader + body);
  return dir.write(name + ".launch.yaml", "ptx: " + name + ".ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs:\n" + buffers);
}

float f16_value(uint16_t h) {  // normal values and zero only (the test's values are small integers)
  if ((h & 0x7fff) == 0) return 0.0f;
  const int e = (h >> 10) & 31;
  const float m = 1.0f + static_cast<float>(h & 0x3ff) / 1024.0f;
  return ((h & 0x8000) ? -1.0f : 1.0f) * std::ldexp(m, e - 15);
}

// Lane t adds (t, 1, -t, 2t) to sums[0..3] with atom.add.v4.f32 and keeps what it returned, adds
// (1, t) to sums[4..5] with red.add.v2.f32, takes the max of halves[k] and t - 4k (k = 0..7) with
// atom.max.noftz.v8.f16, and the min of pairs[k] and t - 4k (k = 0..3, as two f16x2) with
// atom.min.noftz.v2.f16x2.
const char* kVectorAtomics = R"(.visible .entry k(.param .u64 sums_param, .param .u64 olds_param, .param .u64 halves_param, .param .u64 pairs_param)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  .reg .f32 %f<16>;
  .reg .b16 %h<20>;
  ld.param.u64 %rd1, [sums_param];
  ld.param.u64 %rd2, [olds_param];
  ld.param.u64 %rd3, [halves_param];
  ld.param.u64 %rd4, [pairs_param];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  mov.f32 %f2, 0f3F800000;
  neg.f32 %f3, %f1;
  add.f32 %f4, %f1, %f1;
  atom.global.add.v4.f32 {%f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4};
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.f32 [%rd6], {%f5, %f6, %f7, %f8};
  red.global.add.v2.f32 [%rd1+16], {%f2, %f1};
  cvt.rn.f16.f32 %h1, %f1;
  add.f32 %f9, %f1, 0fC0800000;
  cvt.rn.f16.f32 %h2, %f9;
  add.f32 %f9, %f1, 0fC1000000;
  cvt.rn.f16.f32 %h3, %f9;
  add.f32 %f9, %f1, 0fC1400000;
  cvt.rn.f16.f32 %h4, %f9;
  add.f32 %f9, %f1, 0fC1800000;
  cvt.rn.f16.f32 %h5, %f9;
  add.f32 %f9, %f1, 0fC1A00000;
  cvt.rn.f16.f32 %h6, %f9;
  add.f32 %f9, %f1, 0fC1C00000;
  cvt.rn.f16.f32 %h7, %f9;
  add.f32 %f9, %f1, 0fC1E00000;
  cvt.rn.f16.f32 %h8, %f9;
  atom.global.max.noftz.v8.f16 {%h11, %h12, %h13, %h14, %h15, %h16, %h17, %h18}, [%rd3], {%h1, %h2, %h3, %h4, %h5, %h6, %h7, %h8};
  mov.b32 %r2, {%h1, %h2};
  mov.b32 %r3, {%h3, %h4};
  atom.global.min.noftz.v2.f16x2 {%r4, %r5}, [%rd4], {%r2, %r3};
  ret;
}
)";

TEST(WideAtomics, VectorAtomicsApplyTheirOperationToEachElement) {
  TempDir dir;
  const std::string launch = launch_of(dir, "v", kVectorAtomics,
                                       "  - {buffer: {name: sums, elem: f32, count: 8}}\n"
                                       "  - {buffer: {name: olds, elem: f32, count: 128}}\n"
                                       "  - {buffer: {name: halves, elem: u16, count: 8, init: {sequence: {start: 0, step: 0}}}}\n"
                                       "  - {buffer: {name: pairs, elem: u16, count: 4}}\n");
  for (const char* arch : {"h100", "b200"}) {
    SCOPED_TRACE(arch);
    const auto r = run_launch(arch, launch);
    const auto sums = test::buffer<float>(*r.workload, "sums");
    // sum of t over 32 lanes = 496.
    EXPECT_EQ(sums, (std::vector<float>{496, 32, -496, 992, 32, 496, 0, 0}));
    // Each lane got the sums of the lanes before it, element by element: element 1 (the count)
    // returns 0..31 in some order, and each lane's element 0 is one of the prefix sums.
    const auto olds = test::buffer<float>(*r.workload, "olds");
    std::vector<float> counts, firsts;
    for (int t = 0; t < 32; ++t) counts.push_back(olds[4 * t + 1]), firsts.push_back(olds[4 * t]);
    std::sort(counts.begin(), counts.end());
    std::sort(firsts.begin(), firsts.end());
    for (int i = 0; i < 32; ++i) {
      EXPECT_EQ(counts[i], static_cast<float>(i));
      EXPECT_EQ(firsts[i], static_cast<float>(i * (i - 1) / 2));  // atomicity per element: 0, 0, 1, 3, 6, ...
    }
    // max over lanes of t - 4k, and of the initial 0: 31 - 4k.
    const auto halves = test::buffer<uint16_t>(*r.workload, "halves");
    for (int k = 0; k < 8; ++k) EXPECT_EQ(f16_value(halves[k]), 31.0f - 4.0f * k) << "half " << k;
    // min over lanes of t - 4k and the initial 0: -4k (0 for k = 0).
    const auto pairs = test::buffer<uint16_t>(*r.workload, "pairs");
    for (int k = 0; k < 4; ++k) EXPECT_EQ(f16_value(pairs[k]), -4.0f * k) << "pair element " << k;
  }
}

// The smallest normal float (0x00800000) plus one ulp, minus the smallest normal, is the smallest
// subnormal (0x00000001); adding that subnormal to 0 is it again. On global memory atom.add.f32
// flushes both to +0 (PTX ISA, "atom"); on shared memory it keeps them.
const char* kSubnormalAdds = R"(.visible .entry k(.param .u64 out_param)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<8>;
  .shared .align 4 .b32 s[2];
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  mov.b32 %f1, 0f00800001;
  mov.b32 %f2, 0f80800000;
  mov.b32 %f3, 0f00000001;
  st.global.f32 [%rd1], %f1;
  st.global.f32 [%rd1+4], 0f00000000;
  st.shared.f32 [s], %f1;
  st.shared.f32 [s+4], 0f00000000;
  red.global.add.f32 [%rd1], %f2;
  atom.global.add.f32 %f4, [%rd1+4], %f3;
  red.shared.add.f32 [s], %f2;
  atom.shared.add.f32 %f5, [s+4], %f3;
  ld.shared.f32 %f6, [s];
  ld.shared.f32 %f7, [s+4];
  st.global.f32 [%rd1+8], %f6;
  st.global.f32 [%rd1+12], %f7;
DONE:
  ret;
}
)";

TEST(WideAtomics, F32AddsFlushSubnormalsInGlobalMemoryOnly) {
  TempDir dir;
  const std::string launch = launch_of(dir, "s", kSubnormalAdds, "  - {buffer: {name: out, elem: u32, count: 4}}\n");
  const auto out = test::buffer<uint32_t>(*run_launch("h100", launch).workload, "out");
  EXPECT_EQ(out, (std::vector<uint32_t>{0, 0, 1, 1}));
}

// Lane t builds q = (0x1111222233334444 + t, ~t) with mov.b128, stores it with st.global.b128 at
// rows[t], loads it back with ld.global.b128 and splits it into four 32-bit words with mov.b128
// (low word first). Then every lane tries atom.cas.b128 on slot, expecting (5, 7) (the high half
// differs: no lane may succeed), then (5, 6), new (t, 100 + t);
// and atom.exch.b128 of (t, 200 + t) on swap.
const char* kWide = R"(.visible .entry k(.param .u64 rows_param, .param .u64 words_param, .param .u64 slot_param, .param .u64 olds_param)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<24>;
  .reg .b128 %q<6>;
  ld.param.u64 %rd1, [rows_param];
  ld.param.u64 %rd2, [words_param];
  ld.param.u64 %rd3, [slot_param];
  ld.param.u64 %rd4, [olds_param];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd5, %r1;
  add.s64 %rd6, %rd5, 1229801703532086340;
  not.b64 %rd7, %rd5;
  mov.b128 %q1, {%rd6, %rd7};
  mul.wide.u32 %rd8, %r1, 16;
  add.s64 %rd9, %rd1, %rd8;
  st.global.b128 [%rd9], %q1;
  ld.global.b128 %q2, [%rd9];
  mov.b128 {%r2, %r3, %r4, %r5}, %q2;
  add.s64 %rd10, %rd2, %rd8;
  st.global.v4.u32 [%rd10], {%r2, %r3, %r4, %r5};
  mov.u64 %rd11, 5;
  mov.u64 %rd12, 6;
  add.s64 %rd13, %rd5, 100;
  mov.b128 %q4, {%rd5, %rd13};
  mov.u64 %rd20, 7;
  mov.b128 %q3, {%rd11, %rd20};
  atom.global.cas.b128 %q5, [%rd3], %q3, %q4;
  mov.b128 %q3, {%rd11, %rd12};
  atom.global.cas.b128 %q5, [%rd3], %q3, %q4;
  mov.b128 {%rd14, %rd15}, %q5;
  add.s64 %rd16, %rd4, %rd8;
  st.global.v2.u64 [%rd16], {%rd14, %rd15};
  add.s64 %rd17, %rd5, 200;
  mov.b128 %q4, {%rd5, %rd17};
  atom.global.exch.b128 %q5, [%rd3+16], %q4;
  ld.global.b128 %q1, [%rd3+16];
  mov.b128 {%rd18, %rd19}, %q5;
  st.global.v2.u64 [%rd16+512], {%rd18, %rd19};
  ret;
}
)";

TEST(WideAtomics, OneTwentyEightBitRegistersMoveLoadStoreAndSwapWhole) {
  TempDir dir;
  const std::string launch = launch_of(dir, "w", kWide,
                                       "  - {buffer: {name: rows, elem: u64, count: 64}}\n"
                                       "  - {buffer: {name: words, elem: u32, count: 128}}\n"
                                       "  - {buffer: {name: slot, elem: u64, count: 4, init: {sequence: {start: 5, step: 1}}}}\n"
                                       "  - {buffer: {name: olds, elem: u64, count: 128}}\n");
  const auto r = run_launch("h100", launch);
  const auto rows = test::buffer<uint64_t>(*r.workload, "rows");
  const auto words = test::buffer<uint32_t>(*r.workload, "words");
  for (uint32_t t = 0; t < 32; ++t) {
    const uint64_t lo = 0x1111222233334444ull + t, hi = ~uint64_t{t};
    EXPECT_EQ(rows[2 * t], lo) << t;
    EXPECT_EQ(rows[2 * t + 1], hi) << t;
    EXPECT_EQ(words[4 * t], static_cast<uint32_t>(lo)) << t;
    EXPECT_EQ(words[4 * t + 1], static_cast<uint32_t>(lo >> 32)) << t;
    EXPECT_EQ(words[4 * t + 2], static_cast<uint32_t>(hi)) << t;
    EXPECT_EQ(words[4 * t + 3], static_cast<uint32_t>(hi >> 32)) << t;
  }
  // slot starts (5, 6, 7, 8): one lane's CAS finds (5, 6) and installs (w, 100 + w); every
  // other lane finds that and fails, whatever the order.
  const auto slot = test::buffer<uint64_t>(*r.workload, "slot");
  const auto olds = test::buffer<uint64_t>(*r.workload, "olds");
  int winners = 0;
  for (uint32_t t = 0; t < 32; ++t) {
    if (olds[2 * t] == 5 && olds[2 * t + 1] == 6) {
      ++winners;
      EXPECT_EQ(slot[0], t);
      EXPECT_EQ(slot[1], 100 + t);
    }
  }
  EXPECT_EQ(winners, 1);
  for (uint32_t t = 0; t < 32; ++t) {
    if (olds[2 * t] == 5) continue;
    EXPECT_EQ(olds[2 * t], slot[0]) << t;
    EXPECT_EQ(olds[2 * t + 1], slot[1]) << t;
  }
  // The exchange chain: the values returned plus the one left are the initial (7, 8) and every
  // lane's (t, 200 + t), each once.
  std::vector<std::pair<uint64_t, uint64_t>> seen = {{slot[2], slot[3]}}, want = {{7, 8}};
  for (uint64_t t = 0; t < 32; ++t) seen.emplace_back(olds[64 + 2 * t], olds[64 + 2 * t + 1]), want.emplace_back(t, 200 + t);
  std::sort(seen.begin(), seen.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(seen, want);
}

// The shipped kernel's CAS loops retry as often as the warps' atomics happen to collide; the
// trace `warpsim trace` writes holds the retries the run took, so it replays to the same
// statistics on the same GPU.
TEST(WideAtomics, CasLoopsReplayFromTheirTraceAsTheyRan) {
  TempDir dir;
  const auto r = test::run_and_replay("h100", test::source_path("traces/kernels/wide_atomics.launch.yaml"), dir);
  EXPECT_EQ(r.direct.rfind("error: ", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
}

// Forms the PTX ISA does not have, each refused at its line; and a vector atomic whose generic
// address is in shared memory, stopped where it runs.
TEST(WideAtomics, FormsOutsideThePtxIsaAreRefusedAtTheirLines) {
  TempDir dir;
  const std::string head = ".visible .entry k(.param .u64 out_param)\n{\n  .reg .b64 %rd<4>;\n  .reg .f32 %f<9>;\n  .reg .b128 %q<3>;\n"
                           "  ld.param.u64 %rd1, [out_param];\n";  // the statement under test is line 10
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"atom.shared.add.v2.f32 {%f1, %f2}, [%rd1], {%f3, %f4};", "vector atomics work on global memory only"},
      {"atom.global.add.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};",
       "vector atomics are add of .v2/.v4 .f32"},
      {"atom.global.min.v2.f32 {%f1, %f2}, [%rd1], {%f3, %f4};", "vector atomics are add of .v2/.v4 .f32"},
      {"atom.global.add.v4.f32 {%f1, %f2}, [%rd1], {%f3, %f4, %f5, %f6};", "operand 1 must be a brace list of 4 registers"},
      {"red.global.add.v2.f32 [%rd1], %f1;", "operand 2 must be a brace list of 2 registers"},
      {"atom.global.add.f32 %f1, [%rd1], {%f3, %f4};", "a brace list needs a vector form"},
      {"atom.global.add.b128 %q1, [%rd1], %q2;", ".b128 atomics are atom.cas and atom.exch"},
      {"atom.global.cas.b128 %q1, [%rd1], %q2, %rd2;", "operand 4 must be a .b128 register"},
      {"ld.global.v2.b128 {%rd1, %rd2}, [%rd1];", ".b128 accesses are scalar"},
      {"st.global.b128 [%rd1], %rd2;", "the data must be a .b128 register"},
      {"add.s64 %rd2, %q1, 1;", "the emulator moves 128-bit registers with mov.b128"},
      {"ld.global.u64 %rd2, [%q1];", "a 128-bit register cannot be an address"},
  };
  int i = 0;
  for (const auto& [statement, why] : cases) {
    SCOPED_TRACE(statement);
    const std::string launch = launch_of(dir, "e" + std::to_string(i++), head + "  " + statement + "\n  ret;\n}\n",
                                         "  - {buffer: {name: out, elem: u64, count: 8}}\n");
    const auto r = test::run_cli({"run", "--arch", "h100", launch, "-q"});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find(".ptx:10:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  }
  const std::string shared = head + "  .shared .align 8 .b8 s[16];\n  mov.u64 %rd2, s;\n  cvta.shared.u64 %rd3, %rd2;\n"
                             "  atom.add.v2.f32 {%f1, %f2}, [%rd3], {%f3, %f4};\n  ret;\n}\n";
  const auto r = test::run_cli({"run", "--arch", "h100", launch_of(dir, "g", shared, "  - {buffer: {name: out, elem: u64, count: 8}}\n"), "-q"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("g.ptx:13:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a vector atomic's address must be in global memory"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
