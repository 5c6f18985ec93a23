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

}  // namespace
}  // namespace warpsim
