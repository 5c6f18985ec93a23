// The validation suite's own kernels (tools/validation/launch/) compute what their references
// say in warpsim too, on a config that runs them all, and the suite's generated files agree with
// the launch files they came from. Release build only (CMakePresets.json): the kernels are sized
// for a GPU, and the emulator they exercise is covered under the sanitizers by the other tests.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace warpsim {
namespace {

TEST(ValidationSuite, EveryKernelPassesItsReferenceInWarpsim) {
  std::vector<std::string> launches;
  for (const auto& e : std::filesystem::directory_iterator(test::source_path("tools/validation/launch")))
    launches.push_back(e.path().string());
  std::sort(launches.begin(), launches.end());
  ASSERT_GE(launches.size(), 30u);
  for (const auto& l : launches) {
    auto r = test::run_cli({"run", "--arch", "h200", l, "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << l << ": " << r.err;
    auto j = nlohmann::json::parse(r.out);
    if (j.contains("check")) {
      EXPECT_TRUE(j["check"]["passed"]) << l << ": " << j["check"].dump();
    }
  }
}

TEST(ValidationSuite, HarnessTableNamesEveryLaunchFile) {
  const std::string table = test::read_file(test::source_path("tools/validation/suite_table.h"));
  for (const auto& e : std::filesystem::directory_iterator(test::source_path("tools/validation/launch"))) {
    const std::string rel = "tools/validation/launch/" + e.path().filename().string();
    EXPECT_NE(table.find("\"" + rel + "\""), std::string::npos) << rel << " is not in suite_table.h: run tools/validation/suite.py";
  }
}

TEST(ValidationSuite, HarnessBuildsForHopperAndBlackwell) {
  std::string nvcc;
  for (const char* c : {"nvcc", "/usr/local/cuda/bin/nvcc"})
    if (std::system((std::string("command -v ") + c + " >/dev/null 2>&1").c_str()) == 0) nvcc = c;
  if (nvcc.empty()) GTEST_SKIP() << "nvcc is not installed here";
  test::TempDir dir;
  for (const char* arch : {"sm_90", "sm_100"}) {
    const std::string cmd = "cd " + test::source_path("tools/validation") + " && " + nvcc + " -O2 -std=c++17 -arch=" + arch +
                            " -diag-suppress 177 harness.cu -o " + dir.path(arch) + " >" + dir.path("log") + " 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << arch << ": " << test::read_file(dir.path("log"));
  }
}

}  // namespace
}  // namespace warpsim
