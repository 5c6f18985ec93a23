// Instructions Hopper kernels (CUTLASS's sm90 mainloops and epilogues) use around the tensor
// cores: elect.sync, stmatrix, setmaxnreg, createpolicy and L2 bulk prefetches, in the PTX
// emulator against values worked out by hand, and in the timing model through a trace replay.
#include <gtest/gtest.h>

#include <cstring>

#include "support/test_support.h"

namespace warpsim {
namespace {

// One warp. elect.sync over all lanes and over lanes 4-7; stmatrix of one 8x8 b16 matrix whose
// lane l holds elements 2l and 2l + 1 (rows l/4, columns 2(l%4) and 2(l%4)+1); then each lane
// reads back the 32-bit word l of the tile. Out, per lane: [word, elected id, leader?, leader of 4-7?].
const char* kIdiomsKernel = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry idioms(.param .u64 out, .param .u64 src)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 tile[128];
  setmaxnreg.inc.sync.aligned.u32 232;
  createpolicy.fractional.L2::evict_last.b64 %rd5, 1.0;
  ld.param.u64 %rd6, [src];
  cp.async.bulk.prefetch.L2.global [%rd6], 256;
  mov.u32 %r1, %laneid;
  elect.sync %r2|%p1, 0xffffffff;
  mov.u32 %r9, 240;
  elect.sync _|%p2, %r9;
  selp.u32 %r3, 1, 0, %p1;
  selp.u32 %r10, 1, 0, %p2;
  shl.b32 %r4, %r1, 1;
  add.u32 %r5, %r4, 1;
  shl.b32 %r5, %r5, 16;
  or.b32 %r5, %r5, %r4;
  mov.u32 %r6, tile;
  and.b32 %r7, %r1, 7;
  shl.b32 %r7, %r7, 4;
  add.u32 %r7, %r6, %r7;
  stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r7], {%r5};
  bar.sync 0;
  shl.b32 %r8, %r1, 2;
  add.u32 %r8, %r6, %r8;
  ld.shared.u32 %r11, [%r8];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r11, %r2, %r3, %r10};
  ret;
}
)";

TEST(HopperIdioms, ElectStmatrixAndHintsRunAsThePtxIsaSays) {
  test::TempDir dir;
  dir.write("k.ptx", kIdiomsKernel);
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: idioms\ngrid: [1]\nblock: [32]\nargs:\n"
                                                        "  - {buffer: {name: out, elem: u32, count: 128}}\n"
                                                        "  - {buffer: {name: src, elem: u32, count: 64}}\ndump: [out]\n");
  auto r = test::run_cli({"run", "--arch", "h100", launch, "--dump-dir", dir.path(""), "--checks", "error", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out = test::read_file(dir.path("out.bin"));
  ASSERT_EQ(out.size(), 128u * 4);
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t v[4];
    std::memcpy(v, out.data() + 16 * l, 16);
    // The tile is the 8x8 matrix M[r][c] = 8r + c row-major, so word l holds 2l and 2l + 1.
    EXPECT_EQ(v[0], (2 * l) | ((2 * l + 1) << 16)) << l;
    EXPECT_EQ(v[1], 0u) << l;           // lane 0 leads the full warp
    EXPECT_EQ(v[2], l == 0 ? 1u : 0u) << l;
    EXPECT_EQ(v[3], l == 4 ? 1u : 0u) << l;  // the lowest lane of 0xf0
  }
  const auto replay = test::run_and_replay("h100", launch, dir);
  EXPECT_EQ(replay.direct.rfind("error", 0), std::string::npos) << replay.direct;
  EXPECT_EQ(replay.direct, replay.replay);
}

}  // namespace
}  // namespace warpsim
