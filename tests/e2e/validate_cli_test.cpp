// warpsim validate on a measurements file written here by hand (a test fixture, not a
// measurement): errors, MAPE, median and the accuracy gate are recomputed from warpsim run's own
// times for the same launch files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace warpsim {
namespace {

using test::run_cli;
using test::source_path;
using nlohmann::json;

const char* const kKernels[] = {"lane_trips", "diverge_1paths", "atomic_4096_addresses"};
const double kMeasured[] = {12.0, 5.0, 3.0};  // medians in us; the empty kernel takes 2.0
constexpr double kBaseline = 2.0;

std::string validate_launch(const std::string& name) { return source_path("tools/validation/launch/" + name + ".launch.yaml"); }

std::string fixture(const test::TempDir& dir) {
  json m{{"format", "warpsim-validation-1"}, {"gpu", {{"name", "NVIDIA H200"}, {"sms", 132}}}, {"kernels", json::array()}};
  for (size_t i = 0; i < 3; ++i)
    m["kernels"].push_back({{"name", kKernels[i]}, {"family", "divergence"}, {"launch_file", validate_launch(kKernels[i])}, {"check", "passed"},
                            {"time_us_median", kMeasured[i]}});
  m["kernels"].push_back({{"name", "empty_kernel"}, {"family", "baseline"}, {"launch_file", validate_launch("empty_kernel")}, {"check", "passed"},
                          {"time_us_median", kBaseline}});
  m["kernels"].push_back({{"name", "fma_latency"}, {"family", "arithmetic"}, {"launch_file", validate_launch("fma_latency")},
                          {"check", "FAILED: out[0] = 1, expected 100000"}, {"time_us_median", 50.0}});
  m["kernels"].push_back({{"name", "bf16_gemm"}, {"family", "gemm_tensor"}, {"launch_file", validate_launch("bf16_gemm")},
                          {"skipped", "needs compute capability 8.0"}});
  return dir.write("m.json", m.dump());
}

TEST(ValidateCli, ErrorsAndStatisticsFollowFromRunTimes) {
  test::TempDir dir;
  const std::string m = fixture(dir);
  auto r = run_cli({"validate", m, "--json", dir.path("v.json"), "--csv", dir.path("v.csv"), "--svg", dir.path("v.svg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json v = json::parse(test::read_file(dir.path("v.json")));
  ASSERT_EQ(v["kernels"].size(), 3u);
  std::vector<double> errors;
  for (size_t i = 0; i < 3; ++i) {
    auto run = run_cli({"run", "--arch", "h200", validate_launch(kKernels[i]), "--json", "-"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const double sim = json::parse(run.out)["summary"]["time_us"];
    const json& k = v["kernels"][i];
    EXPECT_EQ(k["name"], kKernels[i]);
    EXPECT_EQ(k["arch"], "h200");  // from the GPU's name
    EXPECT_DOUBLE_EQ(k["measured_us"].get<double>(), kMeasured[i] - kBaseline);
    EXPECT_DOUBLE_EQ(k["simulated_us"].get<double>(), sim);
    const double e = (sim - (kMeasured[i] - kBaseline)) / (kMeasured[i] - kBaseline) * 100;
    EXPECT_NEAR(k["error_percent"].get<double>(), e, 1e-9);
    errors.push_back(std::fabs(e));
  }
  EXPECT_NEAR(v["mape"].get<double>(), (errors[0] + errors[1] + errors[2]) / 3, 1e-9);
  std::sort(errors.begin(), errors.end());
  EXPECT_NEAR(v["median_abs_error"].get<double>(), errors[1], 1e-9);
  // The wrong and the unmeasured kernel are named, not compared.
  const std::string notes = v["notes"].dump();
  EXPECT_NE(notes.find("fma_latency: left out, its output was wrong"), std::string::npos) << notes;
  EXPECT_NE(notes.find("bf16_gemm: not measured"), std::string::npos);
  EXPECT_NE(test::read_file(dir.path("v.csv")).find("lane_trips,divergence,h200,10.0000,"), std::string::npos);
  EXPECT_NE(test::read_file(dir.path("v.svg")).find("measured time [us]"), std::string::npos);
  EXPECT_NE(r.out.find("MAPE"), std::string::npos);
}

TEST(ValidateCli, AccuracyGateAndOptions) {
  test::TempDir dir;
  const std::string m = fixture(dir);
  auto gate = run_cli({"validate", m, "--max-mape", "0.001"});
  EXPECT_EQ(gate.exit_code, 7) << gate.err;
  EXPECT_NE(gate.err.find("above --max-mape"), std::string::npos);
  EXPECT_EQ(run_cli({"validate", m, "--max-mape", "1e9"}).exit_code, 0);
  auto both = run_cli({"validate", m, "--arch", "h100,h200", "--json", "-", "--no-baseline", "--only", "lane_trips"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  json v = json::parse(both.out);
  ASSERT_EQ(v["kernels"].size(), 2u);
  EXPECT_EQ(v["kernels"][0]["arch"], "h100");
  EXPECT_DOUBLE_EQ(v["kernels"][0]["measured_us"].get<double>(), 12.0);
  EXPECT_EQ(run_cli({"validate", dir.write("bad.json", "{\"gpu\": 1")}).exit_code, 3);
  EXPECT_EQ(run_cli({"validate", dir.write("odd.json", "{\"gpu\": {\"name\": \"Some GPU\"}, \"kernels\": []}")}).exit_code, 2);
  // Well-formed JSON of the wrong shape is an input error naming the file, not an internal one.
  for (const char* body : {"{\"gpu\": \"H200\", \"kernels\": []}", "{\"gpu\": {\"name\": \"H200\"}, \"kernels\": [3]}",
                           "{\"gpu\": {\"name\": 7}, \"kernels\": []}",
                           "{\"gpu\": {\"name\": \"H200\"}, \"kernels\": [{\"name\": \"x\", \"time_us_median\": \"fast\"}]}"}) {
    const std::string path = dir.write("shape.json", body);
    auto r = run_cli({"validate", path});
    EXPECT_EQ(r.exit_code, 3) << body << "\n" << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  }
}

// Nsight Compute's metrics beside the measurements (m.ncu.csv, read by default): built here from
// warpsim run's own metrics, one exact and one scaled by 1.25 (so -20%), with a profiled launch of
// the kernel whose check failed in between, which no compared kernel claims.
TEST(ValidateCli, NsightComputeMetricsAreComparedLaunchByLaunch) {
  test::TempDir dir;
  const std::string m = fixture(dir);
  std::string csv =
      "==PROF== Connected to process 1 (harness)\n\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
      "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  int id = 0;
  auto add = [&](const std::string& kernel, const json& grid, const std::string& metric, double value) {
    csv += "\"" + std::to_string(id) + "\",\"1\",\"harness\",\"h\",\"" + kernel + "\",\"1\",\"7\",\"(32, 1, 1)\",\"(" +
           std::to_string(grid[0].get<int>()) + ", " + std::to_string(grid[1].get<int>()) + ", " + std::to_string(grid[2].get<int>()) +
           ")\",\"0\",\"9.0\",\"Command line profiler metrics\",\"" + metric + "\",\"\",\"" + std::to_string(value) + "\"\n";
  };
  const std::string st = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", time = "gpu__time_duration.sum";
  for (size_t i = 0; i < 3; ++i) {
    if (i == 1) {  // fma_latency ran on the GPU (its output was wrong): profiled, but left out
      add("fma_latency", json::array({1, 1, 1}), time, 1e6);
      ++id;
    }
    auto run = run_cli({"run", "--arch", "h200", validate_launch(kKernels[i]), "--json", "-"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const json k = json::parse(run.out)["kernels"][0];
    add(k["name"], k["grid"], st, k["metrics"][st]["value"].get<double>());
    add(k["name"], k["grid"], time, k["metrics"][time]["value"].get<double>() * 1.25);
    ++id;
  }
  dir.write("m.ncu.csv", csv);
  auto r = run_cli({"validate", m, "--json", dir.path("v.json"), "--metrics-csv", dir.path("metrics.csv")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json v = json::parse(test::read_file(dir.path("v.json")));
  ASSERT_EQ(v["metrics"].size(), 2u) << v["metrics"].dump();
  for (const json& s : v["metrics"]) {
    EXPECT_EQ(s["launches"], 3);
    EXPECT_EQ(s["arch"], "h200");
    if (s["metric"] == st) {
      EXPECT_EQ(s["exact"], 3);
    } else {
      EXPECT_EQ(s["metric"], time);
      EXPECT_EQ(s["exact"], 0);
      EXPECT_NEAR(s["mape"].get<double>(), 20.0, 1e-3);  // simulated = measured / 1.25
    }
  }
  EXPECT_NE(test::read_file(dir.path("metrics.csv")).find("lane_trips,lane_trips,h200," + st + ",modelled,"), std::string::npos);
  EXPECT_NE(r.out.find("Nsight Compute metrics"), std::string::npos) << r.out;
  // No metrics to compare without a CSV; a malformed one is an input error at its line.
  EXPECT_EQ(run_cli({"validate", fixture(dir), "--ncu", dir.write("bad.ncu.csv", "\"ID\",\"Kernel Name\"\n\"0\"\n")}).exit_code, 3);
  auto bad = run_cli({"validate", m, "--ncu", dir.path("bad.ncu.csv")});
  EXPECT_NE(bad.err.find("bad.ncu.csv:2:1: this row has 1 fields"), std::string::npos) << bad.err;
  test::TempDir other;
  EXPECT_EQ(run_cli({"validate", fixture(other), "--metrics-csv", other.path("x.csv")}).exit_code, 2);
}

TEST(ValidateCli, OutputErrorsAreComparedWhereTheyAreNotExact) {
  // The harness records each entry's largest |output - reference|; warpsim's own comes from the
  // same check `warpsim run` prints. An entry exact on both sides (lane_trips) says nothing.
  test::TempDir dir;
  json m{{"format", "warpsim-validation-1"}, {"gpu", {{"name", "NVIDIA H100 80GB HBM3"}}}, {"kernels", json::array()}};
  m["kernels"].push_back({{"name", "fp8_accumulate"}, {"family", "gemm_tensor"}, {"launch_file", source_path("traces/kernels/fp8_accumulate.launch.yaml")},
                          {"check", "passed"}, {"max_abs_error", 0.1}, {"time_us_median", 30.0}});
  m["kernels"].push_back({{"name", "lane_trips"}, {"family", "divergence"}, {"launch_file", validate_launch("lane_trips")}, {"check", "passed"},
                          {"max_abs_error", 0.0}, {"time_us_median", 12.0}});
  const std::string path = dir.write("m.json", m.dump());
  auto r = run_cli({"validate", path, "--json", dir.path("v.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json v = json::parse(test::read_file(dir.path("v.json")));
  ASSERT_EQ(v["output_errors"].size(), 1u) << v.dump();
  const json& e = v["output_errors"][0];
  EXPECT_EQ(e["name"], "fp8_accumulate");
  EXPECT_EQ(e["arch"], "h100");
  EXPECT_DOUBLE_EQ(e["gpu"].get<double>(), 0.1);
  auto run = run_cli({"run", "--arch", "h100", source_path("traces/kernels/fp8_accumulate.launch.yaml")});
  const size_t at = run.out.find("largest |error| ");
  ASSERT_NE(at, std::string::npos) << run.out;
  EXPECT_NEAR(e["warpsim"].get<double>(), std::stod(run.out.substr(at + 16)), 0.0005);
  EXPECT_NE(r.out.find("Largest |output - reference|"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fp8_accumulate"), std::string::npos);
}

}  // namespace
}  // namespace warpsim
