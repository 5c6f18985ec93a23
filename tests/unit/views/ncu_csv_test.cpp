// Nsight Compute CSV, read back (views/ncu_csv.h): both of ncu's layouts, written here by hand in
// the shapes ncu prints (quoted fields, thousands separators, log lines around the table), and
// malformed files reported at their line.
#include "views/ncu_csv.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "views/metric_validation.h"

namespace warpsim {
namespace {

const char* const kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
    "\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

std::string row(int id, const std::string& kernel, const std::string& grid, const std::string& metric, const std::string& unit,
                const std::string& value) {
  return "\"" + std::to_string(id) + "\",\"7\",\"harness\",\"h\",\"" + kernel + "\",\"1\",\"7\",\"(128, 1, 1)\",\"" + grid +
         "\",\"0\",\"9.0\",\"Command line profiler metrics\",\"" + metric + "\",\"" + unit + "\",\"" + value + "\"\n";
}

TEST(NcuCsv, DetailsPageOneRowPerMetric) {
  const std::string text = std::string("==PROF== Connected to process 7 (harness)\nlane_trips profiled passed\n") + kHeader +
                           row(0, "lane_trips", "(4, 1, 1)", "dram__bytes_read.sum", "byte", "53,261,312") +
                           row(0, "lane_trips", "(4, 1, 1)", "gpu__time_duration.sum", "nsecond", "4512.5") +
                           row(0, "lane_trips", "(4, 1, 1)", "lts__t_sector_hit_rate.pct", "%", "n/a") +
                           row(1, "void gemm(float*, int)", "(8,4,1)", "dram__bytes_read.sum", "byte", "0") +
                           "==PROF== Disconnected from process 7\n";
  auto launches = parse_ncu_csv(text, "p.csv");
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].id, 0);
  EXPECT_EQ(launches[0].kernel, "lane_trips");
  EXPECT_EQ(launches[0].grid, "(4,1,1)");
  EXPECT_EQ(launches[0].block, "(128,1,1)");
  EXPECT_EQ(launches[0].metrics.at("dram__bytes_read.sum"), 53261312.0);  // thousands separators dropped
  EXPECT_EQ(launches[0].metrics.at("gpu__time_duration.sum"), 4512.5);
  EXPECT_EQ(launches[0].units.at("gpu__time_duration.sum"), "nsecond");
  EXPECT_EQ(launches[0].metrics.count("lts__t_sector_hit_rate.pct"), 0u);  // n/a: not measured
  EXPECT_EQ(launches[1].kernel, "gemm");  // a C++ kernel's signature reduced to its name
  EXPECT_EQ(launches[1].grid, ncu_dim3(8, 4, 1));
}

TEST(NcuCsv, RawPageOneRowPerLaunch) {
  const std::string text =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
      "\"dram__bytes_read.sum\",\"gpu__time_duration.sum\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"nsecond\"\n"
      "\"0\",\"1\",\"h\",\"h\",\"a\",\"1\",\"7\",\"(256, 1, 1)\",\"(5, 20, 1)\",\"0\",\"9.0\",\"10,240,000\",\"40000\"\n"
      "\"1\",\"1\",\"h\",\"h\",\"b\",\"1\",\"7\",\"(1024, 1, 1)\",\"(80, 1, 1)\",\"0\",\"9.0\",\"5,120,000\",\"n/a\"\n";
  auto launches = parse_ncu_csv(text, "raw.csv");
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].metrics.at("dram__bytes_read.sum"), 10240000.0);
  EXPECT_EQ(launches[0].units.at("gpu__time_duration.sum"), "nsecond");
  EXPECT_EQ(launches[1].kernel, "b");
  EXPECT_EQ(launches[1].grid, "(80,1,1)");
  EXPECT_EQ(launches[1].metrics.count("gpu__time_duration.sum"), 0u);
}

TEST(NcuCsv, MalformedInputIsReportedAtItsLine) {
  auto error_of = [](const std::string& text) {
    try {
      parse_ncu_csv(text, "bad.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("no table here\n").find("bad.csv:1: no header row starting with \"ID\""), std::string::npos);
  // Found by fuzz_ncu: a header whose first field is "ID" followed by other bytes has no ID column.
  EXPECT_NE(error_of("\"ID\"x,\"Kernel Name\"\n\"0\",\"k\"\n").find("bad.csv:1:1: the header has no \"ID\" column"), std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + "\"0\",\"1\"\n").find("bad.csv:2:1: this row has 2 fields; the header (line 1) has 15"),
            std::string::npos);
  const std::string bad_id = row(0, "k", "(1, 1, 1)", "m.sum", "", "1").replace(1, 1, "x");
  EXPECT_NE(error_of(std::string(kHeader) + bad_id).find("bad.csv:2:1: the ID \"x\" is not a number"), std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row(0, "k", "(1, 1, 1)", "m.sum", "", "fast")).find("bad.csv:2:"), std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row(0, "k", "(1, 1, 1)", "m.sum", "", "fast")).find("has the value \"fast\"; expected a number"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + "\"0,\"1\n").find("bad.csv:2:"), std::string::npos);  // a quote never closed
}

// Simulated launches pair with the next profiled launch of the same kernel and grid; profiled
// launches nobody claims (entries left out of the comparison) are passed over.
TEST(MetricValidation, PairsLaunchesInOrderAndSummarisesEachMetric) {
  std::vector<NcuLaunch> profiled(4);
  const char* kernels[] = {"a", "skipped", "b", "b"};
  const char* grids[] = {"(1,1,1)", "(2,1,1)", "(2,1,1)", "(4,1,1)"};
  for (int i = 0; i < 4; ++i) {
    profiled[i].id = i;
    profiled[i].kernel = kernels[i];
    profiled[i].grid = grids[i];
    profiled[i].metrics = {{"x.sum", 100.0 * (i + 1)}, {"launch__grid_size", 1}, {"only_ncu.sum", 5}};
  }
  profiled[3].metrics["x.sum"] = 0;
  std::vector<SimulatedLaunch> simulated = {
      {"ea", "h200", "a", "(1,1,1)", {{"x.sum", 100}, {"launch__grid_size", 1}}, {{"x.sum", "modelled"}}},        // exact
      {"eb", "h200", "b", "(4,1,1)", {{"x.sum", 0}}, {{"x.sum", "modelled"}}},                                    // the second b: 0 = 0
      {"eb", "h200", "b", "(2,1,1)", {{"x.sum", 330}}, {{"x.sum", "modelled"}}},                                  // after (4,1,1): none left
      {"ec", "h200", "c", "(1,1,1)", {{"x.sum", 1}}, {{"x.sum", "modelled"}}}};
  std::vector<std::string> notes;
  auto points = match_metrics(simulated, profiled, notes);
  ASSERT_EQ(points.size(), 2u);  // launch__grid_size and metrics only one side has are not compared
  EXPECT_EQ(points[0].entry, "ea");
  EXPECT_TRUE(points[0].exact());
  EXPECT_EQ(points[1].measured, 0.0);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("eb on h200: no profiled launch of b with grid (2,1,1)"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("ec on h200"), std::string::npos);
  // Errors: the b launch at grid (2,1,1) measured 300; pair it alone and summarise with two others.
  std::vector<MetricPoint> mixed = {{"e1", "k", "h200", "x.sum", "modelled", 300, 330},
                                    {"e2", "k", "h200", "x.sum", "modelled", 100, 90},
                                    {"e3", "k", "h200", "x.sum", "modelled", 50, 50},
                                    {"e4", "k", "h200", "x.sum", "modelled", 0, 0},
                                    {"e1", "k", "h100", "x.sum", "modelled", 10, 20}};
  auto summaries = metric_summaries(mixed);
  ASSERT_EQ(summaries.size(), 2u);  // per config
  EXPECT_EQ(summaries[0].arch, "h100");
  const MetricSummary& s = summaries[1];
  EXPECT_EQ(s.launches, 4u);
  EXPECT_EQ(s.exact, 2u);       // 50 = 50 and 0 = 0
  EXPECT_EQ(s.with_error, 3u);  // a measured 0 has no relative error
  EXPECT_NEAR(s.mape, (10.0 + 10.0 + 0.0) / 3, 1e-12);
  EXPECT_NEAR(s.median_abs_error, 10.0, 1e-12);
  EXPECT_NE(metric_table(summaries).find("x.sum"), std::string::npos);
  EXPECT_NE(metric_csv(mixed).find("e1,k,h200,x.sum,modelled,300,330,10\n"), std::string::npos) << metric_csv(mixed);
}

}  // namespace
}  // namespace warpsim
