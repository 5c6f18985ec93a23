#pragma once
// One self-contained HTML file for a run: summary, stall breakdown, roofline, divergence and
// memory statistics. Charts are inline SVG; no network, scripts from elsewhere or web fonts.
#include <string>
#include <vector>

#include "report/kernel_summary.h"
#include "views/divergence_recorder.h"

namespace warpsim {

struct ReportInput {
  std::string title;      // the input file
  std::string version;
  const GpuSpec* spec = nullptr;
  const std::vector<Summary>* kernels = nullptr;
  const Summary* total = nullptr;
  const std::vector<KernelDivergence>* divergence = nullptr;
};

std::string html_report(const ReportInput& in);

// Horizontal bars of each kernel's warp states (cycles per issued instruction), as SVG.
std::string stall_chart_svg(const std::vector<Summary>& kernels);
// Issued instructions by active lanes, one histogram per kernel, as SVG.
std::string divergence_chart_svg(const KernelDivergence& k);

}  // namespace warpsim
