#pragma once
// Nsight Compute's metrics, measured on a GPU, against the same metrics from warpsim: each
// simulated kernel launch paired with the launch ncu profiled, per metric the error and, over
// the kernels, how many agree exactly, the MAPE and the median |error| (docs/validation.md).
#include <map>
#include <string>
#include <vector>

#include "views/ncu_csv.h"

namespace warpsim {

// One simulated launch of a validation-suite entry and the metrics warpsim reports for it.
struct SimulatedLaunch {
  std::string entry, arch, kernel, grid;  // grid as NcuLaunch holds it: "(4,8,1)"
  std::map<std::string, double> metrics;
  std::map<std::string, std::string> kinds;  // "modelled" or "approximate" (docs/metrics.md)
};

struct MetricPoint {
  std::string entry, kernel, arch, metric, kind;
  double measured = 0, simulated = 0;
  bool exact() const;                // equal up to rounding
  double error_percent() const;      // (simulated - measured) / measured; 0 when measured is 0
};

struct MetricSummary {
  std::string metric, arch, kind;
  size_t launches = 0, exact = 0;
  size_t with_error = 0;          // launches whose measured value is not 0 (the MAPE's)
  double mape = 0, median_abs_error = 0;
};

// Pairs each simulated launch, in order, with the next profiled launch of the same kernel and
// grid (profiled launches of entries left out are passed over) and compares every metric both
// report. A simulated launch with no profiled partner is named in `notes`.
std::vector<MetricPoint> match_metrics(const std::vector<SimulatedLaunch>& simulated, const std::vector<NcuLaunch>& profiled,
                                       std::vector<std::string>& notes);
std::vector<MetricSummary> metric_summaries(const std::vector<MetricPoint>& points);
std::string metric_table(const std::vector<MetricSummary>& summaries);
std::string metric_csv(const std::vector<MetricPoint>& points);

}  // namespace warpsim
