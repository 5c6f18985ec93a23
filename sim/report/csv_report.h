#pragma once
#include <string>
#include <vector>

#include "report/kernel_summary.h"

namespace warpsim {

// Long format, like `ncu --csv`: one row per kernel and metric, so the two can be joined.
// Columns: Kernel Name, Metric Name, Metric Unit, Metric Value, Kind.
std::string csv_report(const std::vector<Summary>& kernels);

// A CSV field: quoted, with embedded quotes doubled (RFC 4180).
std::string csv_quote(const std::string& s);

}  // namespace warpsim
