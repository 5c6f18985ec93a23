#pragma once
// `warpsim compare`: one workload on several GPU configs, as a side-by-side table and a bar chart.
#include <string>
#include <vector>

#include "report/kernel_summary.h"

namespace warpsim {

struct ComparisonRow {
  std::string arch, product;
  bool ran = false;
  std::string error;    // why it did not run (a precision or PTX target the GPU lacks, ...)
  std::string check;    // launch files with expect: "passed" / "FAILED"; else ""
  double check_error = 0;  // with a check: the largest |output - reference|
  Summary total;        // all kernels of the workload
  double peak_dram_gbps = 0;
};

// The time speed-ups are relative to: that of the first row that ran (0 if none ran).
double baseline_us(const std::vector<ComparisonRow>& rows);
// Speed-up is baseline_us(rows) / time of this row.
std::string comparison_table(const std::string& input, const std::vector<ComparisonRow>& rows);
std::string comparison_svg(const std::string& input, const std::vector<ComparisonRow>& rows);

}  // namespace warpsim
