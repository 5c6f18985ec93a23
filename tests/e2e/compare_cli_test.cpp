// warpsim compare: every GPU's row is what warpsim run reports for it, speed-ups are ratios of
// those times, and a GPU that cannot run the input is a row with the reason.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace warpsim {
namespace {

using test::run_cli;
using test::source_path;

TEST(CompareCli, RowsMatchRunAndSpeedUpsAreTimeRatios) {
  test::TempDir dir;
  const std::string trace = source_path("traces/examples/fma_ilp.trace");
  auto r = run_cli({"compare", "--arch", "v100,a100,h100", trace, "--json", dir.path("c.json"), "--svg", dir.path("c.svg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = nlohmann::json::parse(test::read_file(dir.path("c.json")));
  ASSERT_EQ(rows.size(), 3u);
  const double first = rows[0]["time_us"];
  for (const auto& row : rows) {
    auto single = run_cli({"run", "--arch", row["arch"], trace, "--json", "-"});
    ASSERT_EQ(single.exit_code, 0);
    auto j = nlohmann::json::parse(single.out);
    EXPECT_EQ(row["cycles"], j["summary"]["cycles"]) << row["arch"];
    EXPECT_DOUBLE_EQ(row["speedup_vs_first"], first / double(row["time_us"]));
    EXPECT_NE(r.out.find(std::string(row["arch"]) + " "), std::string::npos);
  }
  EXPECT_NE(test::read_file(dir.path("c.svg")).find("<svg"), std::string::npos);
}

TEST(CompareCli, GpuThatCannotRunItIsARowWithTheReason) {
  auto r = run_cli({"compare", "--arch", "a100,h100", source_path("traces/kernels/mma_e4m3.launch.yaml")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("a100   not run:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("needs compute capability 8.9"), std::string::npos);
  EXPECT_NE(r.out.find("passed"), std::string::npos);
}

TEST(CompareCli, ChecksShowTheirLargestErrorPerGpu) {
  // The same FP8 kernel on Hopper and Blackwell: each row's check with its own largest error
  // (docs/tensor-numerics.md), in the table and the JSON.
  const std::string launch = source_path("traces/kernels/fp8_accumulate.launch.yaml");
  // Hopper's FP8 path (wgmma's; its mma.sync runs as FP16: configs/h100.yaml) against Blackwell's.
  auto r = run_cli({"compare", "--arch", "h100,b200", launch, "--isa", "ptx", "--set", "tensor.warp_fp8_via_fp16=false"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("passed (largest error 0.111)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("passed (largest error 1.53e-05)"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(run_cli({"compare", "--arch", "h100,b200", launch, "--isa", "ptx", "--set", "tensor.warp_fp8_via_fp16=false", "--json", "-"}).out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_GT(j[0]["check_error"].get<double>(), 1000 * j[1]["check_error"].get<double>());
}

TEST(CompareCli, BadArgumentsAreClearErrors) {
  EXPECT_EQ(run_cli({"compare", source_path("traces/examples/fma_ilp.trace")}).exit_code, 2);
  EXPECT_EQ(run_cli({"compare", "--arch", ",", source_path("traces/examples/fma_ilp.trace")}).exit_code, 2);
  auto r = run_cli({"compare", "--arch", "a100,x900", source_path("traces/examples/fma_ilp.trace")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("x900"), std::string::npos);
  // A file that is not there fails as warpsim run fails on it, not as a row per GPU.
  EXPECT_EQ(run_cli({"compare", "--arch", "a100,h100", "/nonexistent.trace"}).exit_code,
            run_cli({"run", "--arch", "a100", "/nonexistent.trace"}).exit_code);
}

}  // namespace
}  // namespace warpsim
