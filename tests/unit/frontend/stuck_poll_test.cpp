// A warp that polls memory nothing in the grid can change any more (a hand-rolled grid barrier
// counting one CTA too many, a cooperative grid.sync() one CTA returned before) is reported at
// its poll as soon as every CTA has begun and every other warp has exited, waits at a barrier or
// polls too; polls that another CTA will satisfy, after work of its own or once it has begun, are
// left to run.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "frontend/ptx/launch.h"
#include "frontend/trace/trace_writer.h"

#include "support/test_support.h"

namespace warpsim {
namespace {

// Thread 0 of each CTA adds one to `count`, then polls it with `poll` (into %r4) until it
// reaches `expected`; after a barrier every thread stores what it reads of `count`.
std::string grid_barrier(const std::string& poll) {
  return R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 count, .param .u64 out, .param .u32 expected)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [count];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r2, [expected];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SYNC;
  atom.global.add.u32 %r3, [%rd1], 1;
SPIN:
  )" + poll + R"(
  setp.lt.u32 %p2, %r4, %r2;
  @%p2 bra SPIN;
SYNC:
  bar.sync 0;
  ld.volatile.global.u32 %r5, [%rd1];
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %ntid.x;
  mad.lo.u32 %r8, %r6, %r7, %r1;
  mul.wide.u32 %rd3, %r8, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r5;
  ret;
}
)";
}

std::string line_of(const std::string& text, const std::string& what) {
  const size_t at = text.find(what);
  return std::to_string(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1);
}

// Bounded: should the report not come, the run ends at the livelock limit instead of hanging.
test::CliResult run_barrier(test::TempDir& dir, const std::string& ptx, uint32_t expected, const char* reconvergence) {
  dir.write("k.ptx", ptx);
  const std::string launch = dir.write(
      "k.launch.yaml", std::string("ptx: k.ptx\nkernel: k\ngrid: [4]\nblock: [64]\nreconvergence: ") + reconvergence +
                           "\nmax_warp_instructions: 200000\nargs:\n  - {buffer: {name: count, elem: u32, count: 1, init: zeros}}\n"
                           "  - {buffer: {name: out, elem: u32, count: 256}}\n  - {scalar: u32, value: " + std::to_string(expected) +
                           "}\ndump: [out]\n");
  return test::run_cli({"run", "--arch", "h100", launch, "--dump-dir", dir.path(""), "-q"});
}

const char* const kPolls[] = {"ld.volatile.global.u32 %r4, [%rd1];", "ld.acquire.gpu.global.u32 %r4, [%rd1];",
                              "atom.global.add.u32 %r4, [%rd1], 0;"};

TEST(StuckPoll, AGridBarrierCountingOneCtaTooManyIsReportedAtItsPoll) {
  test::TempDir dir;
  for (const char* poll : kPolls)
    for (const char* model : {"stack", "independent"}) {
      const std::string ptx = grid_barrier(poll);
      const auto r = run_barrier(dir, ptx, 5, model);
      EXPECT_EQ(r.exit_code, 3) << poll << model;
      EXPECT_NE(r.err.find("k.ptx:" + line_of(ptx, poll) + ":1: warp 0 of CTA ("), std::string::npos) << poll << model << ": " << r.err;
      EXPECT_NE(r.err.find(" waits forever: its loop (lines " + line_of(ptx, poll) + "-" + line_of(ptx, "@%p2 bra SPIN;") + ") polls "),
                std::string::npos)
          << poll << model << ": " << r.err;
      // Four CTAs have added one each; the other three CTAs' thread 0 polls as well, and the
      // rest of each CTA waits at its barrier: one warp in the poller's CTA, two in each other.
      EXPECT_NE(r.err.find("polls byte 0 of buffer 'count' (its 4 bytes hold 4), which nothing in the grid can change (the grid's 4 CTAs "
                           "have all begun; the other warps of those still running: 3 polling in loops that write nothing, 4 at barriers, "
                           "0 exited"),
                std::string::npos)
          << poll << model << ": " << r.err;
      // The lanes waiting behind thread 0's loop at the barrier did not take the count: no lock note.
      EXPECT_EQ(r.err.find("reconvergence stack"), std::string::npos) << poll << model << ": " << r.err;
    }
}

// The right count for a grid larger than the GPU holds (H100: two 1024-thread CTAs per SM, 264 in
// all, for 300): the resident CTAs wait for CTAs that can begin only when one of them exits.
TEST(StuckPoll, AGridBarrierOverMoreCtasThanTheGpuHoldsIsReported) {
  test::TempDir dir;
  const std::string ptx = grid_barrier(kPolls[0]);
  dir.write("k.ptx", ptx);
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [300]\nblock: [1024]\nmax_warp_instructions: 200000\nargs:\n"
                                                        "  - {buffer: {name: count, elem: u32, count: 1, init: zeros}}\n"
                                                        "  - {buffer: {name: out, elem: u32, count: 307200}}\n  - {scalar: u32, value: 300}\n");
  const auto r = test::run_cli({"run", "--arch", "h100", launch, "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("polls byte 0 of buffer 'count' (its 4 bytes hold 264), which nothing in the grid can change (the GPU holds 264 of "
                       "the grid's 300 CTAs at once; 264 have begun; the other warps of those still running: 263 polling in loops that "
                       "write nothing, 8184 at barriers, 0 exited; the 36 not yet begun cannot begin until a resident one exits: a wait "
                       "across the grid needs every CTA resident at once, which a cooperative launch checks)"),
            std::string::npos)
      << r.err;
  // warpsim trace runs the same timing model, which tells the emulator how many CTAs it holds.
  const auto t = test::run_cli({"trace", "--arch", "h100", launch, "-o", dir.path("t.trace")});
  EXPECT_EQ(t.exit_code, 3);
  EXPECT_NE(t.err.find("the 36 not yet begun cannot begin until a resident one exits"), std::string::npos) << t.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("t.trace")));
}

TEST(StuckPoll, TheSameBarrierWithTheRightCountCompletes) {
  test::TempDir dir;
  for (const char* poll : kPolls)
    for (const char* model : {"stack", "independent"}) {
      const auto r = run_barrier(dir, grid_barrier(poll), 4, model);
      ASSERT_EQ(r.exit_code, 0) << poll << model << r.err;
      const auto out = test::read_words(dir.path("out.bin"));
      ASSERT_EQ(out.size(), 256u);
      for (uint32_t t = 0; t < 256; ++t) EXPECT_EQ(out[t], 4u) << poll << model << " thread " << t;
    }
}

// Cooperative groups' grid.sync() in the shipped stencil, with CTA 5 returning first: the others
// wait in the driver's grid-barrier workspace for an arrival that never comes.
TEST(StuckPoll, ACtaThatReturnsBeforeGridSyncIsReported) {
  test::TempDir dir;
  std::string ptx = test::read_file(test::source_path("traces/kernels/ptx/grid_sync.sm_90.ptx"));
  const size_t body = ptx.find('{', ptx.find(".entry grid_stencil"));
  ptx.insert(body + 1, "\n.reg .pred %q<2>;\n.reg .b32 %s<2>;\nmov.u32 %s0, %ctaid.x;\nsetp.eq.u32 %q0, %s0, 5;\n@%q0 ret;\n");
  dir.write("grid_sync.sm_90.ptx", ptx);
  std::string text = test::read_file(test::source_path("traces/kernels/grid_sync.launch.yaml"));
  text.replace(text.find("ptx/"), 4, "");
  text.replace(text.find("expect:"), std::string::npos, "max_warp_instructions: 200000\n");
  const auto r = test::run_cli({"run", "--arch", "h100", dir.write("k.launch.yaml", text), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(" waits forever: its loop (lines "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" of buffer '<grid barrier of launch 1>' (its 4 bytes hold "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("which nothing in the grid can change (the grid's 16 CTAs have all begun, 1 of them exited; the other warps of "
                       "those still running: "),
            std::string::npos)
      << r.err;
}

// CTAs pass a token in reverse launch order: each CTA's thread 0 polls until the token is its
// turn, then works for a while in registers alone (the others' polls repeat meanwhile, but it
// may still write) and passes the token on. Nothing is reported; the output follows the turns.
const char* const kTokenPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 token, .param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [token];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %nctaid.x;
  sub.u32 %r8, %r7, %r6;
  sub.u32 %r8, %r8, 1;
WAIT:
  ld.volatile.global.u32 %r4, [%rd1];
  setp.ne.u32 %p2, %r4, %r8;
  @%p2 bra WAIT;
  mov.u32 %r10, 0;
  mov.u32 %r11, 0;
WORK:
  add.u32 %r10, %r10, %r11;
  add.u32 %r11, %r11, 1;
  setp.lt.u32 %p3, %r11, 1000;
  @%p3 bra WORK;
  add.u32 %r10, %r10, %r4;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r10;
  atom.global.add.u32 %r12, [%rd1], 1;
DONE:
  ret;
}
)";

std::string token_launch(test::TempDir& dir, const char* model, uint64_t limit, uint32_t block = 64) {
  dir.write("k.ptx", kTokenPtx);
  return dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [16]\nblock: [" + std::to_string(block) + "]\nreconvergence: " + model +
                                        "\nmax_warp_instructions: " + std::to_string(limit) + "\nargs:\n"
                                        "  - {buffer: {name: token, elem: u32, count: 1, init: zeros}}\n"
                                        "  - {buffer: {name: out, elem: u32, count: 16}}\ndump: [out]\n");
}

TEST(StuckPoll, PollsAnotherCtaWillSatisfyAfterItsWorkAreLeftToRun) {
  test::TempDir dir;
  for (const char* model : {"stack", "independent"}) {
    const auto r = test::run_cli({"run", "--arch", "h100", token_launch(dir, model, 10'000'000), "--dump-dir", dir.path(""), "-q"});
    ASSERT_EQ(r.exit_code, 0) << model << r.err;
    const auto out = test::read_words(dir.path("out.bin"));
    ASSERT_EQ(out.size(), 16u);
    for (uint32_t c = 0; c < 16; ++c) EXPECT_EQ(out[c], 999u * 1000 / 2 + (15 - c)) << model << " CTA " << c;
  }
}

// Emulated one CTA at a time, without the timing model (TraceWriter::workload, which writes
// traces for front ends that have no timing of their own): CTA 0 waits for a token CTA 15
// passes, and CTA 15 has not begun. That is not a proof of a hang (a GPU would run it), so the
// run ends at the livelock limit, which says what the poll waits on. (One warp per CTA: every
// other warp of the grid begun so far has exited.) warpsim trace, which runs the timing model,
// traces the same launch: all 16 CTAs are resident at once.
TEST(StuckPoll, APollWhileCtasHaveNotBegunEndsAtTheLimitSayingSo) {
  test::TempDir dir;
  const std::string launch = token_launch(dir, "stack", 20'000, 32);
  ptx::PtxWorkload workload(launch, 90);
  std::ostringstream out;
  TraceWriter writer(out);
  try {
    writer.workload(workload, [](RegId r) { return "%r" + std::to_string(r); });
    ADD_FAILURE() << "the poll cannot end";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("waits forever"), std::string::npos) << what;
    EXPECT_NE(what.find("; it polls memory (line 19), and 15 of the grid's 16 CTAs had not begun: a CTA that waits for another through "
                        "memory needs that one resident at the same time, which only a cooperative launch promises"),
              std::string::npos)
        << what;
  }
  EXPECT_EQ(test::run_cli({"trace", "--arch", "h100", launch, "-o", dir.path("t.trace")}).exit_code, 0);
}

// V100 holds 160 CTAs of 1024 threads. CTA 159 polls a flag the grid's last CTA (199) sets; that
// CTA begins only when earlier ones have exited, and the kernel completes. (While it polls, CTAs
// begin as others exit, so some warp of the grid always still runs; the trace test above has a
// grid that stays open while nothing else runs.)
TEST(StuckPoll, APollForACtaNotYetBegunIsLeftToRun) {
  const std::string ptx = R"(.version 8.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 flag)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [flag];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  setp.eq.u32 %p2, %r2, 199;
  @%p2 st.volatile.global.u32 [%rd1], 1;
  setp.ne.u32 %p3, %r2, 159;
  @%p3 bra DONE;
WAIT:
  ld.volatile.global.u32 %r4, [%rd1];
  setp.eq.u32 %p2, %r4, 0;
  @%p2 bra WAIT;
DONE:
  ret;
}
)";
  test::TempDir dir;
  dir.write("k.ptx", ptx);
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [200]\nblock: [1024]\nmax_warp_instructions: 10000000\n"
                                                        "args:\n  - {buffer: {name: flag, elem: u32, count: 1, init: zeros}}\n");
  const auto r = test::run_cli({"run", "--arch", "v100", launch, "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace warpsim
