// The divergence view's numbers on a warp whose lanes are counted by hand, and its picture.
#include <gtest/gtest.h>

#include "support/test_support.h"
#include "views/divergence_recorder.h"
#include "views/divergence_view.h"

namespace warpsim {
namespace {

// Warp 0 (32 lanes): mov, bra, three instructions on lanes 0-15, two on lanes 16-31, one with
// all lanes again, exit. Warp 1 has 16 lanes (48 threads) and never diverges.
std::string if_else_trace() {
  std::string t = test::kernel_header("if_else", 1, 48);
  t += ".cta 0 0 0\n.warp 0\n";
  t += "mov.u32 %r1, %tid.x\n";
  t += "bra $L_else\n";  // line 10 of the trace
  for (int i = 0; i < 3; ++i) t += "0000ffff add.s32 %r2, %r2, 1\n";
  for (int i = 0; i < 2; ++i) t += "ffff0000 add.s32 %r3, %r3, 1\n";
  t += "add.s32 %r4, %r2, %r3\nexit\n";
  t += ".warp 1\nmov.u32 %r1, %tid.x\nadd.s32 %r2, %r1, 1\nexit\n";
  return t;
}

KernelDivergence record(const std::string& trace, std::vector<uint32_t> warps) {
  DivergenceRecorder recorder(std::move(warps), 100);
  test::simulate_text("a100", trace, {}, [&](Gpu& gpu) { gpu.set_observer(&recorder); });
  EXPECT_EQ(recorder.kernels().size(), 1u);
  return recorder.kernels().at(0);
}

TEST(DivergenceView, CountsLanesAndChargesTheBranchByHand) {
  KernelDivergence k = record(if_else_trace(), {0, 1});
  // Warp 0: 9 instructions, 32+32+3*16+2*16+32+32 = 208 active of 288. Warp 1: 3 x 16 of 3 x 16.
  EXPECT_EQ(k.warp_instructions, 12u);
  EXPECT_EQ(k.active_lanes, 208u + 48u);
  EXPECT_EQ(k.possible_lanes, 288u + 48u);
  ASSERT_EQ(k.branches.size(), 1u);
  const BranchCost& b = k.branches.begin()->second;
  EXPECT_EQ(b.line, 10u);
  EXPECT_EQ(b.executed, 1u);
  EXPECT_EQ(b.diverged, 1u);
  EXPECT_EQ(b.instructions_on_paths, 5u);
  EXPECT_EQ(b.idle_lanes, 5u * 16u);
  EXPECT_EQ(k.unattributed_idle_lanes, 0u);
  EXPECT_EQ(k.active_lane_histogram[32], 4u);
  EXPECT_EQ(k.active_lane_histogram[16], 8u);

  ASSERT_EQ(k.warps.size(), 2u);
  const WarpPicture& w0 = k.warps[0];
  ASSERT_EQ(w0.rows.size(), 9u);
  EXPECT_EQ(w0.rows[2].mask, 0x0000ffffu);
  EXPECT_EQ(w0.rows[5].mask, 0xffff0000u);
  EXPECT_TRUE(w0.rows[1].branch);
  for (size_t i = 1; i < w0.rows.size(); ++i) EXPECT_GT(w0.rows[i].cycle, w0.rows[i - 1].cycle);
  EXPECT_EQ(k.warps[1].full_mask, 0x0000ffffu);
}

TEST(DivergenceView, DrawsLanesAndMarksSplitAndReconvergence) {
  KernelDivergence k = record(if_else_trace(), {0});
  const std::string plain = divergence_view({k}, false);
  EXPECT_NE(plain.find("################................"), std::string::npos) << plain;
  EXPECT_NE(plain.find("................################"), std::string::npos);
  EXPECT_NE(plain.find("<- diverged"), std::string::npos);
  EXPECT_NE(plain.find("<- reconverge"), std::string::npos);
  EXPECT_NE(plain.find("lane efficiency 72.2%"), std::string::npos);  // 208 / 288
  EXPECT_EQ(plain.find('\033'), std::string::npos);
  EXPECT_NE(divergence_view({k}, true).find('\033'), std::string::npos);
}

TEST(DivergenceView, CapsRowsButCountsEverything) {
  DivergenceRecorder recorder({0}, 4);
  test::simulate_text("a100", if_else_trace(), {}, [&](Gpu& gpu) { gpu.set_observer(&recorder); });
  const WarpPicture& w = recorder.kernels().at(0).warps.at(0);
  EXPECT_EQ(w.rows.size(), 4u);
  EXPECT_EQ(w.issued, 9u);
  EXPECT_NE(divergence_view(recorder.kernels(), false).find("5 more instructions"), std::string::npos);
}

}  // namespace
}  // namespace warpsim
