#pragma once
// Gathers a sweep's result files into one table: a row per point (its inputs, the value or
// modifier it took on each axis, and the summary metrics of its run), as CSV or JSON.
#include <cstdint>
#include <string>
#include <vector>

#include "sweep/sweep_plan.h"

namespace warpsim::cli {

struct SweepTable {
  std::string text;  // the CSV or JSON
  nlohmann::ordered_json rows;  // the same rows, as JSON objects
  std::vector<std::string> axes;
  uint64_t ok = 0, failed = 0, missing = 0;
};

// A baseline choice, e.g. {"l2", "base"} or {"arch", "h100"}: each row gets its speed-up over
// the row that differs from it only in that column (and in the other baselines' columns).
struct SweepBaseline {
  std::string column, value;
};

struct SweepMergeOptions {
  bool as_json = false;
  bool per_kernel = false;  // a row per kernel of each point (a "kernel" column), not per point
  std::vector<SweepBaseline> baselines;
};

// With `points`, every planned point gets a row ("missing" where no result exists); without,
// every result file in `results_dir` does. Throws InputError for a result file that is not one,
// UsageError for a baseline column that is neither "arch" nor an axis.
SweepTable merge_sweep(const std::string& results_dir, const std::vector<SweepPoint>* points, const SweepMergeOptions& options);

// An SVG line chart of the numeric column `y` against axis `x` (its choices in plan order), a line
// per combination of the other columns that vary. Throws UsageError for unknown columns.
std::string sweep_chart(const SweepTable& table, const std::string& x, const std::string& y);

}  // namespace warpsim::cli
