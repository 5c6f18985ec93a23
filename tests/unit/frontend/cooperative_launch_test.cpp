// Cooperative launches (cudaLaunchCooperativeKernel): cooperative groups' grid.sync() against a
// CPU reference on every GPU generation, the refusals CUDA makes (a grid that cannot be resident
// at once; grid.sync() without a cooperative launch traps), and warpsim trace declining them.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.h"

namespace warpsim {
namespace {

// The shipped launch file with `extra` lines added before its arguments and the PTX path made
// absolute, written into `dir`.
std::string variant(test::TempDir& dir, const std::string& extra, const std::string& from = "cooperative: true\n", const std::string& to = "") {
  std::string text = test::shipped_launch("grid_sync.launch.yaml");
  text.replace(text.find("expect:"), std::string::npos, "");
  if (!from.empty()) text.replace(text.find(from), from.size(), to.empty() ? from : to);
  text.replace(text.find("args:"), 5, extra + "args:");
  return dir.write("k.launch.yaml", text);
}

TEST(CooperativeLaunch, GridSyncMatchesItsReferenceOnEveryGeneration) {
  // The CTAs wait for each other through global memory while the timing model interleaves them;
  // the instruction limit turns a CTA that spun alone (the others never run) into a quick error.
  test::TempDir dir;
  const std::string bounded = variant(dir, "max_warp_instructions: 200000\n");
  for (const char* arch : {"v100", "a100", "h100", "b200"}) {
    auto r = test::run_cli({"run", "--arch", arch, bounded, "-q"});
    ASSERT_EQ(r.exit_code, 0) << arch << r.err;
    r = test::run_cli({"run", "--arch", arch, test::source_path("traces/kernels/grid_sync.launch.yaml"), "--checks", "error"});
    EXPECT_EQ(r.exit_code, 0) << arch << r.err;
    EXPECT_NE(r.out.find("check: passed"), std::string::npos) << arch << r.out;
  }
}

TEST(CooperativeLaunch, WhatCudaRefusesIsRefused) {
  test::TempDir dir;
  // Without a cooperative launch the workspace pointer is null and cooperative groups trap.
  auto r = test::run_cli({"run", "--arch", "h100", variant(dir, "", "cooperative: true\n", "cooperative: false\n"), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("the kernel executed trap (on a GPU the launch fails); the kernel reads %envreg, as cooperative groups' "
                       "this_grid().sync() does, which traps unless the kernel is launched cooperatively: give the launch 'cooperative: true'"),
            std::string::npos) << r.err;
  // 1024-thread CTAs: V100 holds two per SM, 160 on its 80 SMs.
  std::string big = variant(dir, "", "block: [128, 1, 1]", "block: [1024, 1, 1]");
  std::string text = test::read_file(big);
  text.replace(text.find("grid: [16, 1, 1]"), 16, "grid: [161, 1, 1]");
  big = dir.write("big.launch.yaml", text);
  r = test::run_cli({"run", "--arch", "v100", big, "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("cooperative launch of 'grid_stencil' with 161 CTAs; at most 160 (2 per SM x 80 SMs) can be resident at once on"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(cudaErrorCooperativeLaunchTooLarge)"), std::string::npos) << r.err;
  // warpsim trace records what the run executed, grid barrier polls included, so the trace
  // replays with the run's statistics.
  const auto replay = test::run_and_replay("h100", test::source_path("traces/kernels/grid_sync.launch.yaml"), dir);
  EXPECT_EQ(replay.direct.rfind("error: ", 0), std::string::npos) << replay.direct;
  EXPECT_EQ(replay.direct, replay.replay);
  EXPECT_NE(replay.trace.find(".kernel grid_stencil"), std::string::npos);
}

}  // namespace
}  // namespace warpsim
