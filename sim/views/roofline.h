#pragma once
// The roofline of one GPU config (ceilings derived from the config, as `warpsim arch show`
// prints them) with the kernels' achieved points, log-log, labelled as Nsight Compute labels
// its roofline chart: x "Arithmetic Intensity [FLOP/byte]" (FLOPs per DRAM byte), y
// "Performance [FLOP/s]".
#include <string>
#include <vector>

#include "config/derived_peaks.h"
#include "report/kernel_summary.h"

namespace warpsim {

struct RooflinePoint {
  std::string label;   // "sgemm (fp32)"
  std::string kind;    // "fp32", "fp64", "fp16", "tensor"
  double intensity = 0;  // FLOP per DRAM byte
  double flops_per_second = 0;
  bool no_dram = false;  // no DRAM traffic: intensity is off the chart, drawn at its right edge
};

// One point per FLOP kind a kernel executed.
std::vector<RooflinePoint> roofline_points(const std::vector<Summary>& kernels);

struct Ceiling {
  std::string label;
  double flops_per_second = 0;  // compute ceilings
  double bytes_per_second = 0;  // bandwidth ceilings
};
std::vector<Ceiling> roofline_ceilings(const GpuSpec& spec);

std::string roofline_svg(const GpuSpec& spec, const std::vector<RooflinePoint>& points);

}  // namespace warpsim
