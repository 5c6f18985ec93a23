// warpsim run's views from the command line: the divergence view, timeline, roofline and the
// HTML report, which a headless Chromium must render without errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace warpsim {
namespace {

using test::run_cli;
using test::source_path;
namespace fs = std::filesystem;

const std::string kDivergence = source_path("traces/kernels/divergence.launch.yaml");

TEST(ViewsCli, WarpViewDrawsLanesWithBothReconvergenceModels) {
  for (const char* model : {"stack", "independent"}) {
    auto r = run_cli({"run", "--arch", "h100", kDivergence, "--reconvergence", model, "--view", "warps", "--view-warps", "1", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("warp 1 of CTA (0,0,0)"), std::string::npos) << r.out;
    // Odd lanes take the if-path, even lanes the else-path (divergence.cu).
    EXPECT_NE(r.out.find(".#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#"), std::string::npos) << model;
    EXPECT_NE(r.out.find("#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#."), std::string::npos) << model;
    EXPECT_NE(r.out.find("<- reconverge"), std::string::npos);
    EXPECT_NE(r.out.find("cycles lost"), std::string::npos);
    EXPECT_EQ(r.out.find('\033'), std::string::npos) << "colour when stdout is not a terminal";
  }
}

TEST(ViewsCli, TimelineRooflineAndReportFiles) {
  test::TempDir dir;
  auto r = run_cli({"run", "--arch", "a100", kDivergence, "-q", "--timeline", dir.path("t.json"), "--roofline", dir.path("r.svg"),
                    "--report", dir.path("r.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto t = nlohmann::json::parse(test::read_file(dir.path("t.json")));
  EXPECT_GT(t["traceEvents"].size(), 100u);
  const std::string svg = test::read_file(dir.path("r.svg"));
  EXPECT_NE(svg.find("Arithmetic Intensity [FLOP/byte]"), std::string::npos);
  EXPECT_NE(svg.find("Performance [FLOP/s]"), std::string::npos);
  EXPECT_NE(svg.find("divergence (fp32)"), std::string::npos);
  const std::string html = test::read_file(dir.path("r.html"));
  for (const char* external : {"src=", "href=", "url(", "@import", "<link"}) EXPECT_EQ(html.find(external), std::string::npos) << external;
  for (const char* section : {"Summary", "Stall breakdown", "Roofline", "Divergence", "Memory"})
    EXPECT_NE(html.find(std::string("<h2>") + section), std::string::npos) << section;
}

TEST(ViewsCli, ColourOnlyOnATerminalAndNeverWithNoColor) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1) to give warpsim a terminal";
  test::TempDir dir;
  // script(1) runs the command on a pseudo-terminal, as a user's shell would.
  auto on_tty = [&](const std::string& env) {
    const std::string cmd = env + " script -qec '" + std::string(WARPSIM_BINARY) + " run --arch h100 " + kDivergence +
                            " --view warps --view-warps 0 -q' /dev/null >" + dir.path("tty") + " 2>&1 </dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    return test::read_file(dir.path("tty"));
  };
  const std::string coloured = on_tty("env -u NO_COLOR"), plain = on_tty("env NO_COLOR=1");
  EXPECT_NE(coloured.find("\033["), std::string::npos);
  EXPECT_NE(plain.find("#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#."), std::string::npos) << plain.substr(0, 500);
  EXPECT_EQ(plain.find("\033["), std::string::npos);
}

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    std::string cmd = std::string("command -v ") + name + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return name;
  }
  return "";
}

TEST(ViewsCli, HtmlReportRendersInHeadlessChromium) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium: tools/setup.sh --tests installs it";
  test::TempDir dir;
  auto r = run_cli({"run", "--arch", "h100", kDivergence, "-q", "--report", dir.path("r.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string cmd = chromium + " --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir=" + dir.path("profile") +
                          " --enable-logging=stderr --v=0 --dump-dom file://" + dir.path("r.html") + " >" + dir.path("dom") + " 2>" +
                          dir.path("log");
  ASSERT_EQ(std::system(cmd.c_str()), 0) << test::read_file(dir.path("log"));
  const std::string dom = test::read_file(dir.path("dom")), log = test::read_file(dir.path("log"));
  // The page's own script sets data-rendered="yes" once every chart has a non-empty box.
  EXPECT_NE(dom.find("data-rendered=\"yes\""), std::string::npos) << dom.substr(0, 400);
  EXPECT_EQ(log.find(":CONSOLE"), std::string::npos) << log;
  EXPECT_EQ(log.find("Uncaught"), std::string::npos) << log;
}

TEST(ViewsCli, BadViewOptionsExit2AndWriteNothing) {
  test::TempDir dir;
  const std::string t = dir.path("t.json");
  for (std::vector<std::string> bad : {std::vector<std::string>{"--view", "lanes"}, {"--timeline-window", "50:10"}, {"--timeline-window", "x"},
                                       {"--timeline-sms", "1-"}, {"--timeline-max-mb", "0"}, {"--view", "warps", "--view-warps", "a"}}) {
    std::vector<std::string> args{"run", "--arch", "a100", kDivergence, "--timeline", t};
    args.insert(args.end(), bad.begin(), bad.end());
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << bad[0] << " " << bad[1] << ": " << r.err;
    EXPECT_NE(r.err.find("--"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(t));
  }
  auto r = run_cli({"run", "--arch", "a100", dir.write("bad.trace", ".version 1\n.kernel k\n.grid 1\n.block 32\n.cta 0 0 0\n.warp 0\nfrobnicate\n"),
                    "--timeline", t, "--report", dir.path("r.html")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_FALSE(fs::exists(t));
  EXPECT_FALSE(fs::exists(dir.path("r.html")));
}

}  // namespace
}  // namespace warpsim
