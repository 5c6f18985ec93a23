#include "views/roofline.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "views/svg.h"

namespace warpsim {

std::vector<RooflinePoint> roofline_points(const std::vector<Summary>& kernels) {
  std::vector<RooflinePoint> out;
  for (const Summary& k : kernels) {
    const double bytes = double(k.dram_bytes_read + k.dram_bytes_written), seconds = k.counted_time_us() * 1e-6;  // the counts' own time when sampled
    if (seconds <= 0) continue;
    for (auto [kind, flops] : {std::pair{"fp32", k.fp32_flops}, {"fp64", k.fp64_flops}, {"fp16", k.fp16_flops}, {"tensor", k.tensor_flops}}) {
      if (flops <= 0) continue;
      RooflinePoint p;
      p.label = k.name + " (" + kind + ")";
      p.kind = kind;
      p.no_dram = bytes == 0;
      p.intensity = bytes > 0 ? flops / bytes : 0;
      p.flops_per_second = flops / seconds;
      out.push_back(p);
    }
  }
  return out;
}

std::vector<Ceiling> roofline_ceilings(const GpuSpec& spec) {
  const DerivedPeaks d = derive_peaks(spec);
  std::vector<Ceiling> c;
  c.push_back({"DRAM " + si(d.hbm_tbps * 1e12) + "B/s", 0, d.hbm_tbps * 1e12});
  c.push_back({"L2 " + si(d.l2_tbps * 1e12) + "B/s", 0, d.l2_tbps * 1e12});
  // Tensor precisions with the same rate share one line.
  std::map<double, std::string, std::greater<>> tensor;
  for (auto [p, v] : d.tensor_tflops) {
    if (v <= 0) continue;
    std::string& names = tensor[v];
    names += (names.empty() ? "" : "/") + std::string(tensor_precision_name(p));
  }
  for (const auto& [v, names] : tensor) c.push_back({"tensor " + names + " " + si(v * 1e12) + "FLOP/s", v * 1e12, 0});
  c.push_back({"FP16 " + si(d.fp16_tflops * 1e12) + "FLOP/s", d.fp16_tflops * 1e12, 0});
  c.push_back({"FP32 " + si(d.fp32_tflops * 1e12) + "FLOP/s", d.fp32_tflops * 1e12, 0});
  c.push_back({"FP64 " + si(d.fp64_tflops * 1e12) + "FLOP/s", d.fp64_tflops * 1e12, 0});
  return c;
}

std::string roofline_svg(const GpuSpec& spec, const std::vector<RooflinePoint>& points) {
  const std::vector<Ceiling> ceilings = roofline_ceilings(spec);
  const double dram = ceilings[0].bytes_per_second;
  double top = 0, bottom = 1e30, right = 0, left = 1e30;
  for (const auto& c : ceilings) {
    if (c.flops_per_second > 0) {
      top = std::max(top, c.flops_per_second);
      bottom = std::min(bottom, c.flops_per_second);
      right = std::max(right, c.flops_per_second / dram);
      left = std::min(left, c.flops_per_second / dram);
    }
  }
  for (const auto& p : points) {
    top = std::max(top, p.flops_per_second);
    bottom = std::min(bottom, p.flops_per_second);
    if (!p.no_dram) {
      right = std::max(right, p.intensity);
      left = std::min(left, p.intensity);
    }
  }
  const double y_hi = std::pow(10, std::ceil(std::log10(top * 1.5)));
  const double y_lo = std::max(std::pow(10, std::floor(std::log10(bottom / 3))), y_hi / 1e9);
  const double x_hi = std::pow(10, std::ceil(std::log10(right * 4)));
  const double x_lo = std::max(std::pow(10, std::floor(std::log10(std::min(left / 4, 1.0)))), x_hi / 1e9);
  const double W = 920, H = 560, L = 90, R = 300, T = 40, B = 60;
  Axis x{x_lo, x_hi, L, W - R, true}, y{y_lo, y_hi, H - B, T, true};
  Svg svg(W, H, "Roofline: " + spec.name + " (" + spec.product + ")");
  for (double v = x_lo; v <= x_hi * 1.001; v *= 10) {
    svg.line(x(v), T, x(v), H - B, "#ddd");
    svg.text(x(v), H - B + 18, si(v), 11, "middle");
  }
  for (double v = y_lo; v <= y_hi * 1.001; v *= 10) {
    svg.line(L, y(v), W - R, y(v), "#ddd");
    svg.text(L - 6, y(v) + 4, si(v), 11, "end");
  }
  svg.line(L, H - B, W - R, H - B, "#000");
  svg.line(L, T, L, H - B, "#000");
  svg.text((L + W - R) / 2, H - 18, "Arithmetic Intensity [FLOP/byte]", 13, "middle");
  svg.text(24, (T + H - B) / 2, "Performance [FLOP/s]", 13, "middle", "#222", -90);
  // Bandwidth roofs rise until they meet the highest compute ceiling; compute ceilings are flat
  // from their ridge point (where they meet the DRAM roof) to the right.
  size_t colour = 0;
  for (const auto& c : ceilings) {
    if (c.bytes_per_second <= 0) continue;
    const double x_end = std::min(x_hi, top / c.bytes_per_second);
    const double x_start = std::max(x_lo, y_lo / c.bytes_per_second);
    svg.line(x(x_start), y(x_start * c.bytes_per_second), x(x_end), y(x_end * c.bytes_per_second), palette(colour), 2,
             c.label.rfind("L2", 0) == 0);
    svg.text(x(x_start) + 4, y(x_start * c.bytes_per_second) - 6, c.label, 11, "start", palette(colour));
    ++colour;
  }
  // Compute ceilings: flat from the ridge point (where each meets the DRAM roof). Labels sit at
  // the right, pushed apart where ceilings are close (FP32 and FP64 tensor often are).
  std::vector<std::pair<double, std::string>> labels;
  for (const auto& c : ceilings) {
    if (c.flops_per_second <= 0) continue;
    const double ridge = c.flops_per_second / dram;
    svg.line(x(std::max(ridge, x_lo)), y(c.flops_per_second), W - R, y(c.flops_per_second), palette(colour), 2);
    if (ridge > x_lo && ridge < x_hi) svg.circle(x(ridge), y(c.flops_per_second), 3, palette(colour), "ridge point: " + si(ridge) + " FLOP/byte");
    labels.emplace_back(y(c.flops_per_second) + 4, c.label + ", ridge " + si(ridge, 3) + " FLOP/B|" + palette(colour));
    ++colour;
  }
  std::sort(labels.begin(), labels.end());
  for (size_t i = 1; i < labels.size(); ++i) labels[i].first = std::max(labels[i].first, labels[i - 1].first + 13);
  for (const auto& [ly, text] : labels) {
    const size_t bar = text.rfind('|');
    svg.text(W - R + 6, ly, text.substr(0, bar), 11, "start", text.substr(bar + 1));
  }
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const double px = p.no_dram ? W - R : x(p.intensity), py = y(p.flops_per_second);
    svg.circle(px, py, 6, palette(colour + i),
               p.label + ": " + si(p.flops_per_second) + "FLOP/s at " + (p.no_dram ? "no DRAM traffic" : si(p.intensity) + " FLOP/byte"));
    svg.text(p.no_dram ? px - 9 : px + 9, py + 4, p.label + (p.no_dram ? ", no DRAM traffic" : ""), 11, p.no_dram ? "end" : "start", "#000");
  }
  return svg.str();
}

}  // namespace warpsim
