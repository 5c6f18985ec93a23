// The validation scatter plot gives every kernel family a marker of its own, even when there are
// more families than colours in the palette (the suite has 16, the palette 12).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <utility>

#include "views/validation.h"

namespace warpsim {
namespace {

TEST(ValidationPlot, EveryFamilyHasADistinctMarker) {
  std::vector<ValidationPoint> points;
  for (int f = 0; f < 16; ++f) points.push_back({"k" + std::to_string(f), "family" + std::to_string(f), "h200", 10.0 + f, 12.0 + f});
  const std::string svg = validation_svg("t", points, validation_stats(points));
  // A legend entry is the marker whose tooltip is the family's name: its shape and fill.
  std::set<std::pair<std::string, std::string>> markers;
  for (int f = 0; f < 16; ++f) {
    const std::regex entry("<(circle|rect) [^>]*fill=\"(#[0-9A-Fa-f]{6})\"[^>]*><title>family" + std::to_string(f) + "</title>");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(svg, m, entry)) << "no legend marker for family" << f;
    markers.emplace(m[1], m[2]);
  }
  EXPECT_EQ(markers.size(), 16u);
  // Each point is drawn once, with the tooltip naming its kernel.
  for (int f = 0; f < 16; ++f) EXPECT_NE(svg.find("<title>k" + std::to_string(f) + " (h200): measured "), std::string::npos) << f;
}

}  // namespace
}  // namespace warpsim
