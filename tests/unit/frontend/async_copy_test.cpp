// cp.async in the timing model: the copy's global read completes asynchronously, and
// cp.async.wait_group holds the warp until the groups it waits for have landed.
#include <gtest/gtest.h>

#include "config/load_config.h"
#include "frontend/ptx/launch.h"
#include "gpu/simulation.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

std::string async_copy_kernel(const std::string& wait) {
  return R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<3>;
  .shared .align 16 .b8 buf[512];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, buf;
  add.s32 %r4, %r3, %r2;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd1, %rd3;
  cp.async.ca.shared.global [%r4], [%rd4], 16;
  cp.async.commit_group;
)" + wait + R"(
  ld.shared.u32 %r5, [%r4];
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r5;
  ret;
}
)";
}

Cycle cycles_with(const std::string& wait) {
  test::TempDir dir;
  dir.write("k.ptx", async_copy_kernel(wait));
  std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs:\n"
                                                  "  - {buffer: {name: in, elem: u32, count: 128, init: {sequence: {start: 0, step: 1}}}}\n"
                                                  "  - {buffer: {name: out, elem: u32, count: 32}}\n");
  ptx::PtxWorkload w(launch, 80);
  GpuSpec spec = load_gpu_config("a100").spec;
  Gpu gpu(spec);
  auto runs = simulate(gpu, w).kernels;
  // The data arrived whatever the timing: lane l reads in[4 l].
  const auto& out = w.memory().find("out")->bytes;
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out[4 * l], (4 * l) & 0xff);
  return runs.at(0).cycles();
}

TEST(AsyncCopy, WaitGroupHoldsTheWarpUntilTheCopyLands) {
  GpuSpec spec = load_gpu_config("a100").spec;
  const double none = double(cycles_with("")), wait0 = double(cycles_with("  cp.async.wait_group 0;"));
  // Without the wait, the shared read and the global store run while the copy is in flight (the
  // warp only drains it at exit); with it, they start after the copy's DRAM read: the store's
  // round trip (at least an L2 round trip) is added, and the whole takes longer than a miss.
  const double l2 = spec.memory.l1.hit_latency + 2.0 * spec.memory.interconnect.latency + spec.memory.l2.hit_latency;
  EXPECT_GE(wait0 - none, l2);
  EXPECT_GT(wait0, l2 + spec.memory.hbm.latency + l2);
  EXPECT_EQ(double(cycles_with("  cp.async.wait_all;")), wait0);
  // wait_group 1 lets the newest group stay in flight: with one group, nothing to wait for.
  EXPECT_EQ(double(cycles_with("  cp.async.wait_group 1;")), none);
}

// Ampere's asynchronous barrier: cp.async.mbarrier.arrive makes the mbarrier's phase wait for
// the thread's copies (PTX ISA, "cp.async.mbarrier.arrive"), so a warp waiting on the phase
// reads the copied data only after it landed, as with wait_group; with .noinc the tracking
// arrive is one of the phase's expected arrivals, without it an extra one that cancels out.
TEST(AsyncCopy, MbarrierArriveWaitsForTheCopies) {
  GpuSpec spec = load_gpu_config("a100").spec;
  const std::string init = "  setp.eq.u32 %p2, %r1, 0;\n  @%p2 mbarrier.init.shared.b64 [bar], 32;\n  bar.sync 0;\n";
  const std::string wait = "WAIT:\n  mbarrier.test_wait.parity.shared.b64 %p1, [bar], 0;\n  @!%p1 bra WAIT;\n";
  const double untracked = double(cycles_with(init + "  mbarrier.arrive.shared.b64 %rd7, [bar];\n" + wait));
  const double noinc = double(cycles_with(init + "  cp.async.mbarrier.arrive.noinc.shared.b64 [bar];\n" + wait));
  const double counted =
      double(cycles_with(init + "  cp.async.mbarrier.arrive.shared.b64 [bar];\n  mbarrier.arrive.shared.b64 %rd7, [bar];\n" + wait));
  const double l2 = spec.memory.l1.hit_latency + 2.0 * spec.memory.interconnect.latency + spec.memory.l2.hit_latency;
  // The phase with the tracking arrive completes after the copy's DRAM read; without it, at once.
  EXPECT_GE(noinc - untracked, l2);
  EXPECT_GT(noinc, l2 + spec.memory.hbm.latency + l2);
  EXPECT_NEAR(counted, noinc, 8.0);  // one more arrive instruction
  // Before sm_80 there are no mbarriers; try_wait came with sm_90.
  test::TempDir dir;
  dir.write("k.ptx", async_copy_kernel(init + "  cp.async.mbarrier.arrive.noinc.shared.b64 [bar];\n" + wait));
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs:\n"
                                                        "  - {buffer: {name: in, elem: u32, count: 128}}\n  - {buffer: {name: out, elem: u32, count: 32}}\n");
  const auto r = test::run_cli({"run", "--arch", "v100", launch, "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("'mbarrier.init.shared.b64' needs compute capability 8.0 or later (mbarriers are Ampere's); v100 has 7.0"), std::string::npos) << r.err;
}

// warpsim trace names cp.async's pseudo registers (it used to stop with an internal error), and
// the replay waits for the same copies: the same statistics as the direct run.
TEST(AsyncCopy, TracesKeepTheCopiesPseudoRegisters) {
  test::TempDir dir;
  for (const char* k : {"ldmatrix_cp_async", "async_barrier"}) {
    const auto r = test::run_and_replay("a100", test::source_path(std::string("traces/kernels/") + k + ".launch.yaml"), dir);
    EXPECT_NE(r.trace.find("%cp_async0"), std::string::npos) << k;
    EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
    EXPECT_EQ(r.direct, r.replay) << k;
  }
}

}  // namespace
}  // namespace warpsim
