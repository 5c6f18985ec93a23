// Structured-sparse mma.sync (mma.sp, mma.sp::ordered_metadata; frontend/ptx/mma_sync_form.h).
// Register counts and selector ranges are those ptxas 13.0 enforces ("Argument vector size
// mismatch", "value out of range, expected to be in range [0..3]"); the metadata placement is
// checked against the rule as the PTX ISA and LLVM's MLIR mma.sp test state it for m16n8k32 f16.
// The arithmetic is checked end to end by the launch files of traces/kernels/mma_sparse.cu, whose
// references multiply a masked dense A, and here for INT4 (A100 only).
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
#include "support/test_support.h"
#include "unit/frontend/mma_form_decode.h"
#include "unit/frontend/ptx_run.h"

namespace warpsim {
namespace {

using ptx::MmaSyncForm;

MmaSyncForm sparse_form(const std::string& opcode) {
  MmaSyncForm f;
  EXPECT_EQ(test::decode_mma(opcode, f), "") << opcode;
  EXPECT_TRUE(f.sparse) << opcode;
  return f;
}

struct SparseCase {
  const char* op;
  std::vector<uint32_t> registers;  // D, A, B, C
  uint32_t selectors;               // valid selector values: 0 .. selectors - 1
};

// ptxas 13.0 (sm_89) accepts exactly these vector sizes and selector ranges.
const std::vector<SparseCase> kCases = {
    {"mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", {4, 2, 2, 4}, 4},
    {"mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", {4, 4, 4, 4}, 2},
    {"mma.sp.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16", {2, 4, 4, 2}, 2},
    {"mma.sp.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", {4, 2, 2, 4}, 4},
    {"mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", {4, 2, 2, 4}, 4},
    {"mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32", {4, 4, 4, 4}, 2},
    {"mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", {4, 2, 2, 4}, 2},
    {"mma.sp.sync.aligned.m16n8k64.row.col.s32.u8.s8.s32", {4, 4, 4, 4}, 1},
    {"mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", {4, 2, 2, 4}, 2},
    {"mma.sp.sync.aligned.m16n8k128.row.col.s32.u4.s4.s32", {4, 4, 4, 4}, 1},
    {"mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32", {4, 4, 4, 4}, 1},
};

TEST(MmaSparseForm, RegisterCountsAndSelectorRangesAreThoseOfPtxas) {
  for (const auto& c : kCases) {
    const MmaSyncForm f = sparse_form(c.op);
    EXPECT_EQ((std::vector<uint32_t>{f.d_registers(), f.a_registers(), f.b_registers(), f.c_registers()}), c.registers) << c.op;
    EXPECT_EQ(4 / f.metadata_lanes(), c.selectors) << c.op;
  }
}

// Under every selector, each (row, chunk) of A has its own nibble, held by a lane of the row's
// group (lane / 4 = row % 8) that the selector picks; each such lane holds 16 bits of each of
// its two rows.
TEST(MmaSparseForm, MetadataCoversEveryChunkOnceFromTheSelectedLanes) {
  for (const auto& c : kCases) {
    const MmaSyncForm f = sparse_form(c.op);
    const uint32_t chunks = f.k / f.chunk();
    for (uint32_t sel = 0; sel < c.selectors; ++sel) {
      std::set<std::pair<uint32_t, uint32_t>> seen;
      for (uint32_t row = 0; row < 16; ++row)
        for (uint32_t ch = 0; ch < chunks; ++ch) {
          const auto at = ptx::sparse_metadata_place(f, sel, row, ch);
          EXPECT_EQ(at.lane / 4, row % 8) << c.op;
          EXPECT_GE(at.lane % 4, sel * f.metadata_lanes()) << c.op;
          EXPECT_LT(at.lane % 4, (sel + 1) * f.metadata_lanes()) << c.op;
          EXPECT_EQ(at.shift / 16, row / 8) << c.op;  // row group + 8 in the high half
          EXPECT_TRUE(seen.insert({at.lane, at.shift}).second) << c.op << " row " << row << " chunk " << ch;
        }
      EXPECT_EQ(seen.size(), 16 * chunks) << c.op;
    }
  }
  // m16n8k32 f16, as LLVM's MLIR test loads it: with selector 0, lane 4g + j holds K columns
  // 16j .. 16j + 15 (chunks 4j .. 4j + 3) of row g in bits 0-15 and of row g + 8 in bits 16-31,
  // chunk by chunk from the low bits; with selector 1 lanes 4g + 2 and 4g + 3 do.
  const MmaSyncForm f = sparse_form("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32");
  for (uint32_t g = 0; g < 8; ++g)
    for (uint32_t col = 0; col < 32; col += 4) {
      const uint32_t j = col / 16, c = (col % 16) / 4;
      for (uint32_t sel = 0; sel < 2; ++sel) {
        EXPECT_EQ(ptx::sparse_metadata_place(f, sel, g, col / 4).lane, 4 * g + 2 * sel + j);
        EXPECT_EQ(ptx::sparse_metadata_place(f, sel, g, col / 4).shift, 4 * c);
        EXPECT_EQ(ptx::sparse_metadata_place(f, sel, g + 8, col / 4).lane, 4 * g + 2 * sel + j);
        EXPECT_EQ(ptx::sparse_metadata_place(f, sel, g + 8, col / 4).shift, 16 + 4 * c);
      }
    }
}

// A nibble is two 2-bit indices, the first stored element's in the low bits (MLIR's test: 0x8888
// keeps elements 0 and 2 of every chunk). The ISA: equal indices are undefined for .sp, and
// ::ordered_metadata takes only increasing ones; tf32 takes 0b0100 (element 0) and 0b1110
// (element 1); 4-bit types' indices name pairs of elements.
TEST(MmaSparseForm, NibblesNameThePositionsTheIsaDefines) {
  const MmaSyncForm sp = sparse_form("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  const MmaSyncForm ordered = sparse_form("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  EXPECT_EQ(ptx::sparse_position(sp, 0x8, 0), 0);
  EXPECT_EQ(ptx::sparse_position(sp, 0x8, 1), 2);
  for (uint32_t lo = 0; lo < 4; ++lo)
    for (uint32_t hi = 0; hi < 4; ++hi) {
      const uint32_t n = lo | hi << 2;
      EXPECT_EQ(ptx::sparse_position(sp, n, 0), lo == hi ? -1 : static_cast<int>(lo)) << n;
      EXPECT_EQ(ptx::sparse_position(sp, n, 1), lo == hi ? -1 : static_cast<int>(hi)) << n;
      EXPECT_EQ(ptx::sparse_position(ordered, n, 1), lo < hi ? static_cast<int>(hi) : -1) << n;
    }
  const MmaSyncForm tf32 = sparse_form("mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32");
  for (uint32_t n = 0; n < 16; ++n) EXPECT_EQ(ptx::sparse_position(tf32, n, 0), n == 0x4 ? 0 : n == 0xe ? 1 : -1) << n;
  const MmaSyncForm s4 = sparse_form("mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32");
  EXPECT_EQ(s4.chunk(), 8u);
  const int want[4] = {2, 3, 6, 7};  // 0b1101: pairs 1 and 3
  for (uint32_t s = 0; s < 4; ++s) EXPECT_EQ(ptx::sparse_position(s4, 0xd, s), want[s]);
}

// INT4 end to end on A100 (the shipped GPU with an INT4 rate), from traces/kernels/mma_sparse.cu's
// mma_sparse_s4 as nvcc compiled it: the CPU multiplies A with the elements its patterns drop
// zeroed (the pattern's meaning restated from the kernel; nothing of fragments or metadata).
TEST(MmaSparseInt4, MatchesAMaskedDenseProductOnTheCpu) {
  test::TempDir dir;
  const std::string launch = dir.write("s4.launch.yaml", "ptx: " + test::source_path("traces/kernels/ptx/mma_sparse.sm_80.ptx") + R"(
kernel: mma_sparse_s4
grid: [1, 1, 1]
block: [32, 1, 1]
args:
  - {buffer: {name: a, elem: s8, count: 2048, init: {random: {seed: 1, min: -8, max: 7}}}}
  - {buffer: {name: p, elem: u8, count: 256, init: {random: {seed: 2, min: 0, max: 5}}}}
  - {buffer: {name: b, elem: u8, count: 1024, init: {random: {seed: 3, min: 0, max: 15}}}}
  - {buffer: {name: c, elem: s32, count: 128, init: {sequence: {start: -2000, step: 37}}}}
  - {buffer: {name: d, elem: s32, count: 128}}
  - {buffer: {name: a2, elem: u8, count: 1024, init: {random: {seed: 4, min: 0, max: 15}}}}
  - {buffer: {name: p2, elem: u8, count: 128, init: {random: {seed: 5, min: 0, max: 5}}}}
  - {buffer: {name: b2, elem: s8, count: 512, init: {random: {seed: 6, min: -8, max: 7}}}}
  - {buffer: {name: e, elem: s32, count: 128}}
)");
  test::Ran r = test::run_launch("a100", launch);
  const int first[6] = {0, 0, 0, 1, 1, 2}, second[6] = {1, 2, 3, 2, 3, 3};
  // D = C + A B with A's dropped elements zero; each chunk of 8 keeps two pairs.
  auto product = [&](const auto& A, const std::vector<uint8_t>& P, const auto& B, uint32_t K, uint32_t row, uint32_t col, int64_t c) {
    for (uint32_t k = 0; k < K; ++k) {
      const int p = P[row * (K / 8) + k / 8] % 6, in = static_cast<int>(k % 8) / 2;
      if (in == first[p] || in == second[p]) c += int64_t{A[row * K + k]} * int64_t{B[k * 8 + col]};
    }
    return c;
  };
  const auto a = test::buffer<int8_t>(*r.workload, "a"), b2 = test::buffer<int8_t>(*r.workload, "b2");
  const auto p = test::buffer<uint8_t>(*r.workload, "p"), b = test::buffer<uint8_t>(*r.workload, "b");
  const auto a2 = test::buffer<uint8_t>(*r.workload, "a2"), p2 = test::buffer<uint8_t>(*r.workload, "p2");
  const auto c = test::buffer<int32_t>(*r.workload, "c"), d = test::buffer<int32_t>(*r.workload, "d"), e = test::buffer<int32_t>(*r.workload, "e");
  int64_t nonzero = 0;
  for (uint32_t row = 0; row < 16; ++row)
    for (uint32_t col = 0; col < 8; ++col) {
      const uint32_t i = row * 8 + col;
      EXPECT_EQ(d[i], product(a, p, b, 128, row, col, c[i])) << row << " " << col;
      EXPECT_EQ(e[i], product(a2, p2, b2, 64, row, col, c[i])) << row << " " << col;
      nonzero += d[i] != c[i] && e[i] != c[i];
    }
  EXPECT_GT(nonzero, 100);
}

// A recorded trace of a sparse kernel carries the metadata operand and selector, and replays
// with the same statistics as the PTX run (warpsim trace's promise).
TEST(MmaSparseTrace, ReplaysAsTheEmulatedRun) {
  test::TempDir dir;
  for (const char* name : {"hgemm_sparse", "mma_sparse_int"}) {
    const auto r = test::run_and_replay("h100", test::source_path(std::string("traces/kernels/") + name + ".launch.yaml"), dir);
    EXPECT_NE(r.trace.find("mma.sp::ordered_metadata.sync.aligned."), std::string::npos) << name;
    EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
    EXPECT_EQ(r.direct, r.replay) << name;
  }
}

std::string error_running(const std::string& arch, const std::string& mma_line) {
  test::TempDir dir;
  dir.write("m.ptx", R"(.version 8.5
.target sm_80
.address_size 64
.visible .entry m()
{
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .pred %p<2>;
  mov.u32 %r0, %laneid;
  mov.u32 %r1, 0x3c003c00;
  mov.u32 %r2, 0x3c003c00;
  mov.u32 %r9, 0x44444444;
  setp.eq.u32 %p1, %r0, 13;
  @%p1 mov.u32 %r9, 0x44454444;
  mov.f32 %f0, 0f00000000;
  )" + mma_line + R"(
  ret;
}
)");
  const std::string launch = dir.write("m.launch.yaml", "ptx: m.ptx\nkernel: m\ngrid: [1]\nblock: [32]\nargs: []\n");
  try {
    test::run_launch(arch, launch);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// Metadata the ISA leaves undefined stops the run, naming the thread, bits and chunk; bad operands
// are refused when the PTX loads, at their line.
TEST(MmaSparseMetadata, UndefinedValuesAndBadOperandsAreClearErrors) {
  const std::string four = "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r1,%r2}, {%f0,%f0,%f0,%f0}";
  const std::string mma = four + ", %r9, ";
  // Lane 13 (group 3, selector 1) holds 0x44454444: bits 16-19 (row 11, chunk 0) are 0b0101,
  // two equal indices. With selector 0 lane 12 holds the metadata and nothing is wrong.
  EXPECT_EQ(error_running("a100", mma + "0;"), "no error");
  const std::string e = error_running("a100", mma + "1;");
  EXPECT_NE(e.find("m.ptx:16:"), std::string::npos) << e;
  EXPECT_NE(e.find("by thread (13,0,0) of CTA (0,0,0)"), std::string::npos) << e;
  EXPECT_NE(e.find("sparse MMA metadata nibble 0x5 (bits 16..19) for row 11, chunk 0 of A is undefined: the two indices must differ"),
            std::string::npos)
      << e;
  const std::string sel = error_running("a100", mma + "4;");
  EXPECT_NE(sel.find("m.ptx:16:3: 'mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32': the sparsity selector (operand 6) is a constant from 0 to 3"),
            std::string::npos)
      << sel;
  const std::string imm = error_running("a100", "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2}, {%r1,%r2}, "
                                                "{%f0,%f0,%f0,%f0}, 0x44444444, 0;");
  EXPECT_NE(imm.find("the metadata (operand 5) is a 32-bit register"), std::string::npos) << imm;
  EXPECT_NE(error_running("a100", four + ", %r9;").find("takes D, A, B, C, metadata, sparsity selector; found 5 operands"), std::string::npos);
  EXPECT_EQ(error_running("h100", mma + "2;"), "no error");
}

}  // namespace
}  // namespace warpsim
