// cp.async in the timing model: the copy's global read completes asynchronously, and
// cp.async.wait_group holds the warp until the groups it waits for have landed.
#include <gtest/gtest.h>

#include "config/load_config.h"
#include "frontend/ptx/launch.h"
#include "gpu/simulation.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

std::string kernel(const std::string& wait) {
  return R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 buf[512];
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
  dir.write("k.ptx", kernel(wait));
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

}  // namespace
}  // namespace warpsim
