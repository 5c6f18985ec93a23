#include "views/sweep_chart.h"

#include <algorithm>
#include <cmath>

#include "common/format.h"
#include "views/svg.h"

namespace warpsim {

std::string sweep_chart_svg(const std::string& title, const std::string& x_label, const std::vector<std::string>& x_choices,
                            const std::string& y_label, const std::vector<SweepSeries>& series) {
  const double legend = 22.0 * static_cast<double>(series.size());
  const double W = 760, L = 90, R = 30, T = 50, B = 70, plot_h = 330, H = T + plot_h + B + legend;
  Svg svg(W, H, title);
  double most = 0;
  for (const auto& s : series)
    for (const auto& v : s.y)
      if (v) most = std::max(most, *v);
  if (most <= 0) most = 1;
  // Ticks at a round step (1, 2 or 5 x 10^k), about five of them.
  const double raw = most / 5, decade = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / decade <= 1 ? decade : raw / decade <= 2 ? 2 * decade : raw / decade <= 5 ? 5 * decade : 10 * decade;
  const int ticks = static_cast<int>(std::ceil(most / step - 1e-9));
  const double bottom = T + plot_h;
  Axis y{0, step * ticks, bottom, T};
  const double slot = (W - L - R) / double(std::max<size_t>(x_choices.size(), 1));
  auto x_at = [&](size_t i) { return L + slot * (double(i) + 0.5); };
  for (int t = 0; t <= ticks; ++t) {
    const double v = step * t;
    svg.line(L, y(v), W - R, y(v), "#ddd");
    svg.text(L - 6, y(v) + 4, si(v), 11, "end");
  }
  for (size_t i = 0; i < x_choices.size(); ++i) svg.text(x_at(i), bottom + 18, x_choices[i], 12, "middle");
  for (size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    const std::string colour = palette(k);
    // Lines join neighbouring choices that both have a value; a gap marks a failed or missing point.
    for (size_t i = 0; i + 1 < s.y.size(); ++i)
      if (s.y[i] && s.y[i + 1]) svg.line(x_at(i), y(*s.y[i]), x_at(i + 1), y(*s.y[i + 1]), colour, 2);
    for (size_t i = 0; i < s.y.size(); ++i)
      if (s.y[i]) svg.circle(x_at(i), y(*s.y[i]), 4, colour, s.label + ", " + x_label + " = " + x_choices[i] + ": " + fmt("%.6g", *s.y[i]));
    const double ly = bottom + B + 22.0 * double(k);
    svg.line(L, ly - 4, L + 24, ly - 4, colour, 2);
    svg.text(L + 32, ly, s.label, 12);
  }
  svg.line(L, bottom, W - R, bottom, "#000");
  svg.line(L, T, L, bottom, "#000");
  svg.text(24, (T + bottom) / 2, y_label, 13, "middle", "#222", -90);
  svg.text(W / 2, bottom + 40, x_label, 13, "middle");
  return svg.str();
}

}  // namespace warpsim
