// `warpsim run --functional`: the kernels' results without the timing model. Expectations come
// from the timed run of the same launch file (the same bytes, the same instruction counts where
// no loop waits on timing), from the grid (every CTA runs or is cancelled once) and from the
// kernel checkers' findings in the tutorial's racy kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "frontend/in_order_run.h"
#include "frontend/ptx/launch.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using test::run_cli;
using test::source_path;

nlohmann::json functional_json(const std::string& arch, const std::string& launch, const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {"run", "--arch", arch, launch, "--functional", "--json", "-"};
  args.insert(args.end(), more.begin(), more.end());
  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

// Saxpy computes the same bytes either way; it and the block reduction (shared memory, barriers,
// shuffles, atomics) issue the same warp and thread instructions, kernel by kernel.
TEST(FunctionalRun, ComputesWhatTheTimedRunComputesWithTheSameInstructions) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path("timed"));
  std::filesystem::create_directories(dir.path("functional"));
  for (const std::string name : {"saxpy", "reduce_sum"}) {
    SCOPED_TRACE(name);
    const std::string launch = source_path("traces/kernels/" + name + ".launch.yaml");
    const auto timed = run_cli({"run", "--arch", "a100", launch, "--json", "-", "--dump-dir", dir.path("timed")});
    ASSERT_EQ(timed.exit_code, 0) << timed.err;
    const auto t = nlohmann::json::parse(timed.out);
    const auto f = functional_json("a100", launch, {"--dump-dir", dir.path("functional")});
    ASSERT_TRUE(f.is_object());
    EXPECT_EQ(f["mode"], "functional");
    EXPECT_TRUE(f["check"]["passed"]) << f["check"].dump();
    ASSERT_EQ(f["kernels"].size(), t["kernels"].size());
    for (size_t k = 0; k < t["kernels"].size(); ++k) {
      EXPECT_EQ(f["kernels"][k]["name"], t["kernels"][k]["name"]);
      EXPECT_EQ(f["kernels"][k]["warp_instructions"], t["kernels"][k]["summary"]["warp_instructions"]);
      EXPECT_EQ(f["kernels"][k]["thread_instructions"], t["kernels"][k]["summary"]["thread_instructions"]);
      const auto& grid = f["kernels"][k]["grid"];
      EXPECT_EQ(f["kernels"][k]["ctas"], grid[0].get<uint64_t>() * grid[1].get<uint64_t>() * grid[2].get<uint64_t>());
    }
    if (name == "saxpy") {
      EXPECT_EQ(test::read_file(dir.path("functional/y.bin")), test::read_file(dir.path("timed/y.bin")));
    }
  }
}

// As many CTAs at once as the GPU holds: B200 holds 8 of the work-stealing kernel's 256-thread
// CTAs per SM, 1184 on its 148 SMs, and those cancel the other 864 of the 2048 (as in the timed
// run, LaunchControl.ShippedKernelCancelsEveryCtaBeyondThoseTheGpuHolds); the sums still check.
// A cooperative grid's barrier completes because its CTAs are held together.
TEST(FunctionalRun, CtasAreHeldAsTheGpuHoldsThem) {
  auto f = functional_json("b200", source_path("traces/kernels/work_stealing.launch.yaml"));
  ASSERT_TRUE(f.is_object());
  EXPECT_TRUE(f["check"]["passed"]) << f["check"].dump();
  EXPECT_EQ(f["kernels"][0]["ctas"], 148u * 8u);
  EXPECT_EQ(f["kernels"][0]["ctas_cancelled"], 2048u - 148u * 8u);
  f = functional_json("h100", source_path("traces/kernels/grid_sync.launch.yaml"));
  ASSERT_TRUE(f.is_object());
  EXPECT_TRUE(f["check"]["passed"]) << f["check"].dump();
  EXPECT_EQ(f["kernels"][0]["ctas"], 16u);
}

// A single-pass scan's CTAs wait on their predecessors' published sums through global memory, with
// no grid barrier (traces/kernels/scan_lookback.cu). On an A100 cut to 4 SMs only 32 of its 257
// CTAs are held at once, so later tiles wait while earlier ones run, timed and in the functional
// run's turns alike; the prefix sums and every tile's final state match the Python reference.
TEST(FunctionalRun, CtasWaitingOnEachOtherThroughMemoryFinish) {
  const std::string launch = source_path("traces/kernels/scan_lookback.launch.yaml");
  const std::vector<std::string> small = {"--set", "topology.sms=4", "--set", "topology.tpcs=2", "--set", "topology.gpcs=1", "--checks", "error"};
  auto f = functional_json("a100", launch, small);
  ASSERT_TRUE(f.is_object());
  EXPECT_TRUE(f["check"]["passed"]) << f["check"].dump();
  EXPECT_EQ(f["kernels"][0]["ctas"], 257u);
  std::vector<std::string> timed = {"run", "--arch", "a100", launch, "--json", "-"};
  timed.insert(timed.end(), small.begin(), small.end());
  const auto r = run_cli(timed);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto t = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_TRUE(t["check"]["passed"]) << t["check"].dump();
  EXPECT_EQ(t["kernels"][0]["summary"]["ctas"], 257u);
}

// The tutorial's racy reduction (block_sum without its barriers) has seven racing steps: in the
// step with stride s = 64, 32, ..., 1 a thread reads partial[t + s], which thread t + s wrote in
// the step before with no barrier between (another warp's for s >= 32, another lane's without
// __syncwarp below); the step with s = 128 reads what the initial barrier ordered. Each race is
// reported once, at its step's load or store: the functional run finds seven as the timed run
// does, and so does a run of one warp to its end after another (the trace writer's order), where
// each step's store comes after other warps' unordered loads of the word.
TEST(FunctionalRun, TheCheckersFindTheSameRaces) {
  const std::string launch = source_path("traces/tutorials/bug_race.launch.yaml");
  const auto r = run_cli({"run", "--arch", "h100", "--isa", "ptx", launch, "--functional", "-q"});
  EXPECT_EQ(r.exit_code, 6);
  size_t races = 0;
  for (size_t at = r.err.find("warpsim: race: "); at != std::string::npos; at = r.err.find("warpsim: race: ", at + 1)) ++races;
  EXPECT_EQ(races, 7u) << r.err;
  ptx::PtxWorkload warp_by_warp(launch, 90);
  run_in_order(warp_by_warp, InOrderVisitor{});
  std::string found;
  for (const auto& f : warp_by_warp.findings().list) {
    if (f.kind == "race") found += f.message + "\n";
  }
  EXPECT_EQ(std::count(found.begin(), found.end(), '\n'), 7) << found;
}

TEST(FunctionalRun, TheTextNamesEachKernelAndItsCounts) {
  const auto r = run_cli({"run", "--arch", "a100", source_path("traces/kernels/saxpy.launch.yaml"), "--functional"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto f = functional_json("a100", source_path("traces/kernels/saxpy.launch.yaml"));
  const std::string counts = "functional run (no timing): " + std::to_string(f["kernels"][0]["warp_instructions"].get<uint64_t>()) +
                             " warp instructions (" + std::to_string(f["kernels"][0]["thread_instructions"].get<uint64_t>()) + " thread";
  EXPECT_NE(r.out.find(counts), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("cycles"), std::string::npos) << r.out;
}

TEST(FunctionalRun, WhatNeedsTheTimingModelIsRefused) {
  test::TempDir dir;
  auto r = run_cli({"run", "--arch", "a100", source_path("traces/examples/vector_add.trace.gz"), "--functional"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--functional needs a launch file"), std::string::npos) << r.err;
  for (const std::string option : {"--csv", "--stats", "--timeline", "--roofline", "--report"}) {
    r = run_cli({"run", "--arch", "a100", source_path("traces/kernels/saxpy.launch.yaml"), "--functional", option, dir.path("out")});
    EXPECT_EQ(r.exit_code, 2) << option;
    EXPECT_NE(r.err.find("need the timing model; drop --functional"), std::string::npos) << option << ": " << r.err;
  }
  // A cooperative grid larger than the GPU holds: 161 CTAs of 1024 threads, V100 holds 160.
  std::string coop = test::shipped_launch("grid_sync.launch.yaml");
  coop.replace(coop.find("grid: [16, 1, 1]"), 16, "grid: [161, 1, 1]");
  coop.replace(coop.find("block: [128, 1, 1]"), 18, "block: [1024, 1, 1]");
  r = run_cli({"run", "--arch", "v100", dir.write("coop.launch.yaml", coop), "--functional", "--json", dir.path("o.json")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("cooperative launch of 'grid_stencil' with 161 CTAs; at most 160 (2 per SM x 80 SMs) can be resident at once"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("o.json")));
  // A launch the GPU refuses is refused here too: 1025 threads in a CTA.
  std::string launch = test::shipped_launch("saxpy.launch.yaml");
  launch.replace(launch.find("block: ["), 0, "block: [1025, 1, 1]\n#");
  r = run_cli({"run", "--arch", "a100", dir.write("big.launch.yaml", launch), "--functional"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

}  // namespace
}  // namespace warpsim
