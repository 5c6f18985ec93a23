#pragma once
// A line chart of one sweep metric against one axis: the axis's choices along x in the order the
// sweep planned them, one line per combination of everything else (input, GPU, other axes).
#include <optional>
#include <string>
#include <vector>

namespace warpsim {

struct SweepSeries {
  std::string label;
  std::vector<std::optional<double>> y;  // one per x choice; empty where the point failed or is missing
};

std::string sweep_chart_svg(const std::string& title, const std::string& x_label, const std::vector<std::string>& x_choices,
                            const std::string& y_label, const std::vector<SweepSeries>& series);

}  // namespace warpsim
