// Hopper's wgmma in the PTX emulator: descriptor decoding and the swizzled layouts worked out by
// hand from the PTX ISA, an MMA with A in registers (negated, not accumulating) against a CPU
// product built from the documented fragment layouts, the forms it refuses, and the shipped GEMM
// replayed from its trace.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "common/half.h"
#include "frontend/ptx/wgmma_layout.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

uint64_t descriptor(uint64_t start, uint64_t lbo, uint64_t sbo, uint64_t mode) {
  return (start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (mode << 62);
}

TEST(WgmmaLayout, DescriptorsAndSwizzlesPlaceElementsAsDocumented) {
  using ptx::decode_matrix_descriptor;
  using ptx::matrix_element_address;
  const auto plain = decode_matrix_descriptor(descriptor(0x400, 1024, 128, 0));
  EXPECT_EQ(plain.start, 0x400u);
  EXPECT_EQ(plain.lbo, 1024u);
  EXPECT_EQ(plain.sbo, 128u);
  EXPECT_EQ(plain.swizzle_bytes, 0u);
  // No swizzle: 8 x 16-byte core matrices; row 9 is row 1 of the next row block (SBO), byte 18
  // is byte 2 of the next K block (LBO).
  EXPECT_EQ(matrix_element_address(plain, 9, 18), 0x400u + 128 + 1024 + 16 + 2);
  // 128-byte swizzle: row r of an 8-row atom is 128 bytes at r x 128, its 16-byte chunk c
  // stored at chunk c ^ r.
  const auto s128 = decode_matrix_descriptor(descriptor(0x2000, 16, 1024, 1));
  EXPECT_EQ(s128.swizzle_bytes, 128u);
  EXPECT_EQ(matrix_element_address(s128, 0, 0), 0x2000u);
  EXPECT_EQ(matrix_element_address(s128, 3, 0), 0x2000u + 3 * 128 + 3 * 16);
  EXPECT_EQ(matrix_element_address(s128, 5, 2 * 16 + 4), 0x2000u + 5 * 128 + (2 ^ 5) * 16 + 4);
  EXPECT_EQ(matrix_element_address(s128, 10, 0), 0x2000u + 1024 + 2 * 128 + 2 * 16);  // next atom by SBO
  // A k-step 32 bytes into the row moves the start; the XOR still uses the row's bits.
  const auto s128k = decode_matrix_descriptor(descriptor(0x2000 + 32, 16, 1024, 1));
  EXPECT_EQ(matrix_element_address(s128k, 1, 0), 0x2000u + 128 + ((2 ^ 1) * 16));
  // 64-byte swizzle: rows of 64 bytes; address bits 7-8 (rows 2r, 2r+1 share) XOR the chunk.
  const auto s64 = decode_matrix_descriptor(descriptor(0, 16, 512, 2));
  EXPECT_EQ(s64.swizzle_bytes, 64u);
  EXPECT_EQ(matrix_element_address(s64, 1, 16), 64u + 16);            // bits 7-8 are 0
  EXPECT_EQ(matrix_element_address(s64, 2, 16), 128u + ((1 ^ 1) * 16));  // row 2: bit 7 set
  EXPECT_EQ(matrix_element_address(s64, 7, 0), 7u * 64 + 3 * 16);
  // 32-byte swizzle: rows of 32 bytes; bit 7 (rows 4-7) flips the chunk.
  const auto s32 = decode_matrix_descriptor(descriptor(0, 16, 256, 3));
  EXPECT_EQ(s32.swizzle_bytes, 32u);
  EXPECT_EQ(matrix_element_address(s32, 3, 16), 3u * 32 + 16);
  EXPECT_EQ(matrix_element_address(s32, 4, 16), 4u * 32);
}

// One warpgroup: wgmma m64n8k16 with A from registers (each thread's 4 registers read from
// `a` in fragment order), B from shared memory (8 x 16 halves, no swizzle, copied byte for
// byte from `b`), imm-scale-a = -1 and scale-d false (D's old values, 100, must be ignored).
const char* kRegisterKernel = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<12>;
  .shared .align 128 .b8 sb[256];
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5];
  setp.lt.u32 %p1, %r1, 64;
  @!%p1 bra SYNC;
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.u32 %r6, [%rd7];
  shl.b32 %r7, %r1, 2;
  mov.u32 %r8, sb;
  add.s32 %r9, %r8, %r7;
  st.shared.u32 [%r9], %r6;
SYNC:
  bar.sync 0;
  mov.u32 %r10, sb;
  cvt.u64.u32 %rd8, %r10;
  shr.u64 %rd8, %rd8, 4;
  or.b64 %rd8, %rd8, 0x0000001000080000;
  mov.f32 %f1, 0f42C80000;
  mov.f32 %f2, 0f42C80000;
  mov.f32 %f3, 0f42C80000;
  mov.f32 %f4, 0f42C80000;
  setp.ne.u32 %p1, 0, 0;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, {%r2, %r3, %r4, %r5}, %rd8, %p1, -1, 1, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  add.s64 %rd9, %rd3, %rd4;
  st.global.v4.f32 [%rd9], {%f1, %f2, %f3, %f4};
  ret;
}
)";

TEST(WgmmaPtx, RegisterAOperandFollowsTheFragmentLayout) {
  test::TempDir dir;
  // Small integers: every product and sum is exact, so the comparison can be too.
  std::vector<uint16_t> a(128 * 8), b(128);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float_to_half(float(int(i * 7 % 5) - 2));
  for (size_t i = 0; i < b.size(); ++i) b[i] = float_to_half(float(int(i * 3 % 7) - 3));
  auto raw = [](const std::vector<uint16_t>& v) { return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 2); };
  dir.write("a.bin", raw(a));
  dir.write("b.bin", raw(b));
  dir.write("k.ptx", kRegisterKernel);
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [128]\nargs:\n"
                                                        "  - {buffer: {name: a, elem: u16, count: 1024, init: {file: a.bin}}}\n"
                                                        "  - {buffer: {name: b, elem: u16, count: 128, init: {file: b.bin}}}\n"
                                                        "  - {buffer: {name: out, elem: f32, count: 512}}\ndump: [out]\n");
  auto r = test::run_cli({"run", "--arch", "h100", launch, "--dump-dir", dir.path(""), "--checks", "error"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The timing record says A came from registers (only B is read from shared memory), and the
  // trace replays with the same timing.
  const auto replay = test::run_and_replay("h100", launch, dir);
  EXPECT_NE(replay.trace.find("wgmma.mma_async.sync.aligned.a_regs.m64n8k16.f32.f16.f16"), std::string::npos);
  EXPECT_EQ(replay.direct, replay.replay);
  // A (64 x 16) from the register fragment: register j of lane l of warp q holds the halves at
  // row 16q + l / 4 + 8 (j % 2), columns 2 (l % 4) + 8 (j / 2) + {0, 1}.
  float am[64][16], bm[16][8];
  for (uint32_t tid = 0; tid < 128; ++tid)
    for (uint32_t j = 0; j < 4; ++j)
      for (uint32_t h = 0; h < 2; ++h) {
        const uint32_t q = tid / 32, l = tid % 32;
        am[16 * q + l / 4 + 8 * (j % 2)][2 * (l % 4) + 8 * (j / 2) + h] = half_to_float(a[tid * 8 + j * 2 + h]);
      }
  // B (16 x 8, K-major, no swizzle): element (k, n) at byte (k / 8) x LBO (128) + n x 16 + (k % 8) x 2.
  for (uint32_t kk = 0; kk < 16; ++kk)
    for (uint32_t n = 0; n < 8; ++n) bm[kk][n] = half_to_float(b[((kk / 8) * 128 + n * 16 + (kk % 8) * 2) / 2]);
  const std::string out = test::read_file(dir.path("out.bin"));
  ASSERT_EQ(out.size(), 512u * 4);
  for (uint32_t tid = 0; tid < 128; ++tid) {
    const uint32_t q = tid / 32, l = tid % 32;
    for (uint32_t i = 0; i < 4; ++i) {
      const uint32_t row = 16 * q + l / 4 + 8 * ((i / 2) % 2), col = 2 * (l % 4) + i % 2;
      float expected = 0;
      for (uint32_t kk = 0; kk < 16; ++kk) expected -= am[row][kk] * bm[kk][col];
      float got;
      std::memcpy(&got, out.data() + 4 * (tid * 4 + i), 4);
      EXPECT_EQ(got, expected) << "thread " << tid << " register " << i;
    }
  }
}

TEST(WgmmaPtx, UnmodelledFormsAreRefusedAtTheirLine) {
  test::TempDir dir;
  const std::string mma = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, {%r2, %r3, %r4, %r5}, %rd8, %p1, -1, 1, 0;";
  auto refused = [&](const std::string& replacement) {
    std::string ptx = kRegisterKernel;
    ptx.replace(ptx.find(mma), mma.size(), replacement);
    dir.write("k.ptx", ptx);
    return test::run_cli({"run", "--arch", "h100", dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [128]\nargs:\n"
                                                                              "  - {buffer: {name: a, elem: u16, count: 1024}}\n"
                                                                              "  - {buffer: {name: b, elem: u16, count: 128}}\n"
                                                                              "  - {buffer: {name: out, elem: f32, count: 512}}\n"), "-q"});
  };
  auto r = refused("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd8, %rd8, %p1, 1, 1, 0, 2;");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.ptx:39:3: the emulator runs wgmma"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("imm-trans-a/b must be 0 or 1"), std::string::npos) << r.err;
  r = refused("wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 {%r6, %r7}, %rd8, %rd8, %p1, 1, 1, 0, 0;");
  EXPECT_NE(r.err.find("accumulator type f16 does not go with bf16 inputs"), std::string::npos) << r.err;
  r = refused("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%f1, %f2, %f3, %f4}, %rd8, %rd8, %p1, 1, 1;");
  EXPECT_NE(r.err.find("expected {4 accumulators}, A, B, scale-d operands"), std::string::npos) << r.err;
  r = refused("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f1, %f2, %f3, %f4}, {%r2, %r3, %r4, %r5}, %rd8, %p1, 1, 1;");
  EXPECT_NE(r.err.find("A in registers needs 16- or 8-bit inputs"), std::string::npos) << r.err;
  r = refused("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2}, %rd8, %rd8, %p1, 1, 1, 0, 0;");
  EXPECT_NE(r.err.find("expected {4 accumulators}"), std::string::npos) << r.err;
}

// MN-major operands (imm-trans = 1, tcgen05's "transpose" bits) follow the PTX ISA's canonical
// layouts; addresses worked by hand from ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) and, for a W-byte
// swizzle, ((T,W/16,m),(8,k)):((1,T,LBO),(W/16 T,SBO)), then the swizzle's XOR.
TEST(WgmmaLayout, MnMajorElementAddresses) {
  ptx::MatrixDescriptor d;
  d.start = 0x1000;
  d.lbo = 4096;
  d.sbo = 256;
  // f16, no swizzle: T = 8. Element 9 along N is element 1 of the second chunk (SBO further);
  // K = 11 is row 3 of the second core matrix along K (LBO further).
  EXPECT_EQ(ptx::mn_major_element_address(d, 9, 11, 2), 0x1000 + 2 + 256 + 3 * 16 + 4096);
  // tf32: T = 4, so element 9 is element 1 of chunk 2.
  EXPECT_EQ(ptx::mn_major_element_address(d, 9, 0, 4), 0x1000 + 4 + 2 * 256);
  // f16, 128-byte swizzle (8 chunks a row): SBO = 1024 between 8-row groups of K, LBO between
  // 64-element groups of N. (N 70, K 10): N group 1, chunk 0, element 6; K row 2 of group 1.
  d.start = 0x2000;
  d.swizzle_bytes = 128;
  d.sbo = 1024;
  d.lbo = 8192;
  const uint64_t linear = 0x2000 + 6 * 2 + 8192 + 2 * 128 + 1024;  // chunk bits 4-6 = 0, row bits 7-9 = 2
  EXPECT_EQ(ptx::mn_major_element_address(d, 70, 10, 2), linear ^ (2 << 4));
  // 64-byte swizzle: 4 chunks a row, rows 64 bytes apart; the XOR takes 2 row bits (7-8).
  d.swizzle_bytes = 64;
  // (N 17, K 5): element 1 of chunk 2, K row 5: 0x2000 + 2 + 32 + 320 = 0x2162; bits 7-8 hold 2.
  EXPECT_EQ(ptx::mn_major_element_address(d, 17, 5, 2), 0x2162u ^ 0x20u);
}

// The shipped GEMM (four launches: three stagings, one of them TMA through 128-byte-swizzled
// tensor maps, and row-major B read MN-major)
// replays from its trace with the same timing, wgmma records and all.
TEST(WgmmaPtx, ShippedGemmReplaysFromItsTrace) {
  test::TempDir dir;
  const std::string launch = test::source_path("traces/kernels/wgmma_gemm.launch.yaml");
  const auto r = test::run_and_replay("h100", launch, dir);
  EXPECT_NE(r.trace.find("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"), std::string::npos);
  // The TMA-staged launch: each 64 x 64 f16 box is 64 rows of 128 bytes, 256 bytes apart.
  EXPECT_NE(r.trace.find("tx=8192 rows=64 row_bytes=128 stride=256"), std::string::npos);
  EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
}

}  // namespace
}  // namespace warpsim
