// mma.sync's forms and fragment layouts (frontend/ptx/mma_sync_form.h). The layouts are checked
// against the PTX ISA's own formulas, written here as the ISA states them for each shape (not as
// mma_sync_form.cpp folds them into one pattern per element width), and every form's placement must
// cover each matrix element exactly once. The arithmetic is checked end to end by the launch files
// of traces/kernels/mma_shapes.cu (plain matrix products as references).
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "frontend/ptx/launch.h"
#include "frontend/ptx/mma_sync_form.h"
#include "unit/frontend/mma_form_decode.h"
#include "unit/frontend/ptx_run.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using ptx::MatrixPlace;
using ptx::MmaSyncForm;

MmaSyncForm form(const std::string& opcode) {
  MmaSyncForm f;
  EXPECT_EQ(test::decode_mma(opcode, f), "") << opcode;
  return f;
}

std::pair<uint32_t, uint32_t> rc(MatrixPlace p) { return {p.row, p.col}; }

TEST(MmaSyncLayout, FollowsThePtxIsaFormulas) {
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t g = lane >> 2, t = lane % 4;
    // m16n8k16 .f16: row = g for a0, a1, a4, a5, else g + 8; col = 2t + (i & 1), + 8 for i >= 4.
    const MmaSyncForm h = form("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
    for (uint32_t i = 0; i < 8; ++i) {
      const uint32_t row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8, col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
      EXPECT_EQ(rc(ptx::mma_a_place(h, lane, i)), std::make_pair(row, col)) << lane << " " << i;
    }
    // m16n8k8 .tf32: a0/a2 row g, a1/a3 g + 8; a0/a1 col t, a2/a3 t + 4. m16n8k8 .f64: the same.
    for (const char* op : {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64"}) {
      const MmaSyncForm f = form(op);
      for (uint32_t i = 0; i < 4; ++i)
        EXPECT_EQ(rc(ptx::mma_a_place(f, lane, i)), std::make_pair(i % 2 == 0 ? g : g + 8, i < 2 ? t : t + 4)) << op;
    }
    // m16n8k16 .f64: row = g for even i, else g + 8; col = 2i + t for even i, else 2i - 2 + t.
    const MmaSyncForm d16 = form("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64");
    for (uint32_t i = 0; i < 8; ++i)
      EXPECT_EQ(rc(ptx::mma_a_place(d16, lane, i)), std::make_pair(i % 2 == 0 ? g : g + 8, i % 2 == 0 ? 2 * i + t : 2 * i - 2 + t));
    // m8n8k4 .f64: A at (g, t); B at (t, g); C at (g, 2t + i).
    const MmaSyncForm d = form("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64");
    EXPECT_EQ(rc(ptx::mma_a_place(d, lane, 0)), std::make_pair(g, t));
    EXPECT_EQ(rc(ptx::mma_b_place(d, lane, 0)), std::make_pair(t, g));
    for (uint32_t i = 0; i < 2; ++i) EXPECT_EQ(rc(ptx::mma_c_place(d, d.c, lane, i)), std::make_pair(g, 2 * t + i));
    // m8n8k16 .s8: A at (g, 4t + i), B at (4t + i, g).
    const MmaSyncForm s = form("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32");
    for (uint32_t i = 0; i < 4; ++i) {
      EXPECT_EQ(rc(ptx::mma_a_place(s, lane, i)), std::make_pair(g, 4 * t + i));
      EXPECT_EQ(rc(ptx::mma_b_place(s, lane, i)), std::make_pair(4 * t + i, g));
    }
    // m16n8k16 .s8: row = g for i < 4, else g + 8; col = 4t + (i & 3).
    const MmaSyncForm s16 = form("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32");
    for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(rc(ptx::mma_a_place(s16, lane, i)), std::make_pair(i < 4 ? g : g + 8, 4 * t + (i & 3)));
    // m16n8k64 .s4: row = g for i < 8 or 16 <= i < 24, else g + 8; col = 8t + (i & 7), + 32 for i >= 16.
    // B: row = 8t + (i & 7) for i < 8 (+ 32 for the next eight), col = g. m8n8k32 .s4: A at (g, 8t + i), B at (8t + i, g).
    const MmaSyncForm q = form("mma.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32");
    for (uint32_t i = 0; i < 32; ++i)
      EXPECT_EQ(rc(ptx::mma_a_place(q, lane, i)), std::make_pair(i < 8 || (i >= 16 && i < 24) ? g : g + 8, 8 * t + (i & 7) + (i >= 16 ? 32 : 0)));
    for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(rc(ptx::mma_b_place(q, lane, i)), std::make_pair(8 * t + (i & 7), g));
    const MmaSyncForm q8 = form("mma.sync.aligned.m8n8k32.row.col.s32.u4.s4.s32");
    for (uint32_t i = 0; i < 8; ++i) {
      EXPECT_EQ(rc(ptx::mma_a_place(q8, lane, i)), std::make_pair(g, 8 * t + i));
      EXPECT_EQ(rc(ptx::mma_b_place(q8, lane, i)), std::make_pair(8 * t + i, g));
    }
    // m8n8k4 .f16 (Volta): four MMAs, lanes 4c..4c+3 and 16+4c..16+4c+3 computing the c-th; as
    // the ISA writes it, within each (placed here at rows and columns 8c): A row-major row =
    // laneid % 4 (+ 4 from lane 16), col = i; column-major row = i % 4 (+ 4), col = laneid % 4;
    // B row-major row = laneid % 4, col = i (+ 4); column-major row = i, col = laneid % 4 (+ 4);
    // C f16 row = laneid % 4 (+ 4), col = i; C f32 row = X (+ 4) with X = (laneid & 1) + (i & 2),
    // col = (i & 4) + (laneid & 2) + (i & 1).
    const uint32_t c8 = 8 * ((lane % 16) / 4), hi = lane < 16 ? 0 : 4;
    const MmaSyncForm v = form("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f16"), vt = form("mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f32");
    for (uint32_t i = 0; i < 4; ++i) {
      EXPECT_EQ(rc(ptx::mma_a_place(v, lane, i)), std::make_pair(c8 + lane % 4 + hi, i));
      EXPECT_EQ(rc(ptx::mma_a_place(vt, lane, i)), std::make_pair(c8 + i % 4 + hi, lane % 4));
      EXPECT_EQ(rc(ptx::mma_b_place(vt, lane, i)), std::make_pair(lane % 4, c8 + i + hi));
      EXPECT_EQ(rc(ptx::mma_b_place(v, lane, i)), std::make_pair(i, c8 + lane % 4 + hi));
    }
    for (uint32_t i = 0; i < 8; ++i) {
      EXPECT_EQ(rc(ptx::mma_c_place(v, v.c, lane, i)), std::make_pair(c8 + lane % 4 + hi, c8 + i));
      EXPECT_EQ(rc(ptx::mma_c_place(v, v.d, lane, i)), std::make_pair(c8 + (lane & 1) + (i & 2) + hi, c8 + (i & 4) + (lane & 2) + (i & 1)));
    }
    // m16n8k32 .s8: row = g for a0..a3 and a8..a11, else g + 8; col = 4t + (i & 3), + 16 for i >= 8.
    const MmaSyncForm s32 = form("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
    for (uint32_t i = 0; i < 16; ++i)
      EXPECT_EQ(rc(ptx::mma_a_place(s32, lane, i)), std::make_pair(i % 8 < 4 ? g : g + 8, 4 * t + (i & 3) + (i >= 8 ? 16 : 0)));
  }
}

TEST(MmaSyncLayout, EveryFormPlacesEachElementOnce) {
  for (const char* op : {"mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                         "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                         "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e5m2.f32", "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16",
                         "mma.sync.aligned.m8n8k16.row.col.s32.u8.s8.s32", "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.u8.s32",
                         "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "mma.sync.aligned.m8n8k4.row.col.rn.f64.f64.f64.f64",
                         "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64", "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64",
                         "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32", "mma.sync.aligned.m16n8k32.row.col.s32.u4.s4.s32",
                         "mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32", "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32",
                         "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f32", "mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f16",
                         "mma.sync.aligned.m8n8k4.row.row.f16.f16.f16.f16"}) {
    const MmaSyncForm f = form(op);
    std::set<std::pair<uint32_t, uint32_t>> a, b, c;
    std::set<std::pair<uint32_t, uint32_t>> d;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      for (uint32_t i = 0; i < f.a_elements(); ++i) a.insert(rc(ptx::mma_a_place(f, lane, i)));
      for (uint32_t i = 0; i < f.b_elements(); ++i) b.insert(rc(ptx::mma_b_place(f, lane, i)));
      for (uint32_t i = 0; i < f.c_elements(); ++i) c.insert(rc(ptx::mma_c_place(f, f.c, lane, i)));
      for (uint32_t i = 0; i < f.c_elements(); ++i) d.insert(rc(ptx::mma_c_place(f, f.d, lane, i)));
    }
    // 32 lanes x their elements, all distinct, fill the matrices: m x k, k x n, m x n, or for
    // Volta's m8n8k4 four such blocks (A 32 x 4, B 4 x 32, C the four 8 x 8 blocks on the diagonal).
    const uint32_t blocks = f.quad_pairs() ? 4 : 1;
    EXPECT_EQ(a.size(), blocks * f.m * f.k) << op;
    EXPECT_EQ(b.size(), blocks * f.k * f.n) << op;
    EXPECT_EQ(c.size(), blocks * f.m * f.n) << op;
    EXPECT_EQ(d, c) << op;  // D covers what C covers, whatever their layouts
    for (const auto& [row, col] : a) EXPECT_TRUE(row < f.rows() && col < f.k) << op;
    for (const auto& [row, col] : b) EXPECT_TRUE(row < f.k && col < f.cols()) << op;
    for (const auto& [row, col] : c) EXPECT_EQ(row / 8, f.quad_pairs() ? col / 8 : row / 8) << op;  // Volta: on the diagonal
  }
}

TEST(MmaSyncLayout, RegisterCountsPerFragment) {
  // PTX ISA fragment tables: (D, A, B, C) registers.
  const std::vector<std::pair<const char*, std::vector<uint32_t>>> cases = {
      {"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32", {2, 4, 2, 4}}, {"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", {4, 2, 1, 4}},
      {"mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", {4, 2, 1, 4}}, {"mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f16", {2, 2, 1, 2}},
      {"mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32", {2, 1, 1, 2}},     {"mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32", {4, 2, 1, 4}},
      {"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", {2, 1, 1, 2}},    {"mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64", {4, 2, 1, 4}},
      {"mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64", {4, 4, 2, 4}},   {"mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64", {4, 8, 4, 4}},
      {"mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32", {2, 1, 1, 2}},     {"mma.sync.aligned.m16n8k32.row.col.s32.u4.u4.s32", {4, 2, 1, 4}},
      {"mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", {4, 4, 2, 4}},    {"mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", {8, 2, 2, 8}},
      {"mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f32", {4, 2, 2, 8}}};
  for (const auto& [op, want] : cases) {
    const MmaSyncForm f = form(op);
    EXPECT_EQ((std::vector<uint32_t>{f.d_registers(), f.a_registers(), f.b_registers(), f.c_registers()}), want) << op;
  }
}

TEST(MmaSyncLayout, FormsOutsideThePtxIsaAreRefusedAtTheirLine) {
  test::TempDir dir;
  const std::string launch = dir.write("w.launch.yaml", "ptx: w.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs: []\n");
  auto error_for = [&](const std::string& line) {
    dir.write("w.ptx", ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<9>;\n  .reg .f64 %fd<9>;\n  " +
                           line + "\n  ret;\n}\n");
    try {
      ptx::PtxWorkload w(launch, 90);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_for("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd0,%fd1}, {%fd2}, {%fd3}, {%fd4,%fd5};"), "no error");
  EXPECT_EQ(error_for("mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.u8.s32 {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%r6}, {%r0,%r1,%r2,%r3};"),
            "no error");
  // .satfinite is the integer forms'; .rn is f64's; tf32 has no k16; b1 is not run; only Volta's
  // m8n8k4 takes other layouts than .row.col.
  for (const char* bad : {"mma.sync.aligned.m16n8k16.row.col.satfinite.f32.bf16.bf16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r0,%r1}, {%r0,%r1,%r2,%r3};",
                          "mma.sync.aligned.m16n8k8.row.col.rn.f32.tf32.tf32.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r0,%r1}, {%r0,%r1,%r2,%r3};",
                          "mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r0,%r1}, {%r0,%r1,%r2,%r3};",
                          "mma.sync.aligned.m16n8k16.col.col.f32.f16.f16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r0,%r1}, {%r0,%r1,%r2,%r3};",
                          "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%r0}, {%r0,%r1,%r2,%r3};"}) {
    const std::string e = error_for(bad);
    EXPECT_NE(e.find("w.ptx:8:3: the emulator runs mma.sync.aligned"), std::string::npos) << bad << "\n" << e;
  }
  EXPECT_NE(error_for("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%fd0,%fd1,%fd2,%fd3}, {%fd4}, {%fd5}, {%fd0,%fd1,%fd2,%fd3};")
                .find("A is a braced list of 2 registers"),
            std::string::npos);
}

// INT4 end to end on A100 (the shipped GPU with an INT4 tensor rate): lane l passes words
// a[4l .. 4l + 3] and b[2l .. 2l + 1] as its m16n8k64 fragments (s4 x u4, .satfinite, from C
// near the s32 limits) and a[4l], b[2l] as its m8n8k32 ones (u4 x s4, wrapping). The expected
// values place the nibbles with the ISA's formulas as stated above, the lowest-numbered element in
// the lowest bits, and multiply on the CPU.
TEST(MmaSyncInt4, MatchesTheCpuWithTheIsaLayouts) {
  test::TempDir dir;
  dir.write("q.ptx", R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry q(.param .u64 pa, .param .u64 pb, .param .u64 pd, .param .u64 pe)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pd];
  ld.param.u64 %rd4, [pe];
  mov.u32 %r0, %laneid;
  mul.wide.u32 %rd5, %r0, 16;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd6];
  mul.wide.u32 %rd7, %r0, 8;
  add.s64 %rd8, %rd2, %rd7;
  ld.global.v2.u32 {%r5, %r6}, [%rd8];
  mov.u32 %r7, 2147483547;
  mov.u32 %r8, -2147483548;
  mov.u32 %r9, 5;
  mov.u32 %r10, -5;
  mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32 {%r11, %r12, %r13, %r14}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%r7, %r8, %r9, %r10};
  add.s64 %rd9, %rd3, %rd5;
  st.global.v4.u32 [%rd9], {%r11, %r12, %r13, %r14};
  mma.sync.aligned.m8n8k32.row.col.s32.u4.s4.s32 {%r15, %r16}, {%r1}, {%r5}, {%r7, %r8};
  add.s64 %rd10, %rd4, %rd7;
  st.global.v2.u32 [%rd10], {%r15, %r16};
  ret;
}
)");
  const std::string launch = dir.write("q.launch.yaml", R"(ptx: q.ptx
kernel: q
grid: [1, 1, 1]
block: [32, 1, 1]
args:
  - {buffer: {name: a, elem: u32, count: 128, init: {random: {seed: 5, min: 0, max: 4294967295}}}}
  - {buffer: {name: b, elem: u32, count: 64, init: {random: {seed: 6, min: 0, max: 4294967295}}}}
  - {buffer: {name: d, elem: s32, count: 128}}
  - {buffer: {name: e, elem: s32, count: 64}}
)");
  test::Ran r = test::run_launch("a100", launch);
  const auto a = test::buffer<uint32_t>(*r.workload, "a"), b = test::buffer<uint32_t>(*r.workload, "b");
  auto nibble = [](uint32_t word, uint32_t i, bool is_signed) {
    const int v = static_cast<int>((word >> (4 * (i % 8))) & 0xf);
    return is_signed && v >= 8 ? v - 16 : v;
  };
  int64_t A[16][64] = {}, B[64][8] = {}, A8[8][32] = {}, B8[32][8] = {};
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t g = l / 4, t = l % 4;
    for (uint32_t i = 0; i < 32; ++i)
      A[(i < 8 || (i >= 16 && i < 24)) ? g : g + 8][8 * t + (i & 7) + (i >= 16 ? 32 : 0)] = nibble(a[4 * l + i / 8], i, true);
    for (uint32_t i = 0; i < 16; ++i) B[8 * t + (i & 7) + (i >= 8 ? 32 : 0)][g] = nibble(b[2 * l + i / 8], i, false);
    for (uint32_t i = 0; i < 8; ++i) A8[g][8 * t + i] = nibble(a[4 * l], i, false), B8[8 * t + i][g] = nibble(b[2 * l], i, true);
  }
  const int64_t c[4] = {2147483547, -2147483548, 5, -5};
  const auto d = test::buffer<int32_t>(*r.workload, "d"), e = test::buffer<int32_t>(*r.workload, "e");
  int clamped = 0, wrapped = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t g = l / 4, t = l % 4;
    for (uint32_t i = 0; i < 4; ++i) {
      const uint32_t row = g + 8 * (i / 2), col = 2 * t + i % 2;
      int64_t sum = c[i];
      for (uint32_t k = 0; k < 64; ++k) sum += A[row][k] * B[k][col];
      clamped += sum > INT32_MAX || sum < INT32_MIN;
      EXPECT_EQ(d[4 * l + i], std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX)) << l << " " << i;
    }
    for (uint32_t i = 0; i < 2; ++i) {
      int64_t sum = c[i];
      for (uint32_t k = 0; k < 32; ++k) sum += A8[g][k] * B8[k][2 * t + i];
      wrapped += sum > INT32_MAX || sum < INT32_MIN;
      EXPECT_EQ(e[2 * l + i], static_cast<int32_t>(static_cast<uint32_t>(sum))) << l << " " << i;
    }
  }
  EXPECT_GT(clamped, 10);  // the inputs do reach the limits, both ways
  EXPECT_GT(wrapped, 10);
  // H100's datasheet gives no INT4 rate, so its config has none: the timing model says so.
  try {
    test::run_launch("h100", launch);
    ADD_FAILURE() << "h100 ran an INT4 MMA";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("q.ptx:23:1: 'mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32' uses int4 tensor cores, which "
                                         "h100 does not have"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace warpsim
