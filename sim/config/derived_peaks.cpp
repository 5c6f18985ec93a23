#include "config/derived_peaks.h"

namespace warpsim {

DerivedPeaks derive_peaks(const GpuSpec& s) {
  DerivedPeaks d;
  const double lanes_per_sm_fma = double(s.pipe(Pipe::kFma).lanes) * s.topology.sub_partitions_per_sm;
  const double lanes_per_sm_fp64 = double(s.pipe(Pipe::kFp64).lanes) * s.topology.sub_partitions_per_sm;
  const double lanes_per_sm_fp16 = double(s.pipe(Pipe::kFp16).lanes) * s.topology.sub_partitions_per_sm;
  const double hz = s.clocks.boost_mhz * 1e6;
  d.fp32_tflops = s.topology.sms * lanes_per_sm_fma * 2 * hz / 1e12;
  d.fp64_tflops = s.topology.sms * lanes_per_sm_fp64 * 2 * hz / 1e12;
  d.fp16_tflops = s.topology.sms * lanes_per_sm_fp16 * 2 * 2 * hz / 1e12;  // half2: two FMAs per lane
  d.hbm_tbps = s.memory.hbm.peak_bytes_per_second() / 1e12;
  d.l2_tbps = double(s.memory.l2.slices) * s.memory.l2.bytes_per_clk_per_slice * hz / 1e12;
  for (int i = 1; i < kNumTensorPrecisions; ++i) {
    auto p = static_cast<TensorPrecision>(i);
    if (!s.tensor.supports(p)) continue;
    d.tensor_tflops.emplace_back(p, double(s.topology.sms) * s.tensor.flops_per_clk_per_sm[i] * s.tensor_clock_mhz(p) * 1e6 / 1e12);
  }
  d.ridge_fp32 = d.fp32_tflops / d.hbm_tbps;
  for (auto [p, v] : d.tensor_tflops)
    if (p == TensorPrecision::kFp16) d.ridge_tensor_fp16 = v / d.hbm_tbps;

  auto check = [&](const std::string& what, double derived, const DatasheetFigure& f) {
    d.checks.push_back(PeakCheck{what, derived, f.value, f.source, f.explain});
  };
  if (s.datasheet.fp32_tflops) check("fp32_tflops", d.fp32_tflops, *s.datasheet.fp32_tflops);
  if (s.datasheet.fp64_tflops) check("fp64_tflops", d.fp64_tflops, *s.datasheet.fp64_tflops);
  if (s.datasheet.hbm_tbps) check("hbm_tbps", d.hbm_tbps, *s.datasheet.hbm_tbps);
  for (auto [p, v] : d.tensor_tflops) {
    auto it = s.datasheet.tensor_tflops.find(p);
    if (it != s.datasheet.tensor_tflops.end()) check("tensor_tflops." + std::string(tensor_precision_name(p)), v, it->second);
  }
  return d;
}

}  // namespace warpsim
