// mbarriers and bulk copies in the PTX emulator: parity waits across phases, the results against
// a CPU reference, and the faults for an mbarrier used before mbarrier.init or over-arrived.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "config/load_config.h"
#include "frontend/ptx/launch.h"
#include "gpu/simulation.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

// One CTA of 64 threads: thread 0 copies `tiles` tiles of 64 floats, one per phase of a single
// mbarrier (expected count 1: only thread 0 arrives, with expect_tx); every thread waits with
// try_wait.parity on the phase's parity, adds its element of each tile, and stores the sum.
// `init` and `arrivals` let the tests plant bugs.
std::string bulk_copy_kernel(const std::string& init = "  mbarrier.init.shared::cta.b64 [bar], 1;\n", const std::string& arrivals = "1") {
  return R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry tiles(.param .u64 in, .param .u64 out, .param .u32 tiles)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<4>;
  .shared .align 16 .b8 tile[256];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r9, [tiles];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @!%p1 bra SYNC;
)" + init + R"(SYNC:
  bar.sync 0;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r2, 0;
LOOP:
  @!%p1 bra WAIT;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 256;
  mul.wide.u32 %rd3, %r2, 256;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r3, tile;
  mov.u32 %r4, bar;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd4], 256, [%r4];
)" + (arrivals == "1" ? "" : "  mbarrier.arrive.shared::cta.b64 %rd6, [bar], " + arrivals + ";\n") + R"(WAIT:
  and.b32 %r5, %r2, 1;
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], %r5;
  @!%p2 bra WAIT;
  shl.b32 %r6, %r1, 2;
  mov.u32 %r7, tile;
  add.s32 %r8, %r7, %r6;
  ld.shared.f32 %f2, [%r8];
  add.f32 %f1, %f1, %f2;
  bar.sync 0;
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p3, %r2, %r9;
  @%p3 bra LOOP;
  mul.wide.u32 %rd7, %r1, 4;
  add.s64 %rd7, %rd2, %rd7;
  st.global.f32 [%rd7], %f1;
  ret;
}
)";
}

std::string bulk_copy_launch(test::TempDir& dir, const std::string& ptx) {
  dir.write("k.ptx", ptx);
  return dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: tiles\ngrid: [1]\nblock: [64]\nargs:\n"
                                    "  - {buffer: {name: in, elem: f32, count: 320, init: {sequence: {start: 0, step: 1}}}}\n"
                                    "  - {buffer: {name: out, elem: f32, count: 64}}\n"
                                    "  - {scalar: u32, value: 5}\ndump: [out]\n");
}

TEST(BulkCopyPtx, ParityWaitsFollowThePhasesOfOneBarrier) {
  test::TempDir dir;
  const std::string launch = bulk_copy_launch(dir, bulk_copy_kernel());
  for (const char* arch : {"h100", "b200"}) {
    auto r = test::run_cli({"run", "--arch", arch, launch, "--dump-dir", dir.path(""), "--checks", "error"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Thread t sums in[64 k + t] over the five tiles: 5 t + 64 (0 + 1 + 2 + 3 + 4), exact in float.
    const std::string out = test::read_file(dir.path("out.bin"));
    ASSERT_EQ(out.size(), 64u * 4);
    for (uint32_t t = 0; t < 64; ++t) {
      float v;
      std::memcpy(&v, out.data() + 4 * t, 4);
      EXPECT_EQ(v, float(5 * t + 640)) << arch << " thread " << t;
    }
  }
  // The same instructions replay from a trace with the same timing (the waits' phases travel).
  const auto r = test::run_and_replay("h100", launch, dir);
  EXPECT_NE(r.trace.find("mbarrier.try_wait.parity.shared::cta.b64 %p2, %r5; mbar=0x100 phase=4"), std::string::npos) << r.trace.substr(0, 2000);
  EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
}

TEST(BulkCopyPtx, MisusedBarriersAreFaultsAtTheirLine) {
  test::TempDir dir;
  auto r = test::run_cli({"run", "--arch", "h100", bulk_copy_launch(dir, bulk_copy_kernel("")), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("mbarrier at shared 0x100 used before mbarrier.init by thread (0,0,0)"), std::string::npos) << r.err;
  r = test::run_cli({"run", "--arch", "h100", bulk_copy_launch(dir, bulk_copy_kernel(
      "  mbarrier.init.shared::cta.b64 [bar], 1;\n", "3")), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("with 3 arrivals when 1 of its phase are pending"), std::string::npos) << r.err;
  // Before sm_90 transaction counts do not exist (mbarrier.init does, from sm_80): the launch is
  // refused at the first Hopper instruction by the config's capability.
  r = test::run_cli({"run", "--arch", "a100", bulk_copy_launch(dir, bulk_copy_kernel()), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.ptx:25:1: 'mbarrier.arrive.expect_tx.shared::cta.b64' needs compute capability 9.0 or later"), std::string::npos) << r.err;
  // Before sm_80 there are no mbarriers at all.
  r = test::run_cli({"run", "--arch", "v100", bulk_copy_launch(dir, bulk_copy_kernel()), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.ptx:18:1: 'mbarrier.init.shared::cta.b64' needs compute capability 8.0 or later (mbarriers are Ampere's)"), std::string::npos) << r.err;
}

// The shipped TMA bulk_copy_kernel: every box's in-bounds rows are read once from L2, sector by sector,
// and the boxes past the matrix's edge read nothing there (their zeros are never stored).
TEST(TensorCopyPtx, BoxesReadExactlyTheirInBoundsSectors) {
  const std::string launch = test::source_path("traces/kernels/tma_transpose.launch.yaml");
  const GpuSpec spec = load_gpu_config("h100").spec;
  ptx::PtxWorkload workload(launch, spec.compute_capability);
  Gpu gpu(spec);
  const auto runs = simulate(gpu, workload).kernels;
  auto sum = [&](const char* name) { return gpu.stats().sum(name, runs.at(0).stats); };
  uint64_t sectors = 0;
  const uint64_t width = 100, height = 70, row_bytes = width * 4, sector = spec.memory.sector_bytes;
  for (uint64_t by = 0; by < 3; ++by)
    for (uint64_t bx = 0; bx < 4; ++bx)
      for (uint64_t y = by * 32; y < std::min(by * 32 + 32, height); ++y) {
        const uint64_t from = y * row_bytes + bx * 32 * 4, to = y * row_bytes + std::min(bx * 32 + 32, width) * 4;
        sectors += (to - 1) / sector - from / sector + 1;
      }
  EXPECT_EQ(sum("gpu.sm[*].bulk_copy.sectors"), sectors);
  EXPECT_EQ(sum("gpu.sm[*].bulk_copy.copies"), 12u);
}

TEST(TensorCopyPtx, TensorMapArgumentsAreChecked) {
  test::TempDir dir;
  std::string text = test::shipped_launch("tma_transpose.launch.yaml");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return test::run_cli({"run", "--arch", "h100", dir.write("k.launch.yaml", t), "-q"});
  };
  auto r = with("box: [32, 32]", "box: [2, 32]");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.launch.yaml:13:64:"), std::string::npos) << r.err;  // at the box
  EXPECT_NE(r.err.find("the box's inner extent must be a multiple of 16 bytes"), std::string::npos) << r.err;
  r = with("dims: [100, 70]", "dims: [100, 70, 1, 1, 1, 1]");
  EXPECT_NE(r.err.find("tensor maps have rank 1 to 5; got 6 dimensions"), std::string::npos) << r.err;
  r = with("box: [32, 32]", "box: [32, 32], swizzle: 64B");
  EXPECT_NE(r.err.find("a 64B swizzle needs a box whose inner extent is at most 64 bytes; this one has 128"), std::string::npos) << r.err;
  r = with("box: [32, 32]", "box: [32, 32], swizzle: 16B");
  EXPECT_NE(r.err.find("swizzle"), std::string::npos) << r.err;
  r = with("box: [32, 32]", "box: [32, 32], strides: [400, 28000]");
  EXPECT_NE(r.err.find("'strides' gives the bytes between consecutive indices of dimensions 1 and up: 1 value(s)"), std::string::npos) << r.err;
  r = with("dims: [100, 70]", "dims: [100, 80]");
  EXPECT_NE(r.err.find("the tensor map spans 32000 bytes; buffer 'in' has 28000"), std::string::npos) << r.err;
  r = with("buffer: in, elem", "buffer: nope, elem");
  EXPECT_NE(r.err.find("no buffer 'nope'"), std::string::npos) << r.err;
}

// The shipped TMA store: each CTA's 1 KiB tile reaches L2 as 32 sectors written by the copy
// engine, and the issuing warp's wait_group holds it until they are acknowledged (an L2 round
// trip at least); the trace replays it to the cycle.
TEST(BulkStorePtx, TilesReachL2AndTheWaitHoldsForTheAcknowledgements) {
  test::TempDir dir;
  const auto r = test::run_and_replay("h100", test::source_path("traces/kernels/bulk_store.launch.yaml"), dir);
  EXPECT_NE(r.trace.find("cp.async.bulk.global.shared::cta.bulk_group"), std::string::npos);
  EXPECT_NE(r.trace.find("tx=1024"), std::string::npos);
  EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
  auto run = test::simulate_text("h100", r.trace);
  EXPECT_EQ(run.sum("gpu.sm[*].bulk_copy.copies"), 8u);
  EXPECT_EQ(run.sum("gpu.sm[*].bulk_copy.sectors"), 8u * 1024 / 32);
  const GpuSpec& spec = run.config.spec;
  EXPECT_GT(double(run.kernels.at(0).cycles), 2.0 * spec.memory.interconnect.latency + spec.memory.l2.hit_latency);
  EXPECT_GT(run.kernels.at(0).stalls[static_cast<size_t>(StallReason::kMembar)], 0.0);
}

}  // namespace
}  // namespace warpsim
