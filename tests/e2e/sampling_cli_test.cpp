// `warpsim run --sample`: a large grid timed in part. Expectations come from the whole run of the
// same input (the same bytes, the same instructions once the untimed ones are added, a time
// within the tolerance asked for), from the grid (every CTA timed or run untimed once) and from
// saxpy's arithmetic on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "views/roofline.h"

namespace warpsim {
namespace {

using test::run_cli;

// Four SMs, so that a grid of 8192 CTAs of 256 threads is 256 waves of 32 CTAs and a whole run
// takes about a second.
const std::vector<std::string> kFourSms = {"--set", "topology.sms=4", "--set", "topology.tpcs=2", "--set", "topology.gpcs=1"};
constexpr uint32_t kCtas = 8192, kElements = kCtas * 256;

// saxpy over kElements floats: x[i] = 0.5 i, y[i] = 1, so y becomes 1 + 1.25 i = (5 i + 4) / 4,
// exact in float below 2^22.
std::string big_saxpy(const test::TempDir& dir) {
  std::string launch = test::shipped_launch("saxpy.launch.yaml");
  launch = launch.substr(0, launch.find("expect:"));
  auto replace_all = [&](const std::string& from, const std::string& to) {
    size_t found = 0;
    for (size_t at = launch.find(from); at != std::string::npos; at = launch.find(from, at + to.size()), ++found) launch.replace(at, from.size(), to);
    EXPECT_GT(found, 0u) << from;
  };
  replace_all("8192", std::to_string(kElements));
  replace_all("grid: [32, 1, 1]", "grid: [" + std::to_string(kCtas) + ", 1, 1]");
  replace_all("start: 1, step: 0.5", "start: 1, step: 0");
  replace_all("start: 0, step: 0.25", "start: 0, step: 0.5");
  return dir.write("saxpy_big.launch.yaml", launch);
}

nlohmann::json sampling_run_json(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"run", "--arch", "a100"};
  all.insert(all.end(), kFourSms.begin(), kFourSms.end());
  all.insert(all.end(), args.begin(), args.end());
  all.insert(all.end(), {"--json", "-"});
  const auto r = run_cli(all);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

TEST(SamplingCli, ASampledRunComputesTheSameResultsAndEstimatesTheTime) {
  test::TempDir dir;
  const std::string launch = big_saxpy(dir);
  std::filesystem::create_directories(dir.path("whole"));
  std::filesystem::create_directories(dir.path("sampled"));
  const auto whole = sampling_run_json({launch, "--dump-dir", dir.path("whole")});
  const auto sampled = sampling_run_json({launch, "--dump-dir", dir.path("sampled"), "--sample"});
  ASSERT_TRUE(whole.is_object() && sampled.is_object());
  const auto& w = whole["kernels"][0]["summary"];
  const auto& s = sampled["kernels"][0]["summary"];
  ASSERT_FALSE(w.contains("sampling"));
  ASSERT_TRUE(s.contains("sampling")) << s.dump();
  const auto& info = s["sampling"];
  // Every CTA ran once, timed or not; every instruction was executed once.
  EXPECT_EQ(info["ctas_timed"].get<uint64_t>() + info["ctas_untimed"].get<uint64_t>(), kCtas);
  EXPECT_EQ(s["ctas"], info["ctas_timed"]);
  EXPECT_GT(info["ctas_untimed"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["warp_instructions"].get<uint64_t>() + info["untimed_warp_instructions"].get<uint64_t>(),
            w["warp_instructions"].get<uint64_t>());
  // The whole kernel's totals: counted exactly (saxpy: one FMA, two FLOPs, per element), the
  // DRAM bytes scaled from the timed part (each input read once: within 5% of the whole run's).
  const auto& total = info["whole_kernel"];
  EXPECT_EQ(total["warp_instructions"], w["warp_instructions"]);
  EXPECT_EQ(total["thread_instructions"], w["thread_instructions"]);
  EXPECT_EQ(total["flops"], w["flops"]);
  EXPECT_EQ(total["flops"]["fp32"].get<double>(), 2.0 * kElements);
  EXPECT_LT(s["flops"]["fp32"].get<double>(), 2.0 * kElements);
  const double read = w["dram_bytes_read"].get<double>();
  EXPECT_NEAR(total["dram_bytes_read_estimate"].get<double>(), read, 0.05 * read);
  // The 8 MiB output fits in the 40 MiB L2: the whole run writes none of it to DRAM, and the
  // estimate, though the timed part stored some, writes none either (Tutorials.BigGrids has an
  // output larger than L2).
  EXPECT_EQ(w["dram_bytes_written"].get<double>(), 0.0);
  EXPECT_EQ(total["dram_bytes_written_estimate"].get<double>(), 0.0);
  // The time: projected within the tolerance asked for (2%) of the whole run's, from a shorter
  // timed part.
  const double whole_cycles = w["cycles"].get<double>(), estimate = s["cycles"].get<double>();
  EXPECT_NEAR(estimate, whole_cycles, 0.02 * whole_cycles);
  EXPECT_LT(info["timed_cycles"].get<double>(), 0.75 * whole_cycles);
  EXPECT_EQ(sampled["summary"]["cycles"], s["cycles"]);
  EXPECT_EQ(sampled["summary"]["sampling"], s["sampling"]);
  // The results: the whole run's bytes, and saxpy's on the CPU.
  const auto y = test::read_file(dir.path("sampled/y.bin"));
  EXPECT_EQ(y, test::read_file(dir.path("whole/y.bin")));
  ASSERT_EQ(y.size(), kElements * 4u);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < kElements; ++i) {
    float v;
    std::memcpy(&v, y.data() + 4 * i, 4);
    wrong += v != 1.0f + 1.25f * float(i);
  }
  EXPECT_EQ(wrong, 0u);
  // Deterministic: the same run again gives the same kernels and summary.
  const auto again = sampling_run_json({launch, "--sample"});
  EXPECT_EQ(again["kernels"], sampled["kernels"]);
  EXPECT_EQ(again["summary"], sampled["summary"]);
}

TEST(SamplingCli, ATraceIsSampledAndItsUntimedCtasAreRead) {
  // The untimed part of a trace is read, not emulated: its instructions are still counted.
  test::TempDir dir;
  const std::string launch = big_saxpy(dir), trace = dir.path("saxpy.trace");
  std::vector<std::string> args = {"trace", "--arch", "a100", launch, "-o", trace};
  const auto written = run_cli(args);
  ASSERT_EQ(written.exit_code, 0) << written.err;
  const auto whole = sampling_run_json({trace});
  const auto sampled = sampling_run_json({trace, "--sample"});
  const auto& s = sampled["kernels"][0]["summary"];
  const auto& w = whole["kernels"][0]["summary"];
  ASSERT_TRUE(s.contains("sampling")) << s.dump();
  EXPECT_EQ(s["sampling"]["ctas_timed"].get<uint64_t>() + s["sampling"]["ctas_untimed"].get<uint64_t>(), kCtas);
  EXPECT_EQ(s["warp_instructions"].get<uint64_t>() + s["sampling"]["untimed_warp_instructions"].get<uint64_t>(),
            w["warp_instructions"].get<uint64_t>());
  EXPECT_NEAR(s["cycles"].get<double>(), w["cycles"].get<double>(), 0.02 * w["cycles"].get<double>());
  // The sampler sees completions in the order one thread would: the same stop, the same figures.
  EXPECT_EQ(sampling_run_json({trace, "--sample", "--host-threads", "3"}), sampled);
}

// A run of a sampled kernel and one that ran whole: the run's whole-kernel totals add the first's
// counts and estimates to the second's own bytes, which no sample scales. The second rereads what
// the first left in L2: no DRAM bytes at all, so scaling the run's bytes by the run's instructions
// would give a different total.
TEST(SamplingCli, ARunAddsEachKernelsWholeTotals) {
  test::TempDir dir;
  const std::string launch = dir.write("two.launch.yaml", "ptx: " + test::source_path("traces/kernels/ptx/saxpy.sm_{sm}.ptx") + R"(
buffers:
  x: {elem: f32, count: 2097152, init: {sequence: {start: 0, step: 0.5}}}
  y: {elem: f32, count: 2097152}
launches:
  - kernel: saxpy
    grid: [8192, 1, 1]
    block: [256, 1, 1]
    args: [{scalar: s32, value: 2097152}, {scalar: f32, value: 2.5}, {buffer: x}, {buffer: y}]
  - kernel: saxpy
    grid: [16, 1, 1]
    block: [256, 1, 1]
    args: [{scalar: s32, value: 4096}, {scalar: f32, value: 2.5}, {buffer: x}, {buffer: y}]
)");
  const auto j = sampling_run_json({launch, "--sample"});
  ASSERT_EQ(j["kernels"].size(), 2u);
  const auto& big = j["kernels"][0]["summary"];
  const auto& small = j["kernels"][1]["summary"];
  ASSERT_TRUE(big.contains("sampling"));
  ASSERT_FALSE(small.contains("sampling"));
  const auto& total = j["summary"]["sampling"]["whole_kernel"];
  const auto& first = big["sampling"]["whole_kernel"];
  EXPECT_EQ(total["warp_instructions"].get<uint64_t>(), first["warp_instructions"].get<uint64_t>() + small["warp_instructions"].get<uint64_t>());
  EXPECT_EQ(total["flops"]["fp32"].get<double>(), 2.0 * (2097152 + 4096));
  EXPECT_GT(small["warp_instructions"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(total["dram_bytes_read_estimate"].get<double>(),
                   first["dram_bytes_read_estimate"].get<double>() + small["dram_bytes_read"].get<double>());
  EXPECT_DOUBLE_EQ(total["dram_bytes_written_estimate"].get<double>(),
                   first["dram_bytes_written_estimate"].get<double>() + small["dram_bytes_written"].get<double>());
}

TEST(SamplingCli, ASmallGridRunsWhole) {
  // 32 CTAs on 108 SMs: not even one wave.
  const std::string launch = test::source_path("traces/kernels/saxpy.launch.yaml");
  const auto plain = run_cli({"run", "--arch", "a100", launch, "--json", "-"});
  const auto sampled = run_cli({"run", "--arch", "a100", launch, "--json", "-", "--sample"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(sampled.exit_code, 0) << sampled.err;
  const auto p = nlohmann::json::parse(plain.out), s = nlohmann::json::parse(sampled.out);
  EXPECT_FALSE(s["kernels"][0]["summary"].contains("sampling"));
  EXPECT_EQ(p["kernels"], s["kernels"]);
}

// A sweep's `options: {sample: ...}` reaches every point's run; off keeps the ids points had
// before sampling existed.
TEST(SamplingCli, SweepsSampleTheirPointsWhenAsked) {
  test::TempDir dir;
  const std::string launch = big_saxpy(dir);
  const std::string head = "inputs: " + launch + "\narch: a100\nset: {topology.sms: 4, topology.tpcs: 2, topology.gpcs: 1}\n";
  auto plan = [&](const std::string& options) {
    const auto r = run_cli({"sweep", "plan", dir.write("s.yaml", head + options)});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out.substr(0, r.out.find('\n')), nullptr, false);
  };
  const auto plain = plan(""), off = plan("options: {sample: off}\n"), on = plan("options: {sample: on}\n");
  EXPECT_FALSE(plain.contains("sample"));
  EXPECT_EQ(plain, off);
  EXPECT_EQ(on["sample"], "0.02");
  EXPECT_NE(on["point_id"], plain["point_id"]);
  const std::string points = dir.write("p.jsonl", plan("options: {sample: 0.03}\n").dump() + "\n");
  const auto run = run_cli({"sweep", "run", points, "--results", dir.path("r")});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto p = nlohmann::json::parse(test::read_file(points));
  const auto result = nlohmann::json::parse(test::read_file(dir.path("r/" + p["point_id"].get<std::string>() + ".json")));
  EXPECT_EQ(result["status"], "ok") << result["error"];
  const auto& summary = result["run"]["kernels"][0]["summary"];
  ASSERT_TRUE(summary.contains("sampling")) << summary.dump();
  // The merged table says which rows are projections: the share of CTAs timed.
  const auto merged = run_cli({"sweep", "merge", dir.path("r"), "--points", points, "-o", dir.path("t.json")});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  const auto table = nlohmann::json::parse(test::read_file(dir.path("t.json")));
  const auto& row = table.is_array() ? table[0] : table["rows"][0];
  const double timed = summary["sampling"]["ctas_timed"].get<double>();
  EXPECT_DOUBLE_EQ(row["timed_fraction"].get<double>(), timed / kCtas);
  EXPECT_EQ(row["cycles"], summary["cycles"]);
  // Its counts are the whole kernel's, as an unsampled row's are: DRAM bytes scaled from the
  // timed part (more than the timed CTAs moved), FLOPs counted.
  const auto& whole = summary["sampling"]["whole_kernel"];
  EXPECT_EQ(row["dram_bytes_read"].get<int64_t>(), std::llround(whole["dram_bytes_read_estimate"].get<double>()));
  EXPECT_GT(row["dram_bytes_read"].get<double>(), summary["dram_bytes_read"].get<double>());
  EXPECT_EQ(row["dram_bytes_written"].get<int64_t>(), std::llround(whole["dram_bytes_written_estimate"].get<double>()));
  EXPECT_EQ(row["tensor_flops"], whole["flops"]["tensor"]);
  const auto bad = run_cli({"sweep", "plan", dir.write("bad.yaml", head + "options:\n  sample: 2\n")});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("bad.yaml:5:11: options.sample must be off, on, or a tolerance between 0 and 1"), std::string::npos) << bad.err;
}

// warpsim compare --sample times each GPU as run --sample does.
TEST(SamplingCli, CompareSamplesEachGpu) {
  test::TempDir dir;
  const std::string launch = big_saxpy(dir);
  std::vector<std::string> args = {"compare", "--arch", "a100,h100", launch, "--sample", "--json", "-"};
  args.insert(args.end(), kFourSms.begin(), kFourSms.end());
  const auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out);
  const auto run = sampling_run_json({launch, "--sample"});
  ASSERT_TRUE(run["summary"].contains("sampling"));
  EXPECT_EQ(rows[0]["cycles"], run["summary"]["cycles"]);
}

// Rates divide counts by the time they were counted over: a sampled kernel's FLOPs by its timed
// part's time, not by the projection.
TEST(SamplingCli, RooflineRatesUseTheTimedPart) {
  Summary s;
  s.name = "k";
  s.fp32_flops = 1e9;
  s.dram_bytes_read = 1000000;
  s.cycles = 4000;
  s.time_us = 4.0;
  s.sampled = true;
  s.timed_cycles = 1000;  // 1 us of the 4
  const auto points = roofline_points({s});
  ASSERT_EQ(points.size(), 1u);
  EXPECT_DOUBLE_EQ(points[0].flops_per_second, 1e9 / 1e-6);
  s.sampled = false;  // a whole run: its own time
  EXPECT_DOUBLE_EQ(roofline_points({s})[0].flops_per_second, 1e9 / 4e-6);
}

TEST(SamplingCli, BadSamplingOptionsAreUsageErrors) {
  const std::string launch = test::source_path("traces/kernels/saxpy.launch.yaml");
  auto r = run_cli({"run", "--arch", "a100", launch, "--sample", "--functional"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--sample chooses which CTAs to time; --functional times none"), std::string::npos) << r.err;
  for (const std::string bad : {"0", "1", "-0.1", "nan"}) {
    r = run_cli({"run", "--arch", "a100", launch, "--sample", "--sample-tolerance", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--sample-tolerance must be between 0 and 1"), std::string::npos) << bad << ": " << r.err;
  }
  r = run_cli({"run", "--arch", "a100", launch, "--sample-tolerance", "abc"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

}  // namespace
}  // namespace warpsim
