// TMA tensor copies of rank 3 to 5, swizzled, both directions, against a CPU reference of the
// box geometry (PTX ISA "Tensor copy", cuTensorMapEncodeTiled): out-of-bounds elements load as
// zeros and are not stored, the box lies row-major in shared memory with its 16-byte chunks
// permuted by the swizzle, and the timing model reads and writes exactly the in-bounds rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "support/test_support.h"

namespace warpsim {
namespace {

// One CTA: thread 0 loads a 4 x 2 x 2 x 2 x 2 float box of a 4 x 2 x 3 x 3 x 2 tensor at
// coordinates (0, -1, 2, 1, 1) through a 32-byte-swizzled map; all 64 threads copy the 256
// shared bytes word by word to `seen`; thread 0 stores the same shared bytes as a box at
// (0, 1, 1, 2, 1) through a plain map over `out` (filled with -1 beforehand).
const char* kTensorCopyKernel = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry box5(.param .align 128 .b8 in_map[128], .param .align 128 .b8 out_map[128], .param .u64 seen)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  .reg .f32 %f<2>;
  .shared .align 1024 .b8 tile[256];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra SYNC;
  mbarrier.init.shared::cta.b64 [bar], 1;
SYNC:
  bar.sync 0;
  @!%p1 bra WAIT;
  mov.b64 %rd1, in_map;
  cvta.param.u64 %rd2, %rd1;
  mov.u32 %r3, tile;
  mov.u32 %r4, bar;
  mov.u32 %r10, 0;
  mov.u32 %r11, -1;
  mov.u32 %r12, 2;
  mov.u32 %r13, 1;
  mov.u32 %r14, 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 256;
  cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd2, {%r10, %r11, %r12, %r13, %r14}], [%r4];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;
  shl.b32 %r6, %r1, 2;
  mov.u32 %r7, tile;
  add.s32 %r8, %r7, %r6;
  ld.shared.f32 %f1, [%r8];
  ld.param.u64 %rd6, [seen];
  mul.wide.u32 %rd7, %r1, 4;
  add.s64 %rd7, %rd6, %rd7;
  st.global.f32 [%rd7], %f1;
  @!%p1 bra DONE;
  mov.b64 %rd8, out_map;
  cvta.param.u64 %rd9, %rd8;
  mov.u32 %r15, 1;
  mov.u32 %r16, 2;
  cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%rd9, {%r10, %r15, %r15, %r16, %r14}], [%r7];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
DONE:
  ret;
}
)";

constexpr std::array<int, 5> kDims = {4, 2, 3, 3, 2}, kBox = {4, 2, 2, 2, 2};

std::string tensor_copy_launch(test::TempDir& dir, const std::string& swizzle) {
  dir.write("k.ptx", kTensorCopyKernel);
  return dir.write("k.launch.yaml",
                   "ptx: k.ptx\nkernel: box5\ngrid: [1]\nblock: [64]\n"
                   "buffers:\n"
                   "  in: {elem: f32, count: 144, init: {sequence: {start: 1, step: 1}}}\n"
                   "  out: {elem: f32, count: 144, init: {sequence: {start: -1, step: 0}}}\n"
                   "args:\n"
                   "  - {tensor_map: {buffer: in, elem: f32, dims: [4, 2, 3, 3, 2], box: [4, 2, 2, 2, 2], swizzle: " + swizzle + "}}\n"
                   "  - {tensor_map: {buffer: out, elem: f32, dims: [4, 2, 3, 3, 2], box: [4, 2, 2, 2, 2]}}\n"
                   "  - {buffer: {name: seen, elem: f32, count: 64}}\n"
                   "dump: [seen, out]\n");
}

// Index of element c of the packed tensor, or -1 when c lies outside it.
int tensor_index(const std::array<int, 5>& c) {
  int index = 0;
  for (int d = 4; d >= 0; --d) {
    if (c[d] < 0 || c[d] >= kDims[d]) return -1;
    index = index * kDims[d] + c[d];
  }
  return index;
}

// Calls f(box element's row-major byte offset, tensor coordinates) for each element of the box at `at`.
template <class F>
void for_each_box_element(const std::array<int, 5>& at, F&& f) {
  std::array<int, 5> i{};
  for (i[4] = 0; i[4] < kBox[4]; ++i[4])
    for (i[3] = 0; i[3] < kBox[3]; ++i[3])
      for (i[2] = 0; i[2] < kBox[2]; ++i[2])
        for (i[1] = 0; i[1] < kBox[1]; ++i[1])
          for (i[0] = 0; i[0] < kBox[0]; ++i[0]) {
            const int linear = ((((i[4] * kBox[3] + i[3]) * kBox[2] + i[2]) * kBox[1] + i[1]) * kBox[0] + i[0]) * 4;
            std::array<int, 5> c;
            for (int d = 0; d < 5; ++d) c[d] = at[d] + i[d];
            f(linear, c);
          }
}

std::vector<float> floats(const std::string& bytes) {
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

TEST(TensorCopyPtx, FiveDimensionalBoxesLoadSwizzledAndStoreInBounds) {
  for (const auto& [swizzle, span] : {std::pair<std::string, int>{"none", 0}, {"32B", 32}}) {
    test::TempDir dir;
    const std::string launch = tensor_copy_launch(dir, swizzle);
    auto r = test::run_cli({"run", "--arch", "h100", launch, "--dump-dir", dir.path(""), "--checks", "error"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Shared memory after the load: in[i] = i + 1, zero outside the tensor; under a swizzle of
    // `span` bytes, chunk bit 4 of each byte offset flips with bit 7 (32B: one row bit).
    std::vector<float> shared(64, 0.0f);
    const int swizzle_span = span;  // a copy: clang before 16 cannot capture a structured binding
    for_each_box_element({0, -1, 2, 1, 1}, [&](int linear, const std::array<int, 5>& c) {
      const int at = swizzle_span == 32 ? linear ^ (((linear >> 7) & 1) << 4) : linear;
      const int i = tensor_index(c);
      shared[at / 4] = i < 0 ? 0.0f : float(i + 1);
    });
    EXPECT_EQ(floats(test::read_file(dir.path("seen.bin"))), shared) << swizzle;
    // The store reads the box's bytes with the plain map (no swizzle) and writes its in-bounds elements.
    std::vector<float> out(144, -1.0f);
    for_each_box_element({0, 1, 1, 2, 1}, [&](int linear, const std::array<int, 5>& c) {
      const int i = tensor_index(c);
      if (i >= 0) out[i] = shared[linear / 4];
    });
    EXPECT_EQ(floats(test::read_file(dir.path("out.bin"))), out) << swizzle;
  }
}

// The timing model reads the load's in-bounds rows (1 x 1 x 2 rows of 16 bytes: 2 sectors)
// and writes the store's (1 x 2 rows); the trace spells the nested rows and replays alike.
TEST(TensorCopyPtx, NestedRowsReachTheTimingModelAndTheTrace) {
  test::TempDir dir;
  const auto r = test::run_and_replay("h100", tensor_copy_launch(dir, "128B"), dir);
  EXPECT_NE(r.trace.find("rows=1x1x2 row_bytes=16 stride=16x32x96"), std::string::npos) << r.trace;
  EXPECT_NE(r.trace.find("rows=1x2 row_bytes=16 stride=16x32"), std::string::npos) << r.trace;
  EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
  auto run = test::simulate_text("h100", r.trace);
  EXPECT_EQ(run.sum("gpu.sm[*].bulk_copy.copies"), 2u);
  EXPECT_EQ(run.sum("gpu.sm[*].bulk_copy.sectors"), 2u + 2u);
}

// The shipped kernel (traces/kernels/tma_tiles.cu, 32 x 8 x 2 boxes of a 100 x 20 x 5 float
// tensor): each box's in-bounds rows are read once by its load and written once by its store,
// sector by sector; the edge boxes move nothing past the tensor.
TEST(TensorCopyPtx, ShippedThreeDimensionalTilesMoveExactlyTheirInBoundsSectors) {
  test::TempDir dir;
  const auto r = test::run_and_replay("h100", test::source_path("traces/kernels/tma_tiles.launch.yaml"), dir);
  EXPECT_NE(r.trace.find("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group"), std::string::npos);
  EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
  auto run = test::simulate_text("h100", r.trace);
  const uint64_t width = 100, height = 20, depth = 5, sector = run.config.spec.memory.sector_bytes;
  uint64_t sectors = 0;
  for (uint64_t bz = 0; bz < 3; ++bz)
    for (uint64_t by = 0; by < 3; ++by)
      for (uint64_t bx = 0; bx < 4; ++bx)
        for (uint64_t z = bz * 2; z < std::min(bz * 2 + 2, depth); ++z)
          for (uint64_t y = by * 8; y < std::min(by * 8 + 8, height); ++y) {
            const uint64_t row = (z * height + y) * width * 4;
            const uint64_t from = row + bx * 32 * 4, to = row + std::min(bx * 32 + 32, width) * 4;
            sectors += (to - 1) / sector - from / sector + 1;
          }
  EXPECT_EQ(run.sum("gpu.sm[*].bulk_copy.copies"), 2u * 36);
  EXPECT_EQ(run.sum("gpu.sm[*].bulk_copy.sectors"), 2 * sectors);
}

// A hand-written trace: a 3D box of 3 x 2 rows of 64 bytes, 128 bytes apart along dimension 1
// and 1024 along dimension 2, reads 2 sectors per row; malformed row lists are refused at their column.
TEST(TensorCopyTrace, NestedRowsAreReadAndCheckedAtTheirColumn) {
  auto trace = [](const std::string& rows) {
    return test::kernel_header("box", 1, 32, 4096) + ".cta 0 0 0\n.warp 0\n"
           "00000001 mbarrier.init.shared::cta.b64 [%r1], 1; mbar=0x100 count=1\n"
           "00000001 cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd1], [%r1]; addr=0x10000 mbar=0x100 tx=512 " +
           rows + "\n00000001 mbarrier.arrive.shared::cta.b64 %rd2, [%r1]; mbar=0x100 arrive=1\n"
           "00000001 mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r1], %r5; mbar=0x100 phase=0\nexit\n";
  };
  auto run = test::simulate_text("h100", trace("rows=3x2 row_bytes=64 stride=128x1024"));
  EXPECT_EQ(run.sum("gpu.sm[*].bulk_copy.sectors"), 3u * 2 * 2);
  test::TempDir dir;
  auto r = test::run_cli({"run", "--arch", "h100", dir.write("bad.trace", trace("rows=1x2x3x4x5 row_bytes=64 stride=128")), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("expected rows=R1[xR2[xR3[xR4]]], counts up to 65535, one per box dimension above the first (at most 4); got '1x2x3x4x5'"),
            std::string::npos) << r.err;
  r = test::run_cli({"run", "--arch", "h100", dir.write("bad.trace", trace("rows=2 row_bytes=64 stride=128xq")), "-q"});
  EXPECT_NE(r.err.find("got '128xq'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim

namespace warpsim {
namespace {

// TMA reductions: a plain one (add.f32 of a 64-float tile into global memory) and a 2D tensor
// one (max over s32, a box partly outside the tensor), against a CPU model; L2's atomic units
// combine one element per operation.
const char* kReduceKernel = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry reduce(.param .u64 acc, .param .align 128 .b8 map[128])
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<4>;
  .shared .align 128 .b8 tile[256];
  .shared .align 128 .b8 box[32];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  mul.f32 %f1, %f1, 0f3F000000;
  mov.u32 %r2, tile;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.f32 [%r4], %f1;
  setp.lt.u32 %p1, %r1, 8;
  @!%p1 bra SYNC;
  mov.u32 %r5, box;
  add.u32 %r6, %r5, %r3;
  mul.lo.u32 %r7, %r1, 3;
  sub.s32 %r7, 10, %r7;
  st.shared.s32 [%r6], %r7;
SYNC:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [acc];
  cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [%r2], 256;
  mov.b64 %rd2, map;
  cvta.param.u64 %rd3, %rd2;
  mov.u32 %r8, 2;
  mov.u32 %r9, 3;
  mov.u32 %r10, box;
  cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group [%rd3, {%r8, %r9}], [%r10];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
DONE:
  ret;
}
)";

TEST(TensorCopyPtx, BulkReductionsCombineInGlobalMemory) {
  test::TempDir dir;
  dir.write("k.ptx", kReduceKernel);
  const std::string launch = dir.write("k.launch.yaml",
                                       "ptx: k.ptx\nkernel: reduce\ngrid: [1]\nblock: [64]\n"
                                       "buffers:\n  acc: {elem: f32, count: 64, init: {sequence: {start: 1, step: 1}}}\n"
                                       "  m: {elem: s32, count: 16, init: {sequence: {start: -8, step: 1}}}\n"
                                       "args:\n  - {buffer: acc}\n  - {tensor_map: {buffer: m, elem: s32, dims: [4, 4], box: [4, 2]}}\n"
                                       "dump: [acc, m]\n");
  auto r = test::run_cli({"run", "--arch", "h100", launch, "--dump-dir", dir.path(""), "--checks", "error", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string acc = test::read_file(dir.path("acc.bin")), m = test::read_file(dir.path("m.bin"));
  ASSERT_EQ(acc.size(), 64u * 4);
  for (uint32_t i = 0; i < 64; ++i) {
    float v;
    std::memcpy(&v, acc.data() + 4 * i, 4);
    EXPECT_EQ(v, float(i + 1) + 0.5f * float(i)) << i;  // exact: halves of small integers
  }
  // Box element (x, y) holds 10 - 3 (4y + x) and lands on m[3 + y][2 + x]: only row 3, columns 2-3, are inside.
  std::vector<int32_t> want(16);
  for (int i = 0; i < 16; ++i) want[i] = i - 8;
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 4; ++x)
      if (3 + y < 4 && 2 + x < 4) want[(3 + y) * 4 + 2 + x] = std::max(want[(3 + y) * 4 + 2 + x], 10 - 3 * (4 * y + x));
  ASSERT_EQ(m.size(), 16u * 4);
  for (int i = 0; i < 16; ++i) {
    int32_t v;
    std::memcpy(&v, m.data() + 4 * i, 4);
    EXPECT_EQ(v, want[i]) << i;
  }
  // Timing: 64 + 2 elements combined at L2; the trace replays alike.
  const auto replay = test::run_and_replay("h100", launch, dir);
  EXPECT_NE(replay.trace.find("elem=4"), std::string::npos) << replay.trace;
  EXPECT_EQ(replay.direct.rfind("error", 0), std::string::npos) << replay.direct;
  EXPECT_EQ(replay.direct, replay.replay);
  auto run = test::simulate_text("h100", replay.trace);
  EXPECT_EQ(run.sum("gpu.l2.atomic_ops"), 64u + 2u);
}

}  // namespace
}  // namespace warpsim
