// Roofline points from hand-made summaries, and ceilings that are exactly the config's derived peaks.
#include <gtest/gtest.h>

#include "config/load_config.h"
#include "views/roofline.h"

namespace warpsim {
namespace {

TEST(Roofline, PointIsFlopsPerDramByteAndFlopsPerSecond) {
  Summary s;
  s.name = "k";
  s.time_us = 1000;                 // 1 ms
  s.fp32_flops = 4e9;
  s.tensor_flops = 1e12;
  s.dram_bytes_read = 1500000000;
  s.dram_bytes_written = 500000000;  // 2 GB in all
  auto points = roofline_points({s});
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].label, "k (fp32)");
  EXPECT_DOUBLE_EQ(points[0].intensity, 2.0);
  EXPECT_DOUBLE_EQ(points[0].flops_per_second, 4e12);
  EXPECT_EQ(points[1].kind, "tensor");
  EXPECT_DOUBLE_EQ(points[1].intensity, 500.0);
  s.dram_bytes_read = s.dram_bytes_written = 0;
  EXPECT_TRUE(roofline_points({s})[0].no_dram);
}

TEST(Roofline, CeilingsAreTheDerivedPeaksOfEveryConfig) {
  for (const char* arch : {"v100", "a100", "h100", "h200", "b200"}) {
    LoadedConfig c = load_gpu_config(arch, {});
    const DerivedPeaks d = derive_peaks(c.spec);
    auto ceilings = roofline_ceilings(c.spec);
    EXPECT_DOUBLE_EQ(ceilings[0].bytes_per_second, d.hbm_tbps * 1e12) << arch;
    EXPECT_DOUBLE_EQ(ceilings[1].bytes_per_second, d.l2_tbps * 1e12) << arch;
    auto has_compute = [&](double flops) {
      return std::any_of(ceilings.begin(), ceilings.end(), [&](const Ceiling& x) { return x.flops_per_second == flops; });
    };
    EXPECT_TRUE(has_compute(d.fp32_tflops * 1e12)) << arch;
    EXPECT_TRUE(has_compute(d.fp64_tflops * 1e12)) << arch;
    for (auto [p, v] : d.tensor_tflops) {
      if (v <= 0) continue;
      EXPECT_TRUE(has_compute(v * 1e12)) << arch << " " << tensor_precision_name(p);
      const std::string name(tensor_precision_name(p));
      EXPECT_TRUE(std::any_of(ceilings.begin(), ceilings.end(), [&](const Ceiling& x) { return x.label.find(name) != std::string::npos; }))
          << arch << " " << name;
    }
    const std::string svg = roofline_svg(c.spec, {});
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
  }
}

}  // namespace
}  // namespace warpsim
