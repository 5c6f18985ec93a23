// The tensor cores' arithmetic end to end: the shipped FP8 mma.sync kernel run with each GPU's
// config (as `warpsim run` sets it up) against the double-precision reference, and the property
// that tells Hopper's FP8 path (wgmma's) apart, worked out without the emulator: its f32 results
// keep 13 fraction bits, so the low 10 bits of every one are zero. Hopper's warp-level FP8 MMAs
// do not take that path (they run as FP16 MMAs: configs/h100.yaml, warp_fp8_via_fp16), so the
// FP8 path is reached here with that switch off.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "unit/frontend/ptx_run.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

std::vector<float> reference(const std::string& file) {
  const std::string bytes = test::read_file(test::source_path("traces/kernels/ref/" + file));
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

void fp8_path(GpuSpec& s) { s.tensor.warp_fp8_via_fp16 = false; }

TEST(MmaNumerics, HopperKeepsThirteenFractionBitsForFp8AndBlackwellKeepsF32) {
  const std::string launch = test::source_path("traces/kernels/mma_e4m3.launch.yaml");
  const std::vector<float> ref = reference("mma_e4m3_c.bin");
  for (const char* arch : {"h100", "h200", "b200"}) {
    SCOPED_TRACE(arch);
    const test::Ran r = test::run_launch(arch, launch, fp8_path);
    const std::vector<float> c = test::buffer<float>(*r.workload, "c");
    ASSERT_EQ(c.size(), ref.size());
    const bool hopper = std::string(arch) != "b200";
    uint32_t low_bits = 0, differ = 0;
    double worst = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      low_bits += (std::bit_cast<uint32_t>(c[i]) & 0x3ff) != 0;
      differ += c[i] != ref[i];
      worst = std::max(worst, std::fabs(static_cast<double>(c[i]) - ref[i]));
    }
    if (hopper) {
      EXPECT_EQ(low_bits, 0u);
      EXPECT_GT(differ, 0u);  // the reference has the bits Hopper drops
      // Each of 32 products (exponents up to 2) truncated by under 2^(2 - 13), the f32 result
      // (below 4) by under 2^(1 - 13).
      EXPECT_LT(worst, 32 * std::ldexp(1.0, -11) + std::ldexp(1.0, -12));
    } else {
      EXPECT_GT(low_bits, c.size() / 2);
      EXPECT_LT(worst, 1e-5);  // 32 exact products, 25 bits kept, one truncation
    }
  }
}

// Hopper's mma.sync FP8 as its SASS does it: each k32 MMA is two k16 FP16 MMAs on inputs
// converted exactly to f16, so each 16 products are a block of FP16's (16 terms, 2 extra bits):
// the results keep low bits, unlike the FP8 path's, and come within FP16-path rounding of the
// exact sums (32 exact products; two blocks, each truncated once below 2^-25 of |C| < 4).
TEST(MmaNumerics, HoppersWarpLevelFp8RunsOnTheFp16Path) {
  const std::string launch = test::source_path("traces/kernels/mma_e4m3.launch.yaml");
  const std::vector<float> ref = reference("mma_e4m3_c.bin");
  const std::vector<float> warp = test::buffer<float>(*test::run_launch("h100", launch).workload, "c");
  const std::vector<float> fp8 = test::buffer<float>(*test::run_launch("h100", launch, fp8_path).workload, "c");
  ASSERT_EQ(warp.size(), ref.size());
  uint32_t low_bits = 0, differ = 0;
  double worst = 0;
  for (size_t i = 0; i < warp.size(); ++i) {
    low_bits += (std::bit_cast<uint32_t>(warp[i]) & 0x3ff) != 0;
    differ += warp[i] != fp8[i];
    worst = std::max(worst, std::fabs(static_cast<double>(warp[i]) - ref[i]));
  }
  EXPECT_GT(low_bits, warp.size() / 2);
  EXPECT_GT(differ, 0u);
  EXPECT_LT(worst, 1e-5);
  EXPECT_EQ(test::buffer<float>(*test::run_launch("h200", launch).workload, "c"), warp);  // the same GH100
}

double worst_error(const char* arch, const char* file, const std::vector<float>& ref, const std::function<void(GpuSpec&)>& tweak = {}) {
  const test::Ran r = test::run_launch(arch, test::source_path(std::string("traces/kernels/") + file + ".launch.yaml"), tweak);
  const std::vector<float> c = test::buffer<float>(*r.workload, "c");
  EXPECT_EQ(c.size(), ref.size());
  double worst = 0;
  for (size_t i = 0; i < std::min(c.size(), ref.size()); ++i) worst = std::max(worst, std::fabs(static_cast<double>(c[i]) - ref[i]));
  return worst;
}

TEST(MmaNumerics, PromotingFp8PartialSumsCutsHoppersErrorAndBlackwellNeedsIt) {
  // docs/tensor-numerics.md's table: K = 4096 in FP8 MMA accumulators (|C| up to 58). Hopper's
  // FP8 path (wgmma's) truncates each product below 2^(E - 13) as the sum grows: errors of a
  // tenth; promoting every 128 products to f32 registers keeps the accumulator small: several
  // times less. B200 keeps f32 precision either way, and so does Hopper's mma.sync (FP16 path:
  // the H200 measured 7.6e-6).
  const std::vector<float> ref = reference("fp8_accumulate_c.bin");
  const double h100 = worst_error("h100", "fp8_accumulate", ref, fp8_path), h100_promoted = worst_error("h100", "fp8_accumulate_promoted", ref, fp8_path);
  const double b200 = worst_error("b200", "fp8_accumulate", ref), b200_promoted = worst_error("b200", "fp8_accumulate_promoted", ref);
  EXPECT_GT(h100, 0.05);
  EXPECT_LT(h100, 0.25);
  EXPECT_LT(h100_promoted * 4, h100);
  EXPECT_LT(b200, 1e-4);
  EXPECT_LT(b200_promoted, 1e-4);
  EXPECT_EQ(worst_error("h200", "fp8_accumulate", ref, fp8_path), h100);  // the same GH100 arithmetic
  EXPECT_LT(worst_error("h100", "fp8_accumulate", ref), 1e-4);
}

TEST(MmaNumerics, TermsZeroAsksForIeeeArithmetic) {
  // The what-if of docs/tensor-numerics.md: H100 with IEEE FP8 sums, one rounding to nearest per
  // product into a float: far closer than the block FMA's 0.111, not exact (4096 roundings).
  auto r = test::run_cli({"run", "--arch", "h100", test::source_path("traces/kernels/fp8_accumulate.launch.yaml"), "--set",
                          "tensor.block_sum.fp8.terms=0", "--set", "tensor.warp_fp8_via_fp16=false"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t at = r.out.find("largest |error| ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const double ieee = std::stod(r.out.substr(at + 16));
  EXPECT_GT(ieee, 0.0);
  EXPECT_LT(ieee, 1e-4);
}

TEST(MmaNumerics, TheSameFp16MmaDiffersBetweenGenerations) {
  // hgemm_mma (FP16 in, f32 out, k = 64): A100 adds 8 products per block with one extra bit,
  // H100 16 with two, so some of the 4096 results differ, by a few f32 places at most.
  const std::string launch = test::source_path("traces/kernels/hgemm_mma.launch.yaml");
  const std::vector<float> a100 = test::buffer<float>(*test::run_launch("a100", launch).workload, "c");
  const std::vector<float> h100 = test::buffer<float>(*test::run_launch("h100", launch).workload, "c");
  ASSERT_EQ(a100.size(), h100.size());
  uint32_t differ = 0;
  for (size_t i = 0; i < a100.size(); ++i) {
    differ += a100[i] != h100[i];
    EXPECT_LE(std::fabs(a100[i] - h100[i]), 1e-4 * std::max(1.0f, std::fabs(h100[i]))) << i;
  }
  EXPECT_GT(differ, 0u);
}

}  // namespace
}  // namespace warpsim
