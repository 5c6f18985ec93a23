// warpsim sweep: a plan is every combination of inputs, configs and axis choices, in a fixed
// order with ids that follow the resolved config; each point's result is what `warpsim run`
// reports for it; reruns resume; chunks cover each point once; the merged table has a row per
// point; bad sweep files are located errors; and the Slurm script runs under a stand-in sbatch.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/test_support.h"

namespace warpsim {
namespace {

using test::run_cli;
using test::source_path;

std::vector<nlohmann::json> lines_of(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    rows.push_back(cells);
  }
  return rows;
}

// What `warpsim run` reports for a planned point, run on its own (empty on failure).
nlohmann::json run_point(const nlohmann::json& p) {
  std::vector<std::string> args{"run", "--arch", p["arch"]};
  for (const auto& s : p["set"]) args.insert(args.end(), {"--set", s});
  args.insert(args.end(), {p["input"], "--json", "-"});
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

size_t column(const std::vector<std::string>& header, const std::string& name) {
  auto it = std::find(header.begin(), header.end(), name);
  EXPECT_NE(it, header.end()) << name;
  return static_cast<size_t>(it - header.begin());
}

// A small sweep: one trace, two scheduling policies, a named L1 axis with a modifier that only
// restates the shipped value.
std::string small_sweep(const test::TempDir& dir, const std::string& arch = "[a100]") {
  return dir.write("sweep.yaml", "inputs: " + source_path("traces/examples/fma_ilp.trace") + "\narch: " + arch +
                                     "\naxes:\n"
                                     "  scheduler.policy: [gto, lrr]\n"
                                     "  latency:\n"
                                     "    shipped: {}\n"
                                     "    slow_l2: {memory.l2.hit_latency: 400}\n");
}

TEST(SweepCli, PlanIsEveryCombinationInOrderWithIdsOfTheResolvedConfig) {
  test::TempDir dir;
  std::filesystem::copy_file(source_path("traces/examples/divergence.trace"), dir.path("k.trace"));
  const std::string sweep = dir.write("sweep.yaml",
                                      "inputs:\n  - " + source_path("traces/examples/fma_ilp.trace") +
                                          "\n  - k.trace            # beside the sweep file\n"
                                          "arch: [v100, a100]\n"
                                          "axes:\n"
                                          "  policy:\n"
                                          "    shipped: {}\n"
                                          "    restated: {scheduler.policy: gto}\n"
                                          "    lrr: {scheduler.policy: lrr}\n"
                                          "  memory.l2.hit_latency: [100, 200]\n");
  auto r = run_cli({"sweep", "plan", sweep});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto points = lines_of(r.out);
  ASSERT_EQ(points.size(), 2u * 2 * 3 * 2);
  std::set<std::string> ids;
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    EXPECT_EQ(p["index"], i);
    // Inputs outermost, then configs, then the axes with the last one fastest.
    EXPECT_EQ(p["input"], i < 12 ? source_path("traces/examples/fma_ilp.trace") : dir.path("k.trace"));
    EXPECT_EQ(p["arch"], (i % 12) < 6 ? "v100" : "a100");
    const char* policies[] = {"shipped", "restated", "lrr"};
    EXPECT_EQ(p["axes"]["policy"], policies[(i % 6) / 2]);
    EXPECT_EQ(p["axes"]["memory.l2.hit_latency"], i % 2 ? "200" : "100");
    ids.insert(p["point_id"].get<std::string>());
  }
  EXPECT_EQ(points[2]["set"], nlohmann::json({"scheduler.policy=gto", "memory.l2.hit_latency=100"}));
  EXPECT_EQ(points[0]["set"], nlohmann::json({"memory.l2.hit_latency=100"}));
  // Restating the shipped policy is the same simulation: the same id. Anything else differs.
  EXPECT_EQ(points[0]["point_id"], points[2]["point_id"]);
  EXPECT_NE(points[0]["point_id"], points[4]["point_id"]);
  EXPECT_EQ(ids.size(), points.size() - 8);  // 2 inputs x 2 GPUs x 2 latencies are restated
  // The same sweep file plans the same points, byte for byte.
  EXPECT_EQ(run_cli({"sweep", "plan", sweep}).out, r.out);
  // Options reach every point, and change its id (the same config run another way).
  const std::string with_options = dir.write("options.yaml", "inputs: k.trace\narch: a100\noptions: {checks: warn, reconvergence: independent}\n");
  auto o = run_cli({"sweep", "plan", with_options});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto optioned = lines_of(o.out);
  ASSERT_EQ(optioned.size(), 1u);
  EXPECT_EQ(optioned[0]["checks"], "warn");
  EXPECT_EQ(optioned[0]["reconvergence"], "independent");
  const auto plain = lines_of(run_cli({"sweep", "plan", dir.write("plain.yaml", "inputs: k.trace\narch: a100\n")}).out);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_NE(plain[0]["point_id"], optioned[0]["point_id"]);
}

// "x2" scales each GPU's own value, so "twice the L2" is one modifier for every GPU.
TEST(SweepCli, ScaleFactorsApplyToEachGpusOwnValue) {
  test::TempDir dir;
  const std::string sweep = dir.write("sweep.yaml", "inputs: " + source_path("traces/examples/fma_ilp.trace") +
                                                        "\narch: [a100, h100]\nset: {memory.l2.hit_latency: x2}\naxes:\n"
                                                        "  memory.l2.size_kib: [x0.5, x2]\n"
                                                        "  lat: {same: {}, halved: {memory.l2.hit_latency: x0.5}}\n");
  auto r = run_cli({"sweep", "plan", sweep});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto points = lines_of(r.out);
  ASSERT_EQ(points.size(), 8u);
  auto set_of = [](const nlohmann::json& p, size_t i) { return p["set"][i].get<std::string>(); };
  EXPECT_EQ(set_of(points[0], 1), "memory.l2.size_kib=20480");   // A100's 40 MiB halved
  EXPECT_EQ(set_of(points[2], 1), "memory.l2.size_kib=81920");   // and doubled
  EXPECT_EQ(set_of(points[4], 1), "memory.l2.size_kib=25600");   // H100's 50 MiB halved
  EXPECT_EQ(set_of(points[6], 1), "memory.l2.size_kib=102400");
  // Factors compose in order: doubled by set:, then halved by the modifier.
  const uint32_t shipped = load_gpu_config("a100").spec.memory.l2.hit_latency;
  EXPECT_EQ(set_of(points[1], 0), "memory.l2.hit_latency=" + std::to_string(2 * shipped));
  EXPECT_EQ(set_of(points[1], 2), "memory.l2.hit_latency=" + std::to_string(shipped));
}

TEST(SweepCli, EachResultIsWhatWarpsimRunReportsAndTheTableHasARowPerPoint) {
  test::TempDir dir;
  const std::string points = dir.path("points.jsonl");
  ASSERT_EQ(run_cli({"sweep", "plan", small_sweep(dir), "-o", points}).exit_code, 0);
  auto r = run_cli({"sweep", "run", points, "--results", dir.path("results"), "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("4 run, 0 already done, 0 failed"), std::string::npos) << r.out;
  auto m = run_cli({"sweep", "merge", dir.path("results"), "--points", points, "-o", dir.path("sweep.csv")});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.err.find("4 ok, 0 failed, 0 missing"), std::string::npos) << m.err;
  const auto rows = csv_rows(test::read_file(dir.path("sweep.csv")));
  ASSERT_EQ(rows.size(), 5u);
  const auto& header = rows[0];
  const auto planned = lines_of(test::read_file(points));
  std::set<std::string> cycles_seen;
  for (size_t i = 0; i < planned.size(); ++i) {
    const auto& p = planned[i];
    const auto result = nlohmann::json::parse(test::read_file(dir.path("results/" + p["point_id"].get<std::string>() + ".json")));
    EXPECT_EQ(result["status"], "ok");
    EXPECT_EQ(result["point"], p);
    const auto summary = run_point(p)["summary"];
    EXPECT_EQ(result["run"]["summary"], summary) << p;
    const auto& row = rows[i + 1];
    EXPECT_EQ(row[column(header, "point_id")], p["point_id"]);
    EXPECT_EQ(row[column(header, "scheduler.policy")], p["axes"]["scheduler.policy"]);
    EXPECT_EQ(row[column(header, "latency")], p["axes"]["latency"]);
    EXPECT_EQ(row[column(header, "status")], "ok");
    EXPECT_EQ(row[column(header, "cycles")], summary["cycles"].dump());
    cycles_seen.insert(row[column(header, "cycles")]);
  }
  EXPECT_GT(cycles_seen.size(), 1u);  // the axes change the simulation

  // Speed-ups over the row that differs only in the baseline's axis: points 0/1 and 2/3 share
  // a policy, and the shipped latency is each pair's baseline.
  auto b = run_cli({"sweep", "merge", dir.path("results"), "--points", points, "--baseline", "latency=shipped"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto with = csv_rows(b.out);
  const size_t speedup = column(with[0], "speedup"), time = column(with[0], "time_us");
  for (size_t i = 1; i < with.size(); ++i) {
    const size_t base_row = (i - 1) / 2 * 2 + 1;
    EXPECT_DOUBLE_EQ(std::stod(with[i][speedup]), std::stod(with[base_row][time]) / std::stod(with[i][time])) << i;
  }
  EXPECT_EQ(with[1][speedup], "1.0");
  EXPECT_LT(std::stod(with[2][speedup]), 1.0);  // a slower L2 is slower
  EXPECT_EQ(run_cli({"sweep", "merge", dir.path("results"), "--baseline", "colour=red"}).exit_code, 2);

  // The chart: a point per row at its value, a line per latency choice across the policies.
  auto c = run_cli({"sweep", "merge", dir.path("results"), "--points", points, "--svg", dir.path("c.svg"), "--y", "cycles"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const std::string svg = test::read_file(dir.path("c.svg"));
  size_t circles = 0;
  for (size_t at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) ++circles;
  EXPECT_EQ(circles, 4u);
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::string tip = "latency=" + rows[i][column(header, "latency")] + ", scheduler.policy = " +
                            rows[i][column(header, "scheduler.policy")] + ": " + rows[i][column(header, "cycles")];
    EXPECT_NE(svg.find(tip), std::string::npos) << tip;
  }
  EXPECT_EQ(run_cli({"sweep", "merge", dir.path("results"), "--svg", dir.path("d.svg"), "--y", "bound"}).exit_code, 2);
  EXPECT_EQ(run_cli({"sweep", "merge", dir.path("results"), "--svg", dir.path("d.svg"), "--x", "colour"}).exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir.path("d.svg")));
}

// --kernels: a row per kernel of each point, with that kernel's summary; speed-ups pair the same
// kernel.
TEST(SweepCli, KernelRowsAreEachKernelsSummary) {
  test::TempDir dir;
  const std::string launch = source_path("traces/kernels/libdevice_math.launch.yaml");  // two kernels
  const std::string points = dir.path("points.jsonl");
  ASSERT_EQ(run_cli({"sweep", "plan", dir.write("sweep.yaml", "inputs: " + launch + "\narch: h100\naxes:\n  scheduler.policy: [gto, lrr]\n"),
                     "-o", points})
                .exit_code,
            0);
  ASSERT_EQ(run_cli({"sweep", "run", points, "--results", dir.path("r"), "-j", "2"}).exit_code, 0);
  auto m = run_cli({"sweep", "merge", dir.path("r"), "--points", points, "--kernels", "--baseline", "scheduler.policy=gto", "-o", dir.path("k.json")});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const auto rows = nlohmann::json::parse(test::read_file(dir.path("k.json")));
  ASSERT_EQ(rows.size(), 4u);
  const auto planned = lines_of(test::read_file(points));
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& p = planned[i / 2];
    const auto kernel = run_point(p)["kernels"][i % 2];
    EXPECT_EQ(rows[i]["kernel"], kernel["name"]);
    EXPECT_EQ(rows[i]["cycles"], kernel["summary"]["cycles"]);
    EXPECT_DOUBLE_EQ(double(rows[i]["speedup"]), double(rows[i % 2]["time_us"]) / double(rows[i]["time_us"]));
  }
  EXPECT_NE(rows[0]["kernel"], rows[1]["kernel"]);
}

TEST(SweepCli, RerunsSkipWhatIsDoneAndJobCountsDoNotChangeResults) {
  test::TempDir dir;
  const std::string points = dir.path("points.jsonl");
  ASSERT_EQ(run_cli({"sweep", "plan", small_sweep(dir), "-o", points}).exit_code, 0);
  ASSERT_EQ(run_cli({"sweep", "run", points, "--results", dir.path("a"), "-j", "3"}).exit_code, 0);
  const auto planned = lines_of(test::read_file(points));
  std::map<std::string, std::string> before;
  for (const auto& p : planned) before[p["point_id"]] = test::read_file(dir.path("a/" + p["point_id"].get<std::string>() + ".json"));
  auto again = run_cli({"sweep", "run", points, "--results", dir.path("a"), "-j", "3"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("0 run, 4 already done"), std::string::npos) << again.out;
  for (const auto& [id, text] : before) EXPECT_EQ(test::read_file(dir.path("a/" + id + ".json")), text);
  // One at a time into another folder: the same statistics, bit for bit.
  ASSERT_EQ(run_cli({"sweep", "run", points, "--results", dir.path("b"), "-j", "1"}).exit_code, 0);
  for (const auto& [id, text] : before)
    EXPECT_EQ(nlohmann::json::parse(test::read_file(dir.path("b/" + id + ".json")))["run"], nlohmann::json::parse(text)["run"]);
  auto forced = run_cli({"sweep", "run", points, "--results", dir.path("a"), "--force"});
  EXPECT_NE(forced.out.find("4 run, 0 already done"), std::string::npos) << forced.out;
}

// A point's id hashes its input's path; its result keeps a digest of the files the run read,
// so a resumed sweep runs again the points whose files changed in place, and only those.
TEST(SweepCli, PointsWhoseFilesChangedRunAgain) {
  test::TempDir dir;
  std::filesystem::copy_file(source_path("traces/examples/divergence.trace"), dir.path("k.trace"));
  std::filesystem::create_directories(dir.path("ptx"));
  std::filesystem::copy_file(source_path("traces/kernels/ptx/saxpy.sm_90.ptx"), dir.path("ptx/saxpy.sm_90.ptx"));
  std::string launch = test::read_file(source_path("traces/kernels/saxpy.launch.yaml"));
  launch.replace(launch.find("file: ref/"), 10, "file: " + source_path("traces/kernels/ref/"));
  dir.write("saxpy.launch.yaml", launch);
  const std::string sweep = dir.write("sweep.yaml", "inputs: [k.trace, saxpy.launch.yaml]\narch: [h100]\n");
  const std::string points = dir.path("points.jsonl");
  ASSERT_EQ(run_cli({"sweep", "plan", sweep, "-o", points}).exit_code, 0);
  const auto planned = lines_of(test::read_file(points));
  ASSERT_EQ(planned.size(), 2u);
  auto result = [&](size_t i) { return nlohmann::json::parse(test::read_file(dir.path("r/" + planned[i]["point_id"].get<std::string>() + ".json"))); };
  auto r = run_cli({"sweep", "run", points, "--results", dir.path("r")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 run, 0 already done"), std::string::npos) << r.out;
  const auto first = result(0);
  // The trace replaced in place by another: its point runs again and gets the new trace's result.
  std::filesystem::copy_file(source_path("traces/examples/fma_ilp.trace"), dir.path("k.trace"), std::filesystem::copy_options::overwrite_existing);
  r = run_cli({"sweep", "run", points, "--results", dir.path("r")});
  EXPECT_NE(r.out.find("1 run (1 because the files their results came from have changed), 1 already done"), std::string::npos) << r.out;
  const auto direct = run_cli({"run", "--arch", "h100", dir.path("k.trace"), "--json", "-"});
  EXPECT_EQ(result(0)["run"]["kernels"], nlohmann::json::parse(direct.out)["kernels"]);
  EXPECT_NE(result(0)["input_digest"], first["input_digest"]);
  // A launch file's PTX counts as its input: a changed comment there is enough.
  std::ofstream(dir.path("ptx/saxpy.sm_90.ptx"), std::ios::app) << "// edited\n";
  r = run_cli({"sweep", "run", points, "--results", dir.path("r")});
  EXPECT_NE(r.out.find("1 run (1 because"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 already done"), std::string::npos) << r.out;
  r = run_cli({"sweep", "run", points, "--results", dir.path("r")});
  EXPECT_NE(r.out.find("0 run, 2 already done"), std::string::npos) << r.out;
}

TEST(SweepCli, ChunksCoverEveryPointOnce) {
  test::TempDir dir;
  const std::string points = dir.path("points.jsonl");
  ASSERT_EQ(run_cli({"sweep", "plan", small_sweep(dir, "[v100, a100]"), "-o", points}).exit_code, 0);  // 8 points
  size_t ran = 0;
  for (int i = 0; i < 3; ++i) {  // chunks of 3: 3 + 3 + 2
    auto r = run_cli({"sweep", "run", points, "--results", dir.path("r"), "--index", std::to_string(i), "--chunk", "3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ran += i < 2 ? 3 : 2;
    EXPECT_NE(r.out.find(std::to_string(i < 2 ? 3 : 2) + " run, 0 already done"), std::string::npos) << r.out;
  }
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path("r"))) files += e.path().extension() == ".json";
  EXPECT_EQ(files, ran);
  auto past = run_cli({"sweep", "run", points, "--results", dir.path("r"), "--index", "3", "--chunk", "3"});
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_NE(past.err.find("indices 0-2"), std::string::npos) << past.err;
}

TEST(SweepCli, FailedAndMissingPointsAreRowsAndFailuresRunAgain) {
  test::TempDir dir;
  const std::string sweep = dir.write("sweep.yaml", "inputs: " + source_path("traces/kernels/mma_e4m3.launch.yaml") + "\narch: [a100, h100]\n");
  const std::string points = dir.path("points.jsonl");
  ASSERT_EQ(run_cli({"sweep", "plan", sweep, "-o", points}).exit_code, 0);
  auto r = run_cli({"sweep", "run", points, "--results", dir.path("r")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("2 run, 0 already done, 1 failed"), std::string::npos) << r.out;
  const auto planned = lines_of(test::read_file(points));
  const auto a100 = nlohmann::json::parse(test::read_file(dir.path("r/" + planned[0]["point_id"].get<std::string>() + ".json")));
  EXPECT_EQ(a100["status"], "failed");
  EXPECT_EQ(a100["exit_code"], 3);
  EXPECT_NE(a100["error"].get<std::string>().find("needs compute capability 8.9"), std::string::npos) << a100["error"];
  std::filesystem::remove(dir.path("r/" + planned[1]["point_id"].get<std::string>() + ".json"));
  auto m = run_cli({"sweep", "merge", dir.path("r"), "--points", points});
  EXPECT_EQ(m.exit_code, 1);
  EXPECT_NE(m.err.find("0 ok, 1 failed, 1 missing"), std::string::npos) << m.err;
  const auto rows = csv_rows(m.out);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][column(rows[0], "status")], "failed");
  EXPECT_EQ(rows[2][column(rows[0], "status")], "missing");
  // The failed point is not "done": a rerun tries it again, with the missing one.
  auto again = run_cli({"sweep", "run", points, "--results", dir.path("r")});
  EXPECT_NE(again.out.find("2 run, 0 already done, 1 failed"), std::string::npos) << again.out;
}

// A sweep's options are the run's flags: the spin lock that needs independent thread
// scheduling livelocks when the sweep asks for the reconvergence stack.
TEST(SweepCli, OptionsReachTheRuns) {
  test::TempDir dir;
  const std::string launch = source_path("traces/kernels/spin_lock.launch.yaml");
  for (const auto& [reconvergence, status] : {std::pair{"independent", "ok"}, std::pair{"stack", "failed"}}) {
    const std::string points = dir.path(std::string(reconvergence) + ".jsonl");
    ASSERT_EQ(run_cli({"sweep", "plan", dir.write("s.yaml", "inputs: " + launch + "\narch: h100\noptions: {reconvergence: " + reconvergence + "}\n"), "-o", points})
                  .exit_code,
              0);
    run_cli({"sweep", "run", points, "--results", dir.path("r")});
    const auto p = lines_of(test::read_file(points)).at(0);
    const auto result = nlohmann::json::parse(test::read_file(dir.path("r/" + p["point_id"].get<std::string>() + ".json")));
    EXPECT_EQ(result["status"], status) << reconvergence;
    if (std::string(status) == "failed") {
      EXPECT_NE(result["error"].get<std::string>().find("livelock"), std::string::npos) << result["error"];
    }
  }
}

TEST(SweepCli, BadSweepFilesAreLocatedErrorsAndWriteNothing) {
  const std::string trace = source_path("traces/examples/fma_ilp.trace");
  struct Case {
    std::string text, expected;
  } cases[] = {
      {"inputs: " + trace + "\narch: a100\naxes:\n  l2:\n    big: {memory.l2.size_kb: 1}\n", "sweep.yaml:5:11: unknown key 'memory.l2.size_kb'"},
      {"inputs: " + trace + "\narch: a100\naxes:\n  l2:\n    big: {memory.l2.size_kb: x2}\n",
       "sweep.yaml:5:11: 'x2' scales the value of memory.l2.size_kb, which this config does not state"},
      {"inputs: " + trace + "\narch: a100\naxes:\n  memory.l2.hit_latency: [100, -4]\n", "sweep.yaml:4:"},
      {"inputs: " + trace + "\narch: a100\naxis: {}\n", "sweep.yaml:3:1: unknown key 'axis' in a sweep file"},
      {"arch: a100\n", "missing 'inputs:'"},
      {"inputs: nowhere.trace\narch: a100\n", "sweep.yaml:1:9: no input file"},
      {"inputs: " + trace + "\narch: [a100, x900]\n", "sweep.yaml:2:14: unknown config 'x900'"},
      {"inputs: " + trace + "\narch: a100\naxes:\n  scheduler.policy: []\n", "sweep.yaml:4:3: axis 'scheduler.policy' has no values"},
      {"inputs: " + trace + "\narch: a100\naxes:\n  cycles: [1]\n", "sweep.yaml:4:3: 'cycles' names a column"},
      {"inputs: " + trace + "\narch: a100\noptions: {checks: maybe}\n", "sweep.yaml:3:19: options.checks must be one of"},
      {"inputs: [" + trace + "\n", "sweep.yaml:"},
      {"inputs: " + trace + "\narch: a100\naxes:\n  scheduler.policy: [x2]\n", "sweep.yaml:4:22: 'x2' scales a number, but scheduler.policy is not one"},
      {"inputs: " + trace + "\narch: a100\naxes:\n  topology.sms: [x0.3]\n", "sweep.yaml:4:18: topology.sms takes whole numbers"},
      {"inputs: " + trace + "\narch: a100\naxes:\n  topology.sms: [x99999999999999999999999]\n", "sweep.yaml:4:18: x99999999999999999999999 of topology.sms"},
      {"inputs: " + trace + "\narch: a100\naxes:\n  a: [1,2,3,4,5,6,7,8,9,10]\n  b: [1,2,3,4,5,6,7,8,9,10]\n  c: [1,2,3,4,5,6,7,8,9,10]\n"
       "  d: [1,2,3,4,5,6,7,8,9,10]\n  e: [1,2,3,4,5,6,7,8,9,10]\n  f: [1,2,3,4,5,6,7,8,9,10]\n  g: [1,2]\n",
       "sweep.yaml:4:3: the sweep has 2e+06 points; at most 1000000"},
  };
  for (const auto& c : cases) {
    test::TempDir dir;
    auto r = run_cli({"sweep", "plan", dir.write("sweep.yaml", c.text), "-o", dir.path("points.jsonl")});
    EXPECT_EQ(r.exit_code, 3) << c.text;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.text << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path("points.jsonl"))) << c.text;
  }
  test::TempDir dir;
  auto bad = run_cli({"sweep", "run", dir.write("points.jsonl", "{\"index\": 0}\nnot json\n"), "--results", dir.path("r")});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("points.jsonl:1:1: not a sweep point"), std::string::npos) << bad.err;
  // Found by fuzz_sweep: valid JSON syntax with a number too large for a double.
  auto huge = run_cli({"sweep", "run", dir.write("huge.jsonl", "{\"index\": 3E333}\n"), "--results", dir.path("r")});
  EXPECT_EQ(huge.exit_code, 3);
  EXPECT_NE(huge.err.find("huge.jsonl:1:1: not a sweep point"), std::string::npos) << huge.err;
  std::filesystem::create_directories(dir.path("r"));
  dir.write("r/0123456789abcdef.json", "{\"status\": 1E999}");
  auto merged = run_cli({"sweep", "merge", dir.path("r")});
  EXPECT_EQ(merged.exit_code, 3);
  EXPECT_NE(merged.err.find("0123456789abcdef.json:1:1: not JSON"), std::string::npos) << merged.err;
  EXPECT_EQ(run_cli({"sweep"}).exit_code, 2);
  EXPECT_EQ(run_cli({"sweep", "walk"}).exit_code, 2);
  EXPECT_EQ(run_cli({"sweep", "run", dir.path("points.jsonl")}).exit_code, 2);  // no --results
}

TEST(SweepCli, ShippedExamplePlans) {
  auto r = run_cli({"sweep", "plan", source_path("traces/sweeps/l2_and_scheduler.yaml")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_of(r.out).size(), 24u);
}

// The script `sweep slurm` prints, run with a stand-in sbatch that runs each array task in turn
// (with SLURM_ARRAY_TASK_ID set) and then the dependent merge job.
TEST(SweepCli, SlurmScriptRunsTheArrayThenTheMerge) {
  test::TempDir dir;
  const std::string points = dir.path("points.jsonl");
  ASSERT_EQ(run_cli({"sweep", "plan", small_sweep(dir, "[v100, a100]"), "-o", points}).exit_code, 0);  // 8 points
  auto script = run_cli({"sweep", "slurm", points, "--results", dir.path("results"), "--chunk", "3", "-o", dir.path("sweep.csv")});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  EXPECT_NE(script.out.find("--array=0-2%200"), std::string::npos) << script.out;
  dir.write("submit.sh", script.out);
  std::filesystem::create_directory(dir.path("bin"));
  dir.write("bin/sbatch",
            "#!/bin/bash\n"
            "array=; wrap=; dep=\n"
            "while [ $# -gt 0 ]; do case \"$1\" in\n"
            "  --array=*) array=${1#--array=}; array=${array%%%*};;\n"
            "  --dependency=*) dep=${1#--dependency=};;\n"
            "  --wrap) wrap=$2; shift;;\n"
            "esac; shift; done\n"
            "echo \"$dep\" >> sbatch.log\n"
            "if [ -n \"$array\" ]; then\n"
            "  for i in $(seq ${array%-*} ${array#*-}); do SLURM_ARRAY_TASK_ID=$i bash -c \"$wrap\" > /dev/null 2>&1 || true; done\n"
            "  echo 4242\n"
            "else bash -c \"$wrap\" > /dev/null 2>&1 || true; echo 4243; fi\n");
  std::filesystem::permissions(dir.path("bin/sbatch"), std::filesystem::perms::owner_all);
  const std::string cmd = "cd " + dir.path("") + " && PATH=" + dir.path("bin") + ":$PATH bash submit.sh > submit.out 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << test::read_file(dir.path("submit.out"));
  EXPECT_EQ(test::read_file(dir.path("sbatch.log")), "\nafterany:4242\n");
  const auto rows = csv_rows(test::read_file(dir.path("sweep.csv")));
  ASSERT_EQ(rows.size(), 9u);
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(rows[i][column(rows[0], "status")], "ok");
}

TEST(SweepCli, TheFp8AccumulatorSweepShowsErrorFallingWithBits) {
  // traces/sweeps/fp8_accumulator_bits.yaml: the check_error column is each point's largest
  // |output - reference|, the value `warpsim run` prints. Up to -2 extra bits every two more bits
  // cut the error; from 0 on it is at f32's own level (a few units in the last place: each block's
  // result is truncated to f32 whatever the alignment kept). At H100's own -10 the unpromoted
  // kernel's error is the tutorial's 0.111 (the sweep turns off warp_fp8_via_fp16 to reach it).
  test::TempDir dir;
  const std::string points = dir.path("points.jsonl");
  ASSERT_EQ(run_cli({"sweep", "plan", test::source_path("traces/sweeps/fp8_accumulator_bits.yaml"), "-o", points}).exit_code, 0);
  auto r = run_cli({"sweep", "run", points, "--results", dir.path("results"), "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = run_cli({"sweep", "merge", dir.path("results"), "--points", points, "-o", dir.path("sweep.csv")});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const auto rows = csv_rows(test::read_file(dir.path("sweep.csv")));
  ASSERT_EQ(rows.size(), 15u);
  const size_t input = column(rows[0], "input"), bits = column(rows[0], "tensor.block_sum.fp8.extra_bits"),
               error = column(rows[0], "check_error");
  std::map<std::string, std::vector<std::pair<int, double>>> by_input;
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][column(rows[0], "status")], "ok") << i;
    by_input[rows[i][input]].push_back({std::stoi(rows[i][bits]), std::stod(rows[i][error])});
  }
  ASSERT_EQ(by_input.size(), 2u);
  for (auto& [name, points_of] : by_input) {
    std::sort(points_of.begin(), points_of.end());
    for (size_t i = 1; i < points_of.size(); ++i) {
      if (points_of[i].first <= -2) {
        EXPECT_LT(points_of[i].second, points_of[i - 1].second) << name << " " << points_of[i].first;
      }
      if (points_of[i].first >= 0) {
        EXPECT_LT(points_of[i].second, 2e-5) << name << " " << points_of[i].first;
      }
    }
  }
  const auto& plain = by_input.begin()->first.find("promoted") == std::string::npos ? by_input.begin()->second : by_input.rbegin()->second;
  EXPECT_NEAR(plain.front().second, 0.111, 0.0005);
}

}  // namespace
}  // namespace warpsim
