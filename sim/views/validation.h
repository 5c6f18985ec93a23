#pragma once
// Measured against simulated times: per-kernel error, summary statistics, CSV and a log-log
// scatter plot (docs/validation.md).
#include <string>
#include <vector>

namespace warpsim {

struct ValidationPoint {
  std::string name, family, arch;
  double measured_us = 0;   // after subtracting the empty-kernel baseline (when used)
  double simulated_us = 0;
  double error_percent() const { return (simulated_us - measured_us) / measured_us * 100.0; }
};

struct ValidationStats {
  size_t kernels = 0;
  double mape = 0;            // mean of |error|, percent
  double median_abs_error = 0;
  double pearson = 0;         // of the times
  double pearson_log = 0;     // of log10 times (what the log-log plot shows)
};

// The mean and the median of |errors| (percent): the MAPE and median |error| of the time table
// and of the metric table (metric_validation.h). Both 0 for no errors.
struct AbsErrorSummary {
  double mean = 0, median = 0;
};
AbsErrorSummary summarize_abs_errors(std::vector<double> abs_errors);

ValidationStats validation_stats(const std::vector<ValidationPoint>& points);
std::string validation_table(const std::vector<ValidationPoint>& points, const ValidationStats& stats);
std::string validation_csv(const std::vector<ValidationPoint>& points);
std::string validation_svg(const std::string& title, const std::vector<ValidationPoint>& points, const ValidationStats& stats);

}  // namespace warpsim
