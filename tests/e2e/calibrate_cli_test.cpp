// warpsim calibrate: its microbenchmarks measure what the model was built to do, and its
// latencies stay within 10% of the hardware measurements they are printed beside.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "config/load_config.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using nlohmann::json;

json calibrate(const std::string& arch) {
  test::TempDir dir;
  const std::string out = dir.path("c.json");
  auto r = test::run_cli({"calibrate", "--arch", arch, "--json", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("latencies within 10% of their measurement"), std::string::npos);
  return json::parse(test::read_file(out));
}

const json& row(const json& j, const std::string& name) {
  for (const auto& r : j["rows"])
    if (r["name"] == name) return r;
  throw std::runtime_error("no row " + name);
}

TEST(Calibrate, LatenciesMatchTheirMeasurementsWithin10Percent) {
  for (const char* arch : {"v100", "a100", "h100"}) {
    SCOPED_TRACE(arch);
    json j = calibrate(arch);
    int compared = 0;
    for (const auto& r : j["rows"]) {
      if (r["group"] != "latency" || r["reference"].is_null()) continue;
      const double sim = r["simulated"], ref = r["reference"];
      // Known and reported in docs/validation.md: A100 shared memory follows Accel-Sim's tuned 28
      // cycles, not ABD22's low-confidence 23.
      if (std::string(arch) == "a100" && r["name"] == "shared memory (ld.shared chain)") continue;
      EXPECT_LE(std::fabs(sim - ref) / ref, 0.10) << r["name"] << ": " << sim << " vs " << ref;
      ++compared;
    }
    EXPECT_GE(compared, 4);
  }
}

TEST(Calibrate, LadderStepsFromL1ToL2ToDram) {
  json j = calibrate("a100");
  GpuSpec s = load_gpu_config("a100").spec;
  EXPECT_DOUBLE_EQ(double(row(j, "working set 16 KiB")["simulated"]), s.memory.l1.hit_latency);
  EXPECT_DOUBLE_EQ(double(row(j, "working set 2 MiB")["simulated"]), double(row(j, "L2 hit (near partition)")["simulated"]));
  EXPECT_GT(double(row(j, "working set 60 MiB")["simulated"]), 500.0);  // beyond L2: DRAM
  // A partition's worth of lines from one SM is found in the other partition on the second pass.
  EXPECT_GT(double(row(j, "L2 hit (far partition)")["simulated"]), double(row(j, "L2 hit (near partition)")["simulated"]) + 180);
  for (int ways : {2, 4, 8, 16, 32})
    EXPECT_NEAR(double(row(j, std::to_string(ways) + "-way bank conflict")["simulated"]), ways, 0.05 * ways);
  // L1 hits: the tag stage's rate, less the cold first pass.
  const double l1 = row(j, "L1 read (8 KiB per warp, hits)")["simulated"], tags = s.memory.l1.tag_lookups_per_clk * s.memory.line_bytes;
  EXPECT_LE(l1, tags);
  EXPECT_GT(l1, 0.7 * tags);
  const double dram = row(j, "DRAM read, 32 warps/SM")["simulated"];
  EXPECT_LT(dram, s.memory.hbm.peak_bytes_per_second() / 1e9);
  EXPECT_GT(dram, 0.8 * s.memory.hbm.peak_bytes_per_second() / 1e9);
  for (const char* p : {"mma.sync fp16", "mma.sync tf32", "mma.sync int8", "FP32 FMA", "mma.sp fp16 (2:4 sparse)"})
    EXPECT_NEAR(double(row(j, p)["simulated"]), double(row(j, p)["reference"]), 0.02 * double(row(j, p)["reference"])) << p;
}

// Every tensor precision in B200's datasheet is reached through tcgen05.mma, the instruction
// Blackwell's GEMMs use (FP4 at its peak only block-scaled, kind::mxf4nvf4), within 2% of the
// datasheet's peak; FP64 has no tcgen05 form and reaches its peak through mma.sync.
TEST(Calibrate, EveryB200TensorPeakIsReached) {
  json j = calibrate("b200");
  GpuSpec s = load_gpu_config("b200").spec;
  int rows = 0;
  for (const auto& [p, figure] : s.datasheet.tensor_tflops) {
    const std::string name(tensor_precision_name(p));
    const std::string n = (p == TensorPrecision::kFp64 ? "mma.sync " : "tcgen05 ") + name;
    EXPECT_NEAR(double(row(j, n)["simulated"]), figure.value, 0.02 * figure.value) << n;
    EXPECT_EQ(row(j, n)["reference"], figure.value) << n;
    ++rows;
  }
  EXPECT_EQ(rows, static_cast<int>(s.datasheet.tensor_tflops.size()));
  EXPECT_NEAR(double(row(j, "tcgen05 fp4")["simulated"]), 2 * double(row(j, "tcgen05 fp6")["simulated"]), 1.0);
}

// Hopper: every tensor peak in H100's datasheet is reached through wgmma (FP64 through mma.sync,
// its only form), while warp-level MMAs of the same precisions run at the config's share of it
// and carry no datasheet reference (the wgmma rows do).
TEST(Calibrate, HopperPeaksNeedWgmma) {
  json j = calibrate("h100");
  GpuSpec s = load_gpu_config("h100").spec;
  ASSERT_LT(s.tensor.warp_mma_fraction, 0.9);
  for (const auto& [p, figure] : s.datasheet.tensor_tflops) {
    const std::string name(tensor_precision_name(p));
    if (p == TensorPrecision::kFp64) {
      EXPECT_NEAR(double(row(j, "mma.sync fp64")["simulated"]), figure.value, 0.02 * figure.value);
      continue;
    }
    EXPECT_NEAR(double(row(j, "wgmma " + name)["simulated"]), figure.value, 0.02 * figure.value) << name;
    EXPECT_NEAR(double(row(j, "mma.sync " + name)["simulated"]), s.tensor.warp_mma_fraction * figure.value, 0.02 * figure.value) << name;
    EXPECT_TRUE(row(j, "mma.sync " + name)["reference"].is_null()) << name;
  }
  EXPECT_NEAR(double(row(j, "wgmma.sp fp16 (2:4 sparse)")["simulated"]), 2 * double(row(j, "wgmma fp16")["simulated"]), 1.0);
}

// The bandwidth ladder over working-set size: L2-resident sets read above the DRAM peak; a set of
// 1.5x L2 re-read comes from DRAM at the stream's rate on V100's single-partition L2, and at no
// less on the partitioned L2s, where the other partition keeps part of it. (Before far lookups
// had their own port, the partitioned L2s reached only a quarter to a half of the stream here.)
TEST(Calibrate, BandwidthLadderStepsFromL2ToDram) {
  for (const char* arch : {"v100", "a100"}) {
    SCOPED_TRACE(arch);
    json j = calibrate(arch);
    GpuSpec s = load_gpu_config(arch).spec;
    const double peak = s.memory.hbm.peak_bytes_per_second() / 1e9, stream = row(j, "DRAM read, 32 warps/SM")["simulated"];
    const double eighth = row(j, "read, working set 1/8 of L2")["simulated"], beyond = row(j, "read, working set 1.5x L2")["simulated"];
    EXPECT_GT(eighth, 1.5 * peak);  // from L2
    if (s.memory.l2.partitions == 1) {
      EXPECT_NEAR(beyond, stream, 0.1 * stream);
      EXPECT_LT(beyond, peak);
    } else {
      EXPECT_GT(beyond, stream);
      EXPECT_LT(beyond, eighth);
    }
  }
}

// --write-traces writes each run as a trace; replaying the two L1 runs with warpsim run gives
// back the latency calibrate printed, and the shipped traces are what the command writes.
TEST(Calibrate, WrittenTracesReplayToTheSameLatency) {
  test::TempDir dir;
  auto r = test::run_cli({"calibrate", "--arch", "a100", "--write-traces", dir.path("mb")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto cycles = [](const std::string& trace) {
    test::TempDir out;
    auto run = test::run_cli({"run", "--arch", "a100", trace, "--json", out.path("r.json")});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return double(json::parse(test::read_file(out.path("r.json")))["summary"]["cycles"]);
  };
  const double l1 = (cycles(dir.path("mb/latency_l1.trace.gz")) - cycles(dir.path("mb/latency_l1_1.trace.gz"))) / 64;
  EXPECT_DOUBLE_EQ(l1, load_gpu_config("a100").spec.memory.l1.hit_latency);
  EXPECT_NE(r.out.find("L1 hit (64 lines)                        36.0"), std::string::npos);
  for (const char* shipped : {"latency_l1.trace.gz", "shared_32way.trace.gz", "latency_dram_128_lines.trace.gz"})
    EXPECT_EQ(test::read_file(test::source_path(std::string("traces/microbench/") + shipped)), test::read_file(dir.path(std::string("mb/") + shipped)))
        << shipped;
}

}  // namespace
}  // namespace warpsim
