// wgmma's integer and f16 accumulators, and 8-bit A in registers (sim/frontend/ptx/wgmma.cpp).
// One hand-written kernel stages A (64 x 32 bytes) and B (8 x 32 bytes) in shared memory as they
// lie in global memory, and runs three m64n8k32 wgmmas onto set accumulators:
//   1. s8 x u8 into s32 with .satfinite, A and B through descriptors;
//   2. e4m3 x e4m3 into f16 with imm-scale-b = -1, the same bytes read as FP8;
//   3. s8 x u8 into s32 (wrapping), A from registers loaded in mma.sync's m16n8k32 layout.
// The expected values read the matrices with the PTX ISA's no-swizzle K-major layout (8-row x
// 16-byte core matrices: element (row, k) at (row / 8) SBO + (k / 16) LBO + (row % 8) 16 + k % 16)
// and place D with the m64nNk layout (row 16q + l / 4 + 8 ((e / 2) % 2), column 2 (l % 4) + e % 2
// for N = 8), both stated here independently of the emulator's code.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/half.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

constexpr const char* kKernel = R"(.version 8.4
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 out_i, .param .u64 out_h, .param .u64 out_r)
{
  .reg .pred %p<3>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<16>;
  .shared .align 128 .b8 sa[2048];
  .shared .align 128 .b8 sb[256];
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [out_i];
  ld.param.u64 %rd4, [out_h];
  ld.param.u64 %rd5, [out_r];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd1, %rd6;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd7];
  shl.b32 %r6, %r1, 4;
  mov.u32 %r7, sa;
  add.s32 %r8, %r7, %r6;
  st.shared.v4.u32 [%r8], {%r2, %r3, %r4, %r5};
  setp.lt.u32 %p1, %r1, 16;
  @!%p1 bra SYNC;
  add.s64 %rd8, %rd2, %rd6;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd8];
  mov.u32 %r9, sb;
  add.s32 %r10, %r9, %r6;
  st.shared.v4.u32 [%r10], {%r2, %r3, %r4, %r5};
SYNC:
  bar.sync 0;
  cvt.u64.u32 %rd9, %r7;
  shr.u64 %rd9, %rd9, 4;
  or.b64 %rd9, %rd9, 0x0000001000080000;
  mov.u32 %r9, sb;
  cvt.u64.u32 %rd10, %r9;
  shr.u64 %rd10, %rd10, 4;
  or.b64 %rd10, %rd10, 0x0000001000080000;
  mov.u32 %r11, 2147463647;
  mov.u32 %r12, 7;
  mov.u32 %r13, -2147463648;
  mov.u32 %r14, -7;
  mov.u32 %r15, 0x3c004000;
  mov.u32 %r16, 0xc200bc00;
  mov.u32 %r18, 2147463647;
  mov.u32 %r19, 7;
  mov.u32 %r20, -2147463648;
  mov.u32 %r21, -7;
  shr.u32 %r26, %r1, 5;
  shl.b32 %r26, %r26, 9;
  and.b32 %r27, %r1, 31;
  shl.b32 %r27, %r27, 2;
  add.s32 %r28, %r26, %r27;
  add.s32 %r29, %r7, %r28;
  ld.shared.u32 %r22, [%r29];
  ld.shared.u32 %r23, [%r29+256];
  ld.shared.u32 %r24, [%r29+128];
  ld.shared.u32 %r25, [%r29+384];
  setp.ne.u32 %p2, 1, 0;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.u8.satfinite {%r11, %r12, %r13, %r14}, %rd9, %rd10, %p2;
  wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3 {%r15, %r16}, %rd9, %rd10, %p2, 1, -1;
  wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.u8 {%r18, %r19, %r20, %r21}, {%r22, %r23, %r24, %r25}, %rd10, %p2;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  add.s64 %rd11, %rd3, %rd6;
  st.global.v4.u32 [%rd11], {%r11, %r12, %r13, %r14};
  mul.wide.u32 %rd12, %r1, 8;
  add.s64 %rd13, %rd4, %rd12;
  st.global.v2.u32 [%rd13], {%r15, %r16};
  add.s64 %rd14, %rd5, %rd6;
  st.global.v4.u32 [%rd14], {%r18, %r19, %r20, %r21};
  ret;
}
)";

// An e4m3 byte's value (sign, exponent bias 7, three mantissa bits); the inputs here are normal.
double e4m3(uint8_t byte) {
  const int e = (byte >> 3) & 0xf, m = byte & 7;
  return (byte & 0x80 ? -1.0 : 1.0) * std::ldexp(1.0 + m / 8.0, e - 7);
}

TEST(WgmmaPtx, IntegerAndHalfAccumulatorsFollowTheFragmentLayouts) {
  test::TempDir dir;
  // Bytes with e4m3 exponents 7 and 8 (1 to 3.875 in magnitude): every product and every partial
  // sum is exact in float, so the f16 result is the exact sum rounded once. Read as s8 x u8 they
  // are +-56..71 times 56..71 or 184..199.
  std::vector<uint8_t> a(2048), b(256);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>((0x38 + (i * 37) % 16) | ((i * 11) % 3 == 0 ? 0x80 : 0));
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>((0x38 + (i * 23 + 5) % 16) | ((i * 7) % 2 ? 0x80 : 0));
  dir.write("a.bin", std::string(a.begin(), a.end()));
  dir.write("b.bin", std::string(b.begin(), b.end()));
  dir.write("k.ptx", kKernel);
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [128]\nargs:\n"
                                                        "  - {buffer: {name: a, elem: u8, count: 2048, init: {file: a.bin}}}\n"
                                                        "  - {buffer: {name: b, elem: u8, count: 256, init: {file: b.bin}}}\n"
                                                        "  - {buffer: {name: out_i, elem: s32, count: 512}}\n"
                                                        "  - {buffer: {name: out_h, elem: u32, count: 256}}\n"
                                                        "  - {buffer: {name: out_r, elem: s32, count: 512}}\ndump: [out_i, out_h, out_r]\n");
  auto r = test::run_cli({"run", "--arch", "h100", launch, "--dump-dir", dir.path(""), "--checks", "error"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto A = [&](uint32_t row, uint32_t k) { return a[(row / 8) * 256 + (k / 16) * 128 + (row % 8) * 16 + k % 16]; };
  auto B = [&](uint32_t n, uint32_t k) { return b[(k / 16) * 128 + n * 16 + k % 16]; };
  const std::string out_i = test::read_file(dir.path("out_i.bin")), out_h = test::read_file(dir.path("out_h.bin")),
                    out_r = test::read_file(dir.path("out_r.bin"));
  ASSERT_EQ(out_i.size(), 2048u);
  ASSERT_EQ(out_h.size(), 1024u);
  ASSERT_EQ(out_r.size(), 2048u);
  const int64_t c[4] = {INT32_MAX - 20000, 7, INT32_MIN + 20000, -7};
  const float ch[4] = {2.0f, 1.0f, -1.0f, -3.0f};
  int clamped = 0, wrapped = 0;
  for (uint32_t tid = 0; tid < 128; ++tid) {
    const uint32_t q = tid / 32, l = tid % 32;
    for (uint32_t e = 0; e < 4; ++e) {
      const uint32_t row = 16 * q + l / 4 + 8 * ((e / 2) % 2), col = 2 * (l % 4) + e % 2;
      int64_t sum = c[e];
      double fsum = ch[e];
      for (uint32_t k = 0; k < 32; ++k) {
        sum += int64_t{static_cast<int8_t>(A(row, k))} * int64_t{B(col, k)};
        fsum -= e4m3(A(row, k)) * e4m3(B(col, k));
      }
      int32_t got, got_r;
      std::memcpy(&got, out_i.data() + 4 * (tid * 4 + e), 4);
      std::memcpy(&got_r, out_r.data() + 4 * (tid * 4 + e), 4);
      clamped += sum > INT32_MAX || sum < INT32_MIN;
      EXPECT_EQ(got, std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX)) << "thread " << tid << " element " << e;
      wrapped += sum > INT32_MAX || sum < INT32_MIN;
      EXPECT_EQ(got_r, static_cast<int32_t>(static_cast<uint32_t>(sum))) << "thread " << tid << " element " << e;
      uint32_t packed;
      std::memcpy(&packed, out_h.data() + 4 * (tid * 2 + e / 2), 4);
      const auto half = static_cast<uint16_t>(packed >> (16 * (e % 2)));
      EXPECT_EQ(half, float_to_half(static_cast<float>(fsum))) << "thread " << tid << " element " << e << ": " << half_to_float(half)
                                                                << " vs " << fsum;
    }
  }
  EXPECT_GT(clamped, 20);  // the accumulators start near both ends of the s32 range
  EXPECT_EQ(wrapped, clamped);
}

}  // namespace
}  // namespace warpsim
