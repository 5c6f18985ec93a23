// An mbarrier phase that can never complete is reported at the wait that polls it, with what the
// phase lacks, as soon as nothing in the CTA can change it; a loop that polls and still has
// something to do (a count towards its own arrive) is left to run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "support/test_support.h"

namespace warpsim {
namespace {

// One CTA of 64 threads (two warps). Thread 0 initialises the barrier for `init` arrivals,
// announces `expect` transaction bytes with its arrive and copies `copy` bytes; every thread then
// polls the phase's parity, running `between` after each failed poll (%p1: thread 0; %r10 and the
// shared word cnt start at 0).
std::string stuck_kernel(uint32_t init, uint32_t expect, uint32_t copy, const std::string& between = "") {
  return R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 tile[512];
  .shared .align 8 .b64 bar;
  .shared .align 4 .u32 cnt;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r10, 0;
  @!%p1 bra SYNC;
  st.shared.u32 [cnt], 0;
  mbarrier.init.shared::cta.b64 [bar], )" +
         std::to_string(init) + R"(;
SYNC:
  bar.sync 0;
  @!%p1 bra WAIT;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], )" +
         std::to_string(expect) + R"(;
  mov.u32 %r3, tile;
  mov.u32 %r4, bar;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1], )" +
         std::to_string(copy) + R"(, [%r4];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @%p2 bra DONE;
)" + between +
         R"(  bra WAIT;
DONE:
  shl.b32 %r7, %r1, 2;
  mov.u32 %r6, tile;
  add.s32 %r8, %r6, %r7;
  ld.shared.u32 %r9, [%r8];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r9;
  ret;
}
)";
}

// The line of the poll, as reported.
std::string wait_line(const std::string& ptx) {
  const size_t at = ptx.find("mbarrier.try_wait");
  return ":" + std::to_string(std::count(ptx.begin(), ptx.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1) + ":1: ";
}

// Bounded: should the report not come, the run ends at the livelock limit instead of hanging.
test::CliResult run_stuck(test::TempDir& dir, const std::string& ptx, const char* reconvergence = "stack") {
  dir.write("k.ptx", ptx);
  const std::string launch = dir.write("k.launch.yaml", std::string("ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [64]\nreconvergence: ") + reconvergence +
                                                            "\nmax_warp_instructions: 200000\nargs:\n"
                                                            "  - {buffer: {name: in, elem: u32, count: 128, init: {sequence: {start: 7, step: 1}}}}\n"
                                                            "  - {buffer: {name: out, elem: u32, count: 64}}\ndump: [out]\n");
  return test::run_cli({"run", "--arch", "h100", launch, "--dump-dir", dir.path(""), "-q"});
}

TEST(StuckWait, BytesThatNeverArriveAreReportedAtTheWaitUnderEitherReconvergenceModel) {
  test::TempDir dir;
  const std::string ptx = stuck_kernel(1, 512, 256);
  for (const char* model : {"stack", "independent"}) {
    const auto r = run_stuck(dir, ptx, model);
    EXPECT_EQ(r.exit_code, 3) << model;
    EXPECT_NE(r.err.find(wait_line(ptx) + "warp "), std::string::npos) << model << ": " << r.err;
    EXPECT_NE(r.err.find(" of CTA (0,0,0) waits forever on the mbarrier at shared 0x200: its phase 0 (waited for with parity 0) "
                                          "has had its 1 arrival but 256 of the transaction bytes expect_tx announced never arrive"),
              std::string::npos)
        << model << ": " << r.err;
    EXPECT_NE(r.err.find("nothing in its CTA can change that (its warps: 2 polling in loops that write nothing, 0 at barriers, 0 exited)"),
              std::string::npos)
        << model << ": " << r.err;
  }
}

TEST(StuckWait, SurplusBytesAndMissingArrivalsAreNamed) {
  test::TempDir dir;
  auto r = run_stuck(dir, stuck_kernel(1, 128, 256));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("has had its 1 arrival but 128 transaction bytes more than expect_tx announced have arrived"), std::string::npos) << r.err;
  r = run_stuck(dir, stuck_kernel(2, 256, 256));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("its phase 0 (waited for with parity 0) misses 1 of its 2 arrivals;"), std::string::npos) << r.err;
}

void expect_tile(test::TempDir& dir) {
  const std::string out = test::read_file(dir.path("out.bin"));
  ASSERT_EQ(out.size(), 64u * 4);
  for (uint32_t t = 0; t < 64; ++t) {
    uint32_t v;
    std::memcpy(&v, out.data() + 4 * t, 4);
    EXPECT_EQ(v, 7 + t) << "thread " << t;
  }
}

// Thread 0 counts its failed polls in a register and arrives once more at the 100th: its
// warp's registers change at every poll, so its loop is not one that goes round for nothing
// (warp 1's do not: its lanes skip the count). The phase completes and the tile is read.
TEST(StuckWait, APollingLoopThatCountsInRegistersIsLeftToFinish) {
  test::TempDir dir;
  const auto r = run_stuck(dir, stuck_kernel(2, 256, 256, "  @%p1 add.u32 %r10, %r10, 1;\n  setp.eq.u32 %p3, %r10, 100;\n  @%p3 mbarrier.arrive.shared::cta.b64 %rd6, [bar];\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_tile(dir);
}

// Warp 1 counts its failed polls in shared memory (registers unchanged); thread 0 reads the count
// into a register it clears again before polling, so both warps' registers repeat at every poll;
// at 100 rounds of warp 1 thread 0 arrives. The reduction is a write, so nothing is stuck.
TEST(StuckWait, APollingLoopThatCountsInMemoryIsLeftToFinish) {
  test::TempDir dir;
  const auto r = run_stuck(dir, stuck_kernel(2, 256, 256,
                                 "  @!%p1 red.shared.add.u32 [cnt], 1;\n  ld.shared.u32 %r11, [cnt];\n  setp.ge.u32 %p3, %r11, 3200;\n"
                                 "  and.pred %p3, %p3, %p1;\n  @%p3 mbarrier.arrive.shared::cta.b64 %rd6, [bar];\n  mov.u32 %r11, 0;\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_tile(dir);
}

// libcu++'s barrier wait backs off by the time it has waited (%globaltimer): the loop differs in
// its timed registers at every poll and is still seen to go round. A box smaller than the bytes
// the stuck_kernel expects (16 x 32 floats where it expects 32 x 32) never completes the phase.
TEST(StuckWait, ABackoffThatReadsTheClockIsSeenThrough) {
  test::TempDir dir;
  std::string text = test::shipped_launch("tma_transpose.launch.yaml");
  text.replace(text.find("box: [32, 32]"), 13, "box: [16, 32]");
  text += "max_warp_instructions: 2000000\n";
  const std::string launch = dir.write("k.launch.yaml", text);
  auto r = test::run_cli({"run", "--arch", "h100", "--isa", "ptx", launch, "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("has had its 128 arrivals but 2048 of the transaction bytes expect_tx announced never arrive"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(its warps: 4 polling in loops that write nothing, 0 at barriers, 0 exited)"), std::string::npos) << r.err;
  // From the SASS (SYNCS.PHASECHK in ptxas's backoff loop) the watch does not see the loop go
  // round yet: the instruction limit stops the run instead, at the loop.
  r = test::run_cli({"run", "--arch", "h100", "--isa", "sass", launch, "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("executed more than 2000000 instructions without finishing"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
