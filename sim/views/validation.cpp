#include "views/validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <utility>

#include "common/format.h"
#include "views/svg.h"

namespace warpsim {
namespace {

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = double(x.size());
  if (x.size() < 2) return 0;
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

}  // namespace

AbsErrorSummary summarize_abs_errors(std::vector<double> e) {
  AbsErrorSummary s;
  if (e.empty()) return s;
  for (double x : e) s.mean += x / double(e.size());
  std::sort(e.begin(), e.end());
  const size_t n = e.size();
  s.median = n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
  return s;
}

ValidationStats validation_stats(const std::vector<ValidationPoint>& points) {
  ValidationStats s;
  s.kernels = points.size();
  if (points.empty()) return s;
  std::vector<double> errors, m, sim, lm, lsim;
  for (const auto& p : points) {
    errors.push_back(std::fabs(p.error_percent()));
    m.push_back(p.measured_us);
    sim.push_back(p.simulated_us);
    lm.push_back(std::log10(p.measured_us));
    lsim.push_back(std::log10(std::max(p.simulated_us, 1e-6)));
  }
  const AbsErrorSummary e = summarize_abs_errors(std::move(errors));
  s.mape = e.mean;
  s.median_abs_error = e.median;
  s.pearson = pearson(m, sim);
  s.pearson_log = pearson(lm, lsim);
  return s;
}

std::string validation_table(const std::vector<ValidationPoint>& points, const ValidationStats& stats) {
  std::ostringstream o;
  char line[200];
  std::snprintf(line, sizeof line, "%-26s %-12s %-6s %13s %13s %9s\n", "kernel", "family", "gpu", "measured us", "simulated us", "error");
  o << line;
  for (const auto& p : points) {
    std::snprintf(line, sizeof line, "%-26s %-12s %-6s %13.3f %13.3f %+8.1f%%\n", p.name.c_str(), p.family.c_str(), p.arch.c_str(),
                  p.measured_us, p.simulated_us, p.error_percent());
    o << line;
  }
  // Per family, then overall.
  std::map<std::string, std::vector<ValidationPoint>> families;
  for (const auto& p : points) families[p.family].push_back(p);
  o << "\nper family (MAPE):";
  for (const auto& [f, ps] : families) o << "  " << f << " " << fmt("%.1f%%", validation_stats(ps).mape);
  o << "\n\n" << stats.kernels << " kernels: MAPE " << fmt("%.1f%%", stats.mape) << ", median |error| " << fmt("%.1f%%", stats.median_abs_error)
    << ", correlation " << fmt("%.3f", stats.pearson) << " (of log times " << fmt("%.3f", stats.pearson_log) << ")\n";
  return o.str();
}

std::string validation_csv(const std::vector<ValidationPoint>& points) {
  std::ostringstream o;
  o << "kernel,family,gpu,measured_us,simulated_us,error_percent\n";
  for (const auto& p : points)
    o << p.name << "," << p.family << "," << p.arch << "," << fmt("%.4f", p.measured_us) << "," << fmt("%.4f", p.simulated_us) << ","
      << fmt("%.2f", p.error_percent()) << "\n";
  return o.str();
}

std::string validation_svg(const std::string& title, const std::vector<ValidationPoint>& points, const ValidationStats& stats) {
  const double W = 760, H = 640, L = 80, R = 190, T = 50, B = 70;
  double lo = 1e30, hi = 0;
  for (const auto& p : points) {
    lo = std::min({lo, p.measured_us, std::max(p.simulated_us, 1e-3)});
    hi = std::max({hi, p.measured_us, p.simulated_us});
  }
  if (points.empty()) lo = 1, hi = 10;
  lo = std::pow(10, std::floor(std::log10(lo)));
  hi = std::pow(10, std::ceil(std::log10(hi)));
  const double side = std::min(W - L - R, H - T - B);
  Axis x{lo, hi, L, L + side, true}, y{lo, hi, T + side, T, true};
  Svg svg(W, H, title);
  for (double v = lo; v <= hi * 1.001; v *= 10) {
    svg.line(x(v), T, x(v), T + side, "#ddd");
    svg.line(L, y(v), L + side, y(v), "#ddd");
    svg.text(x(v), T + side + 16, si(v), 11, "middle");
    svg.text(L - 6, y(v) + 4, si(v), 11, "end");
  }
  svg.line(x(lo), y(lo), x(hi), y(hi), "#444", 1.5, true);
  svg.text(x(hi) - 4, y(hi) + 14, "y = x", 11, "end", "#444");
  svg.line(L, T + side, L + side, T + side, "#000");
  svg.line(L, T, L, T + side, "#000");
  svg.text(L + side / 2, T + side + 40, "measured time [us]", 13, "middle");
  svg.text(22, T + side / 2, "simulated time [us]", 13, "middle", "#222", -90);
  // The palette has 12 colours and the suite more families: the first 12 families are circles,
  // the next 12 squares, so every family keeps a marker of its own.
  std::map<std::string, size_t> family_index;
  for (const auto& p : points) family_index.emplace(p.family, family_index.size());
  auto marker = [&](double cx, double cy, size_t i, const std::string& tooltip) {
    if (i / kPaletteSize % 2 == 0) {
      svg.circle(cx, cy, 5, palette(i), tooltip);
    } else {
      svg.rect(cx - 4.5, cy - 4.5, 9, 9, palette(i), tooltip);
    }
  };
  for (const auto& p : points) {
    marker(x(p.measured_us), y(std::max(p.simulated_us, lo)), family_index[p.family],
           p.name + " (" + p.arch + "): measured " + fmt("%.3f", p.measured_us) + " us, simulated " + fmt("%.3f", p.simulated_us) + " us, " +
               fmt("%+.1f%%", p.error_percent()));
  }
  double ly = T + 10;
  for (const auto& [family, c] : family_index) {
    marker(L + side + 24, ly, c, family);
    svg.text(L + side + 34, ly + 4, family, 12);
    ly += 18;
  }
  svg.text(L + side + 18, ly + 16, "MAPE " + fmt("%.1f%%", stats.mape), 12);
  svg.text(L + side + 18, ly + 32, "median " + fmt("%.1f%%", stats.median_abs_error), 12);
  svg.text(L + side + 18, ly + 48, "correlation " + fmt("%.3f", stats.pearson), 12);
  return svg.str();
}

}  // namespace warpsim
