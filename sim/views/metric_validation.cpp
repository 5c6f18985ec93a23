#include "views/metric_validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <tuple>

#include "common/format.h"
#include "views/validation.h"

namespace warpsim {

namespace {

// Launch-shape metrics repeat the launch file, so agreeing says nothing about the model.
const std::set<std::string> kNotCompared = {"launch__grid_size", "launch__block_size"};

std::string number(double v) { return fmt("%.6g", v); }

}  // namespace

bool MetricPoint::exact() const { return std::fabs(simulated - measured) <= 1e-9 * std::max(1.0, std::fabs(measured)); }

double MetricPoint::error_percent() const { return measured != 0 ? (simulated - measured) / measured * 100.0 : 0.0; }

std::vector<MetricPoint> match_metrics(const std::vector<SimulatedLaunch>& simulated, const std::vector<NcuLaunch>& profiled,
                                       std::vector<std::string>& notes) {
  std::vector<MetricPoint> points;
  size_t next = 0;
  for (const SimulatedLaunch& s : simulated) {
    size_t at = next;
    while (at < profiled.size() && !(profiled[at].kernel == s.kernel && profiled[at].grid == s.grid)) ++at;
    if (at == profiled.size()) {
      notes.push_back(s.entry + " on " + s.arch + ": no profiled launch of " + s.kernel + " with grid " + s.grid + " in the ncu CSV");
      continue;
    }
    next = at + 1;
    for (const auto& [metric, measured] : profiled[at].metrics) {
      auto it = s.metrics.find(metric);
      if (it == s.metrics.end() || kNotCompared.count(metric)) continue;
      const auto kind = s.kinds.find(metric);
      points.push_back({s.entry, s.kernel, s.arch, metric, kind == s.kinds.end() ? "" : kind->second, measured, it->second});
    }
  }
  return points;
}

std::vector<MetricSummary> metric_summaries(const std::vector<MetricPoint>& points) {
  std::vector<MetricSummary> out;
  std::vector<std::vector<double>> errors;
  for (const MetricPoint& p : points) {
    auto it = std::find_if(out.begin(), out.end(), [&](const MetricSummary& m) { return m.metric == p.metric && m.arch == p.arch; });
    if (it == out.end()) {
      out.push_back(MetricSummary{p.metric, p.arch, p.kind});
      errors.emplace_back();
      it = out.end() - 1;
    }
    MetricSummary& m = *it;
    ++m.launches;
    m.exact += p.exact();
    if (p.measured != 0) {
      ++m.with_error;
      errors[static_cast<size_t>(it - out.begin())].push_back(std::fabs(p.error_percent()));
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const AbsErrorSummary e = summarize_abs_errors(std::move(errors[i]));
    out[i].mape = e.mean;
    out[i].median_abs_error = e.median;
  }
  std::sort(out.begin(), out.end(), [](const MetricSummary& a, const MetricSummary& b) { return std::tie(a.arch, a.metric) < std::tie(b.arch, b.metric); });
  return out;
}

std::string metric_table(const std::vector<MetricSummary>& summaries) {
  std::ostringstream o;
  size_t width = 6;
  for (const auto& s : summaries) width = std::max(width, s.metric.size());
  char line[512];
  std::snprintf(line, sizeof line, "%-*s  %-6s  %8s  %6s  %9s  %12s  %s\n", static_cast<int>(width), "metric", "arch", "launches", "exact",
                "MAPE %", "median |e| %", "kind");
  o << line;
  for (const auto& s : summaries) {
    const std::string mape = s.with_error ? number(s.mape) : "-", median = s.with_error ? number(s.median_abs_error) : "-";
    std::snprintf(line, sizeof line, "%-*s  %-6s  %8zu  %6zu  %9s  %12s  %s\n", static_cast<int>(width), s.metric.c_str(), s.arch.c_str(),
                  s.launches, s.exact, mape.c_str(), median.c_str(), s.kind.c_str());
    o << line;
  }
  return o.str();
}

std::string metric_csv(const std::vector<MetricPoint>& points) {
  std::ostringstream o;
  o << "entry,kernel,arch,metric,kind,measured,simulated,error_percent\n";
  for (const auto& p : points)
    o << p.entry << "," << p.kernel << "," << p.arch << "," << p.metric << "," << p.kind << "," << number(p.measured) << ","
      << number(p.simulated) << "," << (p.measured != 0 ? number(p.error_percent()) : "") << "\n";
  return o.str();
}

}  // namespace warpsim
