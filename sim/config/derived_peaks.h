#pragma once
// Peak rates that follow from a GpuSpec, and how they compare with the datasheet figures the
// config cites. `warpsim arch show` prints these; tests hold them within 2% or explained.
#include <string>
#include <vector>

#include "config/gpu_spec.h"

namespace warpsim {

struct PeakCheck {
  std::string what;        // "fp32_tflops", "tensor_tflops.fp16", ...
  double derived = 0;
  double datasheet = 0;
  std::string source;
  std::string explain;
  double percent_diff() const { return datasheet == 0 ? 0 : (derived - datasheet) / datasheet * 100.0; }
  bool within_2_percent() const { return percent_diff() <= 2.0 && percent_diff() >= -2.0; }
  bool acceptable() const { return within_2_percent() || !explain.empty(); }
};

struct DerivedPeaks {
  double fp32_tflops = 0, fp64_tflops = 0, fp16_tflops = 0;  // fp16: packed non-tensor
  double hbm_tbps = 0;
  double l2_tbps = 0;  // all slices at the core clock
  std::vector<std::pair<TensorPrecision, double>> tensor_tflops;  // at tensor_peak_mhz
  double ridge_fp32 = 0;  // FLOP per DRAM byte
  double ridge_tensor_fp16 = 0;
  std::vector<PeakCheck> checks;
};

DerivedPeaks derive_peaks(const GpuSpec& spec);

}  // namespace warpsim
