// Nsight Compute's Speed-of-Light headline as warpsim reports it: "Compute (SM) Throughput" and
// "Memory Throughput" are the busiest unit on each side (the same numbers `bound` reads), and the
// uniform-branch share follows from the branches a trace takes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace warpsim {
namespace {

nlohmann::json kernel_of(const std::vector<std::string>& args) {
  const auto r = test::run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  return j.is_discarded() ? nlohmann::json::object() : j["kernels"][0];
}

double metric(const nlohmann::json& k, const std::string& name) { return k["metrics"][name]["value"].get<double>(); }

TEST(SpeedOfLight, EachSideIsItsBusiestUnitAndAgreesWithBound) {
  // A stream on A100: DRAM-bound, so memory throughput is DRAM's (above L2's) and above 60%.
  const auto stream = kernel_of({"run", "--arch", "a100", test::source_path("traces/examples/vector_add.trace.gz"), "-q", "--json", "-"});
  const double dram = metric(stream, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed");
  const double l2 = metric(stream, "lts__throughput.avg.pct_of_peak_sustained_elapsed");
  EXPECT_DOUBLE_EQ(metric(stream, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"), std::max(dram, l2));
  EXPECT_GE(dram, 60);
  EXPECT_EQ(stream["summary"]["bound"], "memory");
  EXPECT_LT(metric(stream, "sm__throughput.avg.pct_of_peak_sustained_elapsed"), dram);
  EXPECT_EQ(metric(stream, "sm__cycles_elapsed.avg"), stream["summary"]["cycles"].get<double>());
  // Back-to-back FMAs: compute-bound, the FMA pipe (or the issue slots) above 60%, memory idle.
  const auto fma = kernel_of({"run", "--arch", "a100", test::source_path("traces/examples/fma_throughput.trace.gz"), "-q", "--json", "-"});
  EXPECT_EQ(fma["summary"]["bound"], "compute");
  EXPECT_GE(metric(fma, "sm__throughput.avg.pct_of_peak_sustained_elapsed"), 60);
  EXPECT_LT(metric(fma, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"), 5);
}

// One CTA per A100 SM (108), 8 warps each issuing 40 shared loads whose 32 lanes all fall in one
// bank (a 128-byte stride) or in 32 banks (4 bytes): 32 wavefronts per load or 1.
std::string shared_loads(unsigned stride) {
  std::string t = test::kernel_header("k", 108, 256, 4096);
  for (unsigned c = 0; c < 108; ++c) {
    t += ".cta " + std::to_string(c) + " 0 0\n";
    for (unsigned w = 0; w < 8; ++w) {
      t += ".warp " + std::to_string(w) + "\n";
      for (unsigned i = 0; i < 40; ++i) t += "ld.shared.u32 %r" + std::to_string(i % 8 + 1) + ", [%r9]; addr=0x0+" + std::to_string(stride) + "\n";
    }
  }
  return t;
}

TEST(SpeedOfLight, SharedMemoryConflictsFillTheL1texDataPathAndMakeTheKernelMemoryBound) {
  test::TempDir dir;
  const auto conflicted = kernel_of({"run", "--arch", "a100", dir.write("c.trace", shared_loads(128)), "-q", "--json", "-"});
  // 8 x 40 x 32 wavefronts per SM, one per cycle: the data path is busy nearly every active cycle.
  const double active = metric(conflicted, "sm__cycles_active.avg");
  EXPECT_NEAR(metric(conflicted, "l1tex__throughput.avg.pct_of_peak_sustained_active"), 8 * 40 * 32 / active * 100, 1e-9);
  EXPECT_GE(metric(conflicted, "l1tex__throughput.avg.pct_of_peak_sustained_active"), 95);
  EXPECT_EQ(conflicted["summary"]["bound"], "memory");
  EXPECT_NE(conflicted["summary"]["bound_reason"].get<std::string>().find("shared-memory data path"), std::string::npos);
  EXPECT_GE(metric(conflicted, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"), 90);
  // Conflict-free, the same loads take 1/32 of the passes (and of the time, apart from the
  // latency at either end: the data path still bounds a kernel of nothing but shared loads).
  const auto clean = kernel_of({"run", "--arch", "a100", dir.write("n.trace", shared_loads(4)), "-q", "--json", "-"});
  EXPECT_NEAR(metric(clean, "l1tex__throughput.avg.pct_of_peak_sustained_active"), 8 * 40 / metric(clean, "sm__cycles_active.avg") * 100, 1e-9);
  EXPECT_LT(clean["summary"]["cycles"].get<double>() * 16, conflicted["summary"]["cycles"].get<double>());
}

TEST(SpeedOfLight, UniformBranchShareCountsTheBranchesThatKeptTheirMask) {
  // Two branches: the first keeps all 32 lanes, the second splits them.
  const std::string trace = test::kernel_header("k", 1, 32) + ".cta 0 0 0\n.warp 0\n"
                            "ffffffff bra $L1\nffffffff add.s32 %r1, %r1, 1\nffffffff bra $L2\n0000ffff add.s32 %r1, %r1, 1\nffffffff exit\n";
  test::TempDir dir;
  const auto k = kernel_of({"run", "--arch", "a100", dir.write("k.trace", trace), "-q", "--json", "-"});
  EXPECT_EQ(metric(k, "smsp__inst_executed_op_branch.sum"), 2);
  EXPECT_EQ(metric(k, "smsp__sass_average_branch_targets_threads_uniform.pct"), 50);
}

// One warp per A100 SM chasing through shared memory (each load's address is the last load's
// value) with 4-way conflicts: every unit idles, the kernel is latency-bound, and the reason
// names the memory unit nearest its peak, the shared-memory data path, at the memory side's
// Speed-of-Light figure.
TEST(SpeedOfLight, ALatencyBoundReasonNamesTheBusiestMemoryUnit) {
  test::TempDir dir;
  std::string t = test::kernel_header("k", 108, 32, 4096);
  for (unsigned c = 0; c < 108; ++c) {
    t += ".cta " + std::to_string(c) + " 0 0\n.warp 0\n";
    for (unsigned i = 0; i < 40; ++i) t += "ld.shared.u32 %r1, [%r1]; addr=0x0+16\n";
  }
  const auto k = kernel_of({"run", "--arch", "a100", dir.write("chase.trace", t), "-q", "--json", "-"});
  EXPECT_EQ(k["summary"]["bound"], "latency");
  char expected[96];
  std::snprintf(expected, sizeof expected, "busiest memory unit shared-memory data path at %.0f%%",
                metric(k, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"));
  EXPECT_GT(metric(k, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"), metric(k, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"));
  EXPECT_NE(k["summary"]["bound_reason"].get<std::string>().find(expected), std::string::npos) << k["summary"]["bound_reason"];
}

}  // namespace
}  // namespace warpsim
