// The checker for shuffles that read a lane not taking part: CUDA leaves the value undefined
// ("Warp Shuffle Functions"), and a reduction over a partial warp that shuffles with the full
// mask reads lanes that do not exist. And the one for warp collectives (shfl, vote, match,
// redux .sync) run by a lane whose membermask leaves it out, which the PTX ISA leaves undefined.
#include <gtest/gtest.h>

#include <string>

#include "support/test_support.h"

namespace warpsim {
namespace {

using test::TempDir;

// Each thread adds the value 8 lanes down (shfl.sync.down, width 32, full membermask) to its
// thread index and stores the sum.
const char* kShuffleKernel = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shfl.sync.down.b32 %r2, %r1, 8, 31, -1;
  add.s32 %r3, %r1, %r2;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";

test::CliResult run_shuffles(const TempDir& dir, int threads) {
  dir.write("k.ptx", kShuffleKernel);
  const std::string file = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [" + std::to_string(threads) +
                                                          "]\nargs:\n  - {buffer: {name: out, elem: u32, count: 64}}\n");
  return test::run_cli({"run", "--arch", "a100", file, "-q"});
}

TEST(ShuffleCheck, ReadingALaneThatDoesNotTakePartIsReported) {
  TempDir dir;
  // 64 threads: every source lane (up to 31) exists. 48 threads: the second warp has lanes 0-15
  // only, so its lanes 8-15 read lanes 16-23, which do not exist.
  const auto full = run_shuffles(dir, 64);
  EXPECT_EQ(full.exit_code, 0) << full.err;
  const auto partial = run_shuffles(dir, 48);
  EXPECT_EQ(partial.exit_code, 6);
  EXPECT_NE(partial.err.find("k.ptx:10: thread (40,0,0) of CTA (0,0,0) reads lane 16 with shfl.sync.down.b32, but lane 16 is not taking part "
                             "(it has exited, or is outside the membermask), so the value is undefined"),
            std::string::npos)
      << partial.err;
}

// Each lane votes with the membermask `mask` computes into %r4 from its lane (%r1 < 16 in %p1).
std::string vote_kernel(const std::string& mask) {
  return R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  )" + mask + R"(;
  vote.sync.ballot.b32 %r2, %p1, %r4;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";
}

TEST(ShuffleCheck, ALaneOutsideItsOwnMembermaskIsReported) {
  TempDir dir;
  auto run_vote = [&](const std::string& mask) {
    dir.write("k.ptx", vote_kernel(mask));
    const std::string file = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs:\n  - {buffer: {name: out, elem: u32, count: 32}}\n");
    return test::run_cli({"run", "--arch", "a100", file, "-q"});
  };
  // Each half of the warp votes with its own half's mask, as 16-lane tiles do: fine.
  const auto halves = run_vote("selp.b32 %r4, 65535, -65536, %p1");
  EXPECT_EQ(halves.exit_code, 0) << halves.err;
  // Every lane names only lanes 0-15: lanes 16-31 run the vote outside their membermask.
  const auto low = run_vote("mov.b32 %r4, 65535");
  EXPECT_EQ(low.exit_code, 6);
  EXPECT_NE(low.err.find("lane-outside-membermask: "), std::string::npos) << low.err;
  EXPECT_NE(low.err.find("k.ptx:13: thread (16,0,0) of CTA (0,0,0) (lane 16) runs vote.sync.ballot.b32 with membermask 0xffff, which does not "
                         "name it; each calling thread must be in the mask"),
            std::string::npos)
      << low.err;
}

}  // namespace
}  // namespace warpsim
