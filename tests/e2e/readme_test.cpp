// The README's quick start shows what `tools/demo.sh` prints; those lines must be what the
// simulator prints today, so the first thing a reader sees never drifts from the model.
#include <gtest/gtest.h>

#include <sstream>

#include "support/test_support.h"

namespace warpsim {
namespace {

TEST(Readme, QuickStartSummaryIsWhatTheDemoPrints) {
  const std::string readme = test::read_file(test::source_path("README.md"));
  const size_t intro = readme.find("`tools/demo.sh` prints a summary like this");
  ASSERT_NE(intro, std::string::npos);
  const size_t open = readme.find("```\n", intro), close = readme.find("```", open + 4);
  ASSERT_NE(open, std::string::npos);
  ASSERT_NE(close, std::string::npos);
  // tools/demo.sh's command, after its set-up and build steps.
  const auto run = test::run_cli({"run", "--arch", "a100", test::source_path("traces/examples/vector_add.trace.gz")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::istringstream shown(readme.substr(open + 4, close - open - 4));
  int compared = 0;
  for (std::string line; std::getline(shown, line);) {
    if (line.find("...") != std::string::npos || line.empty()) continue;
    EXPECT_NE(run.out.find(line + "\n"), std::string::npos) << "README shows a line the demo no longer prints:\n" << line;
    ++compared;
  }
  EXPECT_GE(compared, 6);
}

}  // namespace
}  // namespace warpsim
