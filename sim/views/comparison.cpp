#include "views/comparison.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "common/format.h"
#include "views/svg.h"

namespace warpsim {
namespace {

double flops(const Summary& s) { return s.fp32_flops + s.fp64_flops + s.fp16_flops + s.tensor_flops; }

}  // namespace

double baseline_us(const std::vector<ComparisonRow>& rows) {
  for (const auto& r : rows)
    if (r.ran) return r.total.time_us;
  return 0;
}

std::string comparison_table(const std::string& input, const std::vector<ComparisonRow>& rows) {
  std::ostringstream o;
  o << "warpsim compare: " << input << "\n\n";
  const char* head = "%-6s %12s %11s %9s  %-8s %6s %11s %7s %7s %6s %11s";
  char line[256];
  std::snprintf(line, sizeof line, head, "gpu", "cycles", "time (us)", "speed-up", "bound", "IPC", "DRAM GB/s", "L2 hit", "occup.",
                "SIMT", "FLOP/s");
  o << line << (std::any_of(rows.begin(), rows.end(), [](auto& r) { return !r.check.empty(); }) ? "  check" : "") << "\n";
  const double base = baseline_us(rows);
  for (const auto& r : rows) {
    if (!r.ran) {
      o << r.arch << std::string(r.arch.size() < 7 ? 7 - r.arch.size() : 1, ' ') << "not run: " << r.error << "\n";
      continue;
    }
    const Summary& s = r.total;
    std::snprintf(line, sizeof line, "%-6s %12llu %11.3f %8.2fx  %-8s %6.2f %11s %6.1f%% %6.1f%% %5.1f%% %11s", r.arch.c_str(),
                  static_cast<unsigned long long>(s.cycles), s.time_us, s.time_us > 0 ? base / s.time_us : 0.0, s.bound.c_str(), s.ipc,
                  fmt("%.0f", s.dram_bandwidth_gbps).c_str(), s.l2_hit_rate * 100, s.achieved_occupancy * 100, s.simt_efficiency * 100,
                  (si(s.counted_time_us() > 0 ? flops(s) / (s.counted_time_us() * 1e-6) : 0) + "").c_str());
    o << line << (r.check.empty() ? "" : "  " + r.check + fmt(" (largest error %.3g)", r.check_error)) << "\n";
  }
  o << "\nspeed-up: time of the first GPU that ran / time of this one. bound: what limits the run (see warpsim run for the reason).\n"
       "occup.: achieved occupancy. SIMT: active lanes per issued instruction. FLOP/s: all FLOPs (FP32, FP64, FP16, tensor) / time.\n";
  return o.str();
}

std::string comparison_svg(const std::string& input, const std::vector<ComparisonRow>& rows) {
  const double W = 760, H = 420, L = 90, R = 30, T = 50, B = 70;
  Svg svg(W, H, "Simulated time per GPU: " + input);
  double most = 0;
  for (const auto& r : rows)
    if (r.ran) most = std::max(most, r.total.time_us);
  if (most <= 0) most = 1;
  Axis y{0, most * 1.15, H - B, T};
  const double slot = (W - L - R) / double(std::max<size_t>(rows.size(), 1));
  const double base = baseline_us(rows);
  for (int t = 0; t <= 4; ++t) {
    const double v = most * 1.15 * t / 4;
    svg.line(L, y(v), W - R, y(v), "#ddd");
    svg.text(L - 6, y(v) + 4, fmt("%.3g", v), 11, "end");
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double x = L + slot * double(i) + slot * 0.2, w = slot * 0.6;
    svg.text(x + w / 2, H - B + 18, r.arch, 13, "middle");
    if (!r.ran) {
      svg.text(x + w / 2, H - B - 8, "not run", 11, "middle", "#a00");
      continue;
    }
    svg.rect(x, y(r.total.time_us), w, y(0) - y(r.total.time_us), palette(i), r.arch + ": " + fmt("%.3f us", r.total.time_us));
    svg.text(x + w / 2, y(r.total.time_us) - 6, fmt("%.2fx", base / r.total.time_us), 12, "middle");
    svg.text(x + w / 2, H - B + 34, r.total.bound, 11, "middle", "#555");
  }
  svg.line(L, H - B, W - R, H - B, "#000");
  svg.line(L, T, L, H - B, "#000");
  svg.text(24, (T + H - B) / 2, "time [us]", 13, "middle", "#222", -90);
  svg.text(W / 2, H - 12, "labels: speed-up over the first GPU; under each bar, what bounds it", 11, "middle", "#555");
  return svg.str();
}

}  // namespace warpsim
