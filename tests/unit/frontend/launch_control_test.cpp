// Cluster launch control (Blackwell's clusterlaunchcontrol): a running CTA cancels CTAs the GPU
// has not launched yet and does their work. Expectations come from the occupancy arithmetic
// (which CTAs are resident at once), from invariants (every CTA of the grid runs or is
// cancelled, exactly once) and from the configured latency, not from the model's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config/load_config.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

// One counter from `warpsim run --stats FILE.csv` output (summed over SMs where it is per SM).
uint64_t stat(const std::string& csv, const std::string& counter) {
  std::istringstream in(csv);
  uint64_t total = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, std::regex(",\"" + counter + "\",([0-9]+),"))) total += std::stoull(m[1]);
  }
  return total;
}

test::CliResult run_with_stats(const test::TempDir& dir, const std::string& launch, const std::string& arch = "b200") {
  return test::run_cli({"run", "--arch", arch, launch, "-q", "--stats", dir.path("stats.csv")});
}

// B200 holds 8 of the kernel's 256-thread CTAs per SM (64 warps), 1184 in all: the first 1184 of
// the 2048 run, and each of the other 864 is cancelled by one of them, whose tile it then does
// (the reference check fails if any tile were done twice or not at all).
TEST(LaunchControl, ShippedKernelCancelsEveryCtaBeyondThoseTheGpuHolds) {
  test::TempDir dir;
  const auto r = run_with_stats(dir, test::source_path("traces/kernels/work_stealing.launch.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string stats = test::read_file(dir.path("stats.csv"));
  EXPECT_EQ(stat(stats, "gpu.ctas_cancelled"), 2048u - 148u * 8u);
  EXPECT_EQ(stat(stats, R"(gpu\.sm\[\d+\]\.ctas_launched)"), 148u * 8u);
}

// A grid the GPU holds whole leaves nothing to cancel: every request fails, every CTA runs once.
TEST(LaunchControl, AGridTheGpuHoldsCancelsNothing) {
  test::TempDir dir;
  std::string launch = test::shipped_launch("work_stealing.launch.yaml");
  launch = std::regex_replace(launch, std::regex(R"(grid: \[2048, 1, 1\])"), "grid: [200, 1, 1]");
  launch = std::regex_replace(launch, std::regex("value: 524288"), "value: 51200");
  launch = launch.substr(0, launch.find("dump:"));
  const auto r = run_with_stats(dir, dir.write("k.launch.yaml", launch));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string stats = test::read_file(dir.path("stats.csv"));
  EXPECT_EQ(stat(stats, "gpu.ctas_cancelled"), 0u);
  EXPECT_EQ(stat(stats, R"(gpu\.sm\[\d+\]\.ctas_launched)"), 200u);
}

// The shipped kernel made small: 400 CTAs of 64 threads, each with 100000 bytes of dynamic shared
// memory, so B200 holds 2 per SM (228 KiB of shared memory each; 296 in all) and 104 are cancelled.
std::string small_work_stealing(const test::TempDir& dir) {
  std::string launch = test::shipped_launch("work_stealing.launch.yaml");
  launch = std::regex_replace(launch, std::regex(R"(grid: \[2048, 1, 1\])"), "grid: [400, 1, 1]");
  launch = std::regex_replace(launch, std::regex(R"(block: \[256, 1, 1\])"), "block: [64, 1, 1]\ndynamic_shared_bytes: 100000");
  launch = std::regex_replace(launch, std::regex("value: 524288"), "value: 25600");
  return dir.write("small.launch.yaml", launch.substr(0, launch.find("dump:")));
}

TEST(LaunchControl, ReplaysFromItsTraceWithTheCancelledCtasListed) {
  test::TempDir dir;
  const auto r = test::run_and_replay("b200", small_work_stealing(dir), dir);
  EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
  EXPECT_NE(r.trace.find("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 %r18, %r19; mbar=0x10 tx=16"),
            std::string::npos);
  // In launch order, the CTAs after the 296 the GPU held.
  std::set<uint32_t> ids;
  size_t lines = 0;
  std::istringstream in(r.trace);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, std::regex(R"(\.cancelled (\d+) 0 0)"))) ++lines, ids.insert(static_cast<uint32_t>(std::stoul(m[1])));
  }
  EXPECT_EQ(lines, 104u);
  ASSERT_EQ(ids.size(), 104u);
  EXPECT_EQ(*ids.begin(), 296u);
  EXPECT_EQ(*ids.rbegin(), 399u);
}

// A kernel in clusters of two with a 16-byte answer (%r1) and its mbarrier (%r2) initialised,
// %p1 true in rank 0.
const std::string kClusterPtxHead = R"(.version 8.7
.target sm_100
.address_size 64
.visible .entry k(.param .u64 out) .explicitcluster .reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  .reg .b128 %q<2>;
  .shared .align 16 .b8 answer[16];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, answer;
  mov.u32 %r2, bar;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  mov.u32 %r3, %cluster_ctarank;
  setp.eq.u32 %p1, %r3, 0;
)";

// Clusters of two, each CTA one thread holding a whole SM's shared memory (one CTA per SM), so only
// some clusters fit at once. Rank 0 of each cluster asks once, multicasting the answer to both
// CTAs; each CTA writes out[4 ctaid ..] = {1 + cancelled, first ctaid x, y, z} and exits.
const std::string kClusterPtx = kClusterPtxHead + R"(  barrier.cluster.arrive;
  barrier.cluster.wait;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 16;
  @%p1 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [%r1], [%r2];
wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  @!%p2 bra wait;
  ld.shared.b128 %q1, [%r1];
  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p2, %q1;
  selp.u32 %r4, 2, 1, %p2;
  clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r5, %r6, %r7, _}, %q1;
  clusterlaunchcontrol.query_cancel.get_first_ctaid::y.b32.b128 %r8, %q1;
  add.u32 %r6, %r6, %r8;
  mov.u32 %r9, %ctaid.x;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r9, 16;
  add.u64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r4, %r5, %r6, %r7};
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

std::string cluster_launch(unsigned ctas) {
  return "ptx: k.ptx\nkernel: k\ngrid: [" + std::to_string(ctas) +
         ", 1, 1]\nblock: [1, 1, 1]\ndynamic_shared_bytes: 200000\nargs:\n  - {buffer: {name: out, elem: u32, count: " + std::to_string(4 * ctas) +
         "}}\ndump: [out]\n";
}

TEST(LaunchControl, AMulticastAnswerReachesBothCtasOfTheClusterAndEachCtaRunsOrIsCancelledOnce) {
  const unsigned ctas = 600;
  const std::string bytes = test::run_and_dump("b200", kClusterPtx, cluster_launch(ctas), "out");
  ASSERT_EQ(bytes.size(), ctas * 16u);
  std::vector<uint32_t> out(ctas * 4);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  std::map<uint32_t, int> fate;  // CTA -> 1 ran, 2 cancelled
  unsigned successes = 0;
  for (uint32_t c = 0; c < ctas; ++c) {
    const uint32_t* o = &out[4 * c];
    if (o[0] == 0) continue;  // never ran: must have been cancelled
    fate[c] += 1;
    // Both CTAs of a cluster read the one answer rank 0 asked for.
    const uint32_t* peer = &out[4 * (c ^ 1)];
    EXPECT_EQ(std::vector<uint32_t>(o, o + 4), std::vector<uint32_t>(peer, peer + 4)) << "CTA " << c;
    if (o[0] == 2 && c % 2 == 0) {
      ++successes;
      EXPECT_EQ(o[1] % 2, 0u) << "a cluster's first CTA has an even x";
      EXPECT_EQ(o[2], 0u);  // y, read twice (v4 and ::y) and added
      EXPECT_EQ(o[3], 0u);
      fate[o[1]] += 2;
      fate[o[1] + 1] += 2;
    }
  }
  EXPECT_GT(successes, 0u) << "the grid is larger than what B200 holds at once, so some requests succeed";
  for (uint32_t c = 0; c < ctas; ++c) EXPECT_TRUE(fate[c] == 1 || fate[c] == 2) << "CTA " << c << ": " << fate[c];
}

// Clusters of two that keep stealing until the answer says nothing is left (rank 0 asks, the
// answer goes to both). The CTA scheduler takes a cluster from the grid only when a GPC has room
// for it, so every cluster beyond those that fit at once is cancelled: exactly the clusters B200's
// GPCs hold (one CTA per SM here) run.
const std::string kStealingClusterPtx = kClusterPtxHead + R"(  mov.u32 %r10, 0;
again:
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 16;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  @%p1 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [%r1], [%r2];
wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r10;
  @!%p2 bra wait;
  xor.b32 %r10, %r10, 1;
  ld.shared.b128 %q1, [%r1];
  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p2, %q1;
  @%p2 bra again;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";

TEST(LaunchControl, AClusterWaitingForRoomHasNotLaunchedAndCanBeCancelled) {
  test::TempDir dir;
  dir.write("k.ptx", kStealingClusterPtx);
  const auto r = run_with_stats(dir, dir.write("k.launch.yaml", cluster_launch(600)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const GpuSpec b200 = load_gpu_config("b200", {}).spec;
  uint64_t fit = 0;
  for (uint32_t g = 0; g < b200.topology.gpcs; ++g) fit += b200.topology.sms_in_gpc(g) / 2 * 2;
  const std::string stats = test::read_file(dir.path("stats.csv"));
  EXPECT_EQ(stat(stats, R"(gpu\.sm\[\d+\]\.ctas_launched)"), fit);
  EXPECT_EQ(stat(stats, "gpu.ctas_cancelled"), 600 - fit);
}

// One warp asks and waits: the wait ends after the configured round trip, so raising the latency
// by 1000 cycles lengthens the kernel by exactly 1000.
std::string one_request_trace() {
  return test::kernel_header("k", 1, 32, 64) +
         ".cta 0 0 0\n.warp 0\n"
         "00000001 mbarrier.init.shared::cta.b64 [%r1], 1; mbar=0x20 count=1\n"
         "00000001 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 16; mbar=0x20 arrive=1 tx=16\n"
         "00000001 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r2], [%r1]; mbar=0x20\n"
         "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r3; mbar=0x20 phase=0\n"
         "@%p1 add.u32 %r4, %r4, 1\n";
}

TEST(LaunchControl, TheAnswerArrivesAfterTheSchedulersRoundTrip) {
  const auto base = test::simulate_text("b200", one_request_trace());
  const auto slower = test::simulate_text("b200", one_request_trace(), {"clusters.launch_control_latency=1297"});
  EXPECT_EQ(base.config.spec.clusters.launch_control_latency, 297u);
  EXPECT_EQ(slower.runs.at(0).cycles() - base.runs.at(0).cycles(), 1000u);
}

TEST(LaunchControl, BeforeBlackwellItIsAnErrorNamingTheComputeCapability) {
  test::TempDir dir;
  const auto r = test::run_cli({"run", "--arch", "h100", dir.write("k.trace", one_request_trace()), "-q"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("k.trace:11:1: 'clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128' needs compute "
                       "capability 10.0 or later (cluster launch control is Blackwell's); h100 has 9.0"),
            std::string::npos)
      << r.err;
  // A config cannot give it to an older GPU either.
  std::string h100 = test::read_file(test::source_path("configs/h100.yaml"));
  h100.replace(h100.find("clusters:"), 9, "clusters:\n  launch_control_latency: 100");
  const auto c = test::run_cli({"run", "--arch", dir.write("old.yaml", h100), dir.path("k.trace"), "-q"});
  EXPECT_TRUE(std::regex_search(c.err, std::regex(R"(old\.yaml:\d+:\d+: clusters\.launch_control_latency: cluster launch control needs compute capability 10\.0 or later)")))
      << c.err;
}

TEST(LaunchControl, TraceCancelledLinesAreCheckedLikeCtas) {
  const std::string warp = ".warp 0\n00000001 add.u32 %r1, %r1, 1\n";
  auto run = [&](const std::string& body) {
    test::TempDir dir;
    return test::run_cli({"run", "--arch", "b200", dir.write("t.trace", test::kernel_header("k", 3, 32) + body), "-q"});
  };
  EXPECT_EQ(run(".cta 0 0 0\n" + warp + ".cancelled 1 0 0\n.cta 2 0 0\n" + warp).exit_code, 0);
  auto r = run(".cta 0 0 0\n" + warp + ".cancelled 0 0 0\n.cancelled 1 0 0\n");
  EXPECT_NE(r.err.find("CTA (0,0,0) is listed twice"), std::string::npos) << r.err;
  r = run(".cta 0 0 0\n" + warp + ".cancelled 5 0 0\n");
  EXPECT_NE(r.err.find("CTA (5,0,0) lies outside the grid (3,1,1)"), std::string::npos) << r.err;
  r = run(".cta 0 0 0\n" + warp + ".cancelled 1 0 0\n");
  EXPECT_NE(r.err.find("kernel 'k' has a grid of 3 CTAs but the trace lists 1 and 1 cancelled"), std::string::npos) << r.err;
}

// A kernel of one CTA with a 16-byte-aligned answer slot (%r1) and an initialised mbarrier (%r2).
const std::string kOneCtaHead = R"(.version 8.7
.target sm_100
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .pred %p<4>;
  .reg .b128 %q<2>;
  .shared .align 16 .b8 answer[32];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, answer;
  mov.u32 %r2, bar;
  mbarrier.init.shared::cta.b64 [%r2], 1;
)";

// One thread asks, waits for the answer and reads it; a grid of one CTA leaves nothing to cancel,
// so the first answer says "failed". `again` is the branch back to the request.
std::string asking_kernel(const std::string& again) {
  return kOneCtaHead + R"(  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
ask:
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 16;
  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r1], [%r2];
wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r3;
  @!%p2 bra wait;
  ld.shared.b128 %q1, [%r1];
  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %q1;
  xor.b32 %r3, %r3, 1;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p3, %r4, 2;
)" + again + R"(
  ret;
}
)";
}

uint32_t line_of(const std::string& text, const std::string& what) {
  return static_cast<uint32_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(text.find(what)), '\n') + 1);
}

// The PTX ISA leaves a try_cancel undefined once the CTA has seen one fail; the checker says so at
// the request, naming where the failure was read. Stopping at the first failure is silent.
TEST(LaunchControl, AskingAgainAfterAFailureIsReported) {
  test::TempDir dir;
  const std::string launch = "ptx: k.ptx\nkernel: k\ngrid: [1, 1, 1]\nblock: [1, 1, 1]\nargs:\n  - {buffer: {name: out, elem: u32, count: 4}}\n";
  const std::string stops = asking_kernel("  @%p1 bra ask;");
  dir.write("k.ptx", stops);
  auto r = test::run_cli({"run", "--arch", "b200", dir.write("k.launch.yaml", launch), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("try-cancel-after-failure"), std::string::npos) << r.err;

  const std::string asks_twice = asking_kernel("  @%p3 bra ask;");
  dir.write("k.ptx", asks_twice);
  r = test::run_cli({"run", "--arch", "b200", dir.path("k.launch.yaml"), "-q"});
  EXPECT_EQ(r.exit_code, 6);
  const std::string expected = "try-cancel-after-failure: " + dir.path("k.ptx") + ":" + std::to_string(line_of(asks_twice, "clusterlaunchcontrol.try_cancel")) +
                               ": thread (0,0,0) of CTA (0,0,0) issues clusterlaunchcontrol.try_cancel after its CTA saw a request fail "
                               "(query_cancel.is_canceled false at line " + std::to_string(line_of(asks_twice, "clusterlaunchcontrol.query_cancel")) + ")";
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
}

TEST(LaunchControl, MisuseIsAnErrorAtItsLine) {
  auto run = [](const std::string& body) {
    const std::string ptx = kOneCtaHead + body + "\n  ret;\n}\n";
    test::TempDir dir;
    dir.write("k.ptx", ptx);
    return test::run_cli({"run", "--arch", "b200", dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1, 1, 1]\nblock: [32, 1, 1]\nargs:\n  - {buffer: {name: out, elem: u32, count: 4}}\n"), "-q"});
  };
  auto r = run("  clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r1], [%r2];");
  EXPECT_NE(r.err.find("32 lanes issue clusterlaunchcontrol.try_cancel in one instruction"), std::string::npos) << r.err;
  r = run("  mov.u32 %r3, %laneid;\n  setp.eq.u32 %p1, %r3, 0;\n  @%p1 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r1+8], [%r2];");
  EXPECT_NE(r.err.find("is not 16-byte aligned"), std::string::npos) << r.err;
  r = run("  clusterlaunchcontrol.try_cancel.async.shared::cta.b128 [%r1], [%r2];");
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(k\.ptx:14:\d+: .*expected clusterlaunchcontrol\.try_cancel\.async\{\.shared::cta\}\.mbarrier::complete_tx::bytes)"))) << r.err;
  r = run("  clusterlaunchcontrol.query_cancel.get_first_ctaid.b32.b128 %r3, %q1;");
  EXPECT_NE(r.err.find("expected {x, y, z, _} with .v4"), std::string::npos) << r.err;
  r = run("  clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %r1;");
  EXPECT_NE(r.err.find("the answer (second operand) must be a .b128 register"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
