// The shared-memory kernel checkers on hand-written PTX: a race no barrier orders, a divergent
// barrier, a read of a word nothing wrote; silent on correct kernels; findings set the exit code.
#include <gtest/gtest.h>

#include <bit>
#include <filesystem>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "frontend/ptx/launch.h"
#include "support/test_support.h"
#include "unit/frontend/ptx_run.h"

namespace warpsim {
namespace {

using test::buffer;
using test::Ran;
using test::run_launch;
using test::TempDir;

// Each thread writes sdata[tid], then reads its neighbour warp's word sdata[tid ^ 32]. BARRIER
// is replaced by a bar.sync (correct) or nothing (a race), GUARD by a predicate or nothing.
std::string exchange_ptx(const std::string& barrier) {
  return std::string(R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry exchange(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 sdata[256];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, sdata;
  add.s32 %r4, %r3, %r2;
  cvt.rn.f32.u32 %f1, %r1;
  st.shared.f32 [%r4], %f1;
)") + barrier + R"(
  xor.b32 %r5, %r1, 32;
  shl.b32 %r6, %r5, 2;
  add.s32 %r7, %r3, %r6;
  ld.shared.f32 %f2, [%r7];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f2;
  ret;
}
)";
}

std::vector<ptx::Finding> findings_of(const std::string& barrier) {
  TempDir dir;
  dir.write("x.ptx", exchange_ptx(barrier));
  std::string launch = dir.write("x.launch.yaml", "ptx: x.ptx\nkernel: exchange\ngrid: [1]\nblock: [64]\nargs:\n"
                                                  "  - {buffer: {name: out, elem: f32, count: 64}}\n");
  LoadedConfig c = load_gpu_config("a100");
  ptx::PtxWorkload w(launch, 80);
  Gpu gpu(c.spec);
  simulate(gpu, w);
  return w.findings().list;
}

bool has_kind(const std::vector<ptx::Finding>& f, const std::string& kind) {
  for (const auto& x : f)
    if (x.kind == kind) return true;
  return false;
}

TEST(KernelCheckers, FindTheRaceAndStaySilentWithTheBarrier) {
  auto racy = findings_of("");
  EXPECT_TRUE(has_kind(racy, "race"));
  for (const auto& f : racy) {
    if (f.kind == "race") {
      EXPECT_NE(f.message.find("with no barrier ordering them"), std::string::npos) << f.message;
    }
  }
  EXPECT_TRUE(findings_of("  bar.sync 0;").empty());
}

TEST(KernelCheckers, DivergentBarrier) {
  auto f = findings_of("  @%p1 bar.sync 0;");
  ASSERT_TRUE(has_kind(f, "divergent-barrier"));
  for (const auto& x : f) {
    if (x.kind == "divergent-barrier") {
      EXPECT_NE(x.message.find("reached by 16 of the 32 live threads of warp 0"), std::string::npos) << x.message;
    }
  }
}

TEST(KernelCheckers, UninitialisedSharedRead) {
  // With a block of 32 threads, sdata[tid ^ 32] is a word no thread writes.
  TempDir dir;
  std::string ptx = exchange_ptx("  bar.sync 0;");
  dir.write("u.ptx", ptx);
  std::string launch = dir.write("u.launch.yaml", "ptx: u.ptx\nkernel: exchange\ngrid: [1]\nblock: [32]\nargs:\n"
                                                  "  - {buffer: {name: out, elem: f32, count: 32}}\n");
  LoadedConfig c = load_gpu_config("a100");
  ptx::PtxWorkload w(launch, 80);
  Gpu gpu(c.spec);
  simulate(gpu, w);
  ASSERT_TRUE(has_kind(w.findings().list, "uninitialized-shared-read"));
  EXPECT_NE(w.findings().list.front().message.find("which no thread has written"), std::string::npos);
}

TEST(KernelCheckers, CorrectKernelsAreSilentAndFindingsSetTheExitCode) {
  for (const char* k : {"reduce_sum", "transpose_tiled", "histogram", "softmax", "wmma_gemm"}) {
    Ran r = run_launch("h100", test::source_path(std::string("traces/kernels/") + k + ".launch.yaml"));
    EXPECT_TRUE(r.workload->findings().list.empty()) << k << ": " << r.workload->findings().list.front().message;
  }
  TempDir dir;
  dir.write("x.ptx", exchange_ptx(""));
  std::string launch = dir.write("x.launch.yaml", "ptx: x.ptx\nkernel: exchange\ngrid: [1]\nblock: [64]\nargs:\n"
                                                  "  - {buffer: {name: out, elem: f32, count: 64}}\n");
  auto error = test::run_cli({"run", "--arch", "a100", launch, "-q"});
  EXPECT_EQ(error.exit_code, 6);
  EXPECT_NE(error.err.find("warpsim: race: "), std::string::npos) << error.err;
  EXPECT_EQ(test::run_cli({"run", "--arch", "a100", launch, "-q", "--checks", "warn"}).exit_code, 0);
  // warpsim trace reports what the checkers found and writes the trace all the same.
  const auto traced = test::run_cli({"trace", "--arch", "a100", launch, "-o", dir.path("x.trace")});
  EXPECT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_NE(traced.err.find("warpsim: race: "), std::string::npos) << traced.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path("x.trace")));
  EXPECT_EQ(test::run_cli({"run", "--arch", "a100", launch, "-q", "--checks", "off"}).err, "");
}

// 64 threads store one byte each: thread t at byte 4 (t % 16) + SLOT of a 64-byte array, so the
// four threads t, t + 16, t + 32 and t + 48 (two warps) share word t % 16. With SLOT = t / 16
// each writes its own byte and nothing races (a race checker working in words would say they
// do); with SLOT = (t / 16) % 2, t and t + 32 write the same byte in different warps: a race.
std::vector<ptx::Finding> byte_store_findings(const std::string& slot) {
  TempDir dir;
  dir.write("b.ptx", R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry bytes(.param .u64 out)
{
  .reg .b16 %rs<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 sbytes[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 15;
  shl.b32 %r3, %r2, 2;
  shr.u32 %r4, %r1, 4;
)" + slot + R"(
  add.s32 %r6, %r3, %r5;
  mov.u32 %r7, sbytes;
  add.s32 %r8, %r7, %r6;
  cvt.u16.u32 %rs1, %r1;
  st.shared.u8 [%r8], %rs1;
  bar.sync 0;
  ld.shared.u8 %r9, [%r8];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
  ret;
}
)");
  std::string launch = dir.write("b.launch.yaml", "ptx: b.ptx\nkernel: bytes\ngrid: [1]\nblock: [64]\nargs:\n"
                                                  "  - {buffer: {name: out, elem: u32, count: 64}}\n");
  LoadedConfig c = load_gpu_config("a100");
  ptx::PtxWorkload w(launch, 80);
  Gpu gpu(c.spec);
  simulate(gpu, w);
  if (slot.find("and.b32") == std::string::npos) {  // each thread reads back its own byte
    const auto out = buffer<uint32_t>(w, "out");
    for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], t);
  }
  return w.findings().list;
}

TEST(KernelCheckers, ThreadsStoringDifferentBytesOfOneWordDoNotRace) {
  EXPECT_TRUE(byte_store_findings("  mov.u32 %r5, %r4;").empty());
  const auto racy = byte_store_findings("  and.b32 %r5, %r4, 1;");
  ASSERT_TRUE(has_kind(racy, "race"));
  for (const auto& f : racy) {  // the stores of t and t + 32 (warps 0 and 1), whichever ran first
    EXPECT_NE(f.message.find("b.ptx:20: thread ("), std::string::npos) << f.message;
    EXPECT_NE(f.message.find("with no barrier ordering them"), std::string::npos) << f.message;
  }
}

}  // namespace
}  // namespace warpsim
