// The timeline tells the same story as the statistics: per warp slot its events never overlap,
// every issued instruction is one event, and stall intervals add up to the SM's warp-state
// counters. Watching a run does not change it.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "views/timeline.h"

namespace warpsim {
namespace {

using test::simulate_file;
using test::source_path;

struct Watched {
  test::Simulated sim;
  nlohmann::json json;
  std::unique_ptr<Timeline> timeline;
};

Watched watch(const std::string& arch, const std::string& trace, TimelineOptions options = {}) {
  Watched w;
  w.sim = simulate_file(arch, source_path(trace), {}, [&](Gpu& gpu) {
    w.timeline = std::make_unique<Timeline>(options, gpu.spec(), gpu.stats());
    gpu.set_observer(w.timeline.get());
  });
  w.json = nlohmann::json::parse(w.timeline->finish());
  return w;
}

uint64_t sum_over_kernels(const test::Simulated& s, const std::string& group) {
  uint64_t v = 0;
  for (size_t k = 0; k < s.runs.size(); ++k) v += s.sum(group, k);
  return v;
}

class TimelineOnEveryExample : public ::testing::TestWithParam<const char*> {};

TEST_P(TimelineOnEveryExample, EventsMatchCountersAndNeverOverlap) {
  Watched w = watch("a100", GetParam());
  ASSERT_EQ(w.timeline->dropped_events(), 0u);
  std::map<std::pair<int, int>, std::vector<std::pair<uint64_t, uint64_t>>> tracks;
  std::map<std::string, uint64_t> stall_cycles;
  uint64_t issues = 0;
  for (const auto& e : w.json["traceEvents"]) {
    if (e["ph"] != "X" || e["pid"] == 0) continue;
    const uint64_t ts = e["ts"], dur = e["dur"];
    ASSERT_GT(dur, 0u);
    tracks[{e["pid"], e["tid"]}].emplace_back(ts, ts + dur);
    if (e["cat"] == "issue") {
      ++issues;
      EXPECT_EQ(dur, 1u);
    } else {
      stall_cycles[e["name"]] += dur;
    }
  }
  for (auto& [track, spans] : tracks) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i)
      ASSERT_LE(spans[i - 1].second, spans[i].first) << "overlap on SM " << track.first - 1 << " slot " << track.second;
  }
  EXPECT_EQ(issues, sum_over_kernels(w.sim, "gpu.sm[*].inst_executed"));
  for (int r = 1; r < kNumStallReasons; ++r) {
    const std::string name(stall_reason_name(static_cast<StallReason>(r)));
    EXPECT_EQ(stall_cycles[name], sum_over_kernels(w.sim, "gpu.sm[*].warp_state." + name)) << name;
  }
  EXPECT_EQ(issues, sum_over_kernels(w.sim, "gpu.sm[*].warp_state.selected"));
}

INSTANTIATE_TEST_SUITE_P(Examples, TimelineOnEveryExample,
                         ::testing::Values("traces/examples/vector_add.trace.gz", "traces/examples/divergence.trace",
                                           "traces/examples/shared_reduction.trace", "traces/examples/fma_ilp.trace",
                                           "traces/examples/loop_trip_counts.trace"));

TEST(Timeline, WatchingDoesNotChangeTheResult) {
  Watched w = watch("h100", "traces/examples/shared_reduction.trace");
  test::Simulated plain = simulate_file("h100", source_path("traces/examples/shared_reduction.trace"));
  ASSERT_EQ(plain.runs.size(), w.sim.runs.size());
  for (size_t k = 0; k < plain.runs.size(); ++k) {
    EXPECT_EQ(plain.runs[k].cycles(), w.sim.runs[k].cycles());
    EXPECT_EQ(plain.runs[k].stats, w.sim.runs[k].stats);
  }
}

TEST(Timeline, NamesProcessesThreadsAndHasCounters) {
  Watched w = watch("v100", "traces/examples/vector_add.trace.gz");
  std::set<std::string> names, counters;
  for (const auto& e : w.json["traceEvents"]) {
    if (e["ph"] == "M" && (e["name"] == "process_name" || e["name"] == "thread_name")) names.insert(e["args"]["name"]);
    if (e["ph"] == "C") counters.insert(e["name"]);
  }
  EXPECT_TRUE(names.count("SM 0"));
  EXPECT_TRUE(names.count("kernels"));
  EXPECT_TRUE(std::any_of(names.begin(), names.end(), [](const std::string& n) { return n.rfind("slot 0: CTA (0,0,0) warp 0", 0) == 0; }));
  for (const char* c : {"active warps", "IPC", "L2 hit rate (%)", "DRAM bandwidth (GB/s)"}) EXPECT_TRUE(counters.count(c)) << c;
}

TEST(Timeline, DramCounterAddsUpToTheBytesMoved) {
  TimelineOptions o;
  o.counter_interval = 500;
  Watched w = watch("a100", "traces/examples/vector_add.trace.gz", o);
  // Each sample is bytes / cycles of its window in GB/s; undo that and the windows must cover
  // every DRAM byte of the run.
  std::vector<std::pair<uint64_t, double>> samples;
  for (const auto& e : w.json["traceEvents"])
    if (e["ph"] == "C" && e["name"] == "DRAM bandwidth (GB/s)") samples.emplace_back(e["ts"], e["args"]["value"]);
  ASSERT_GT(samples.size(), 2u);
  const double mhz = w.sim.config.spec.clocks.boost_mhz;
  const uint64_t end = w.sim.runs.back().end;
  double bytes = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const uint64_t until = i + 1 < samples.size() ? samples[i + 1].first : end;
    bytes += samples[i].second * 1000.0 / mhz * double(until - samples[i].first);
  }
  const double expected = double(sum_over_kernels(w.sim, "gpu.dram.bytes_read") + sum_over_kernels(w.sim, "gpu.dram.bytes_written"));
  EXPECT_NEAR(bytes, expected, expected * 0.01);
}

TEST(Timeline, CapDropsEventsAndSaysSo) {
  TimelineOptions o;
  o.max_bytes = (1u << 20) + 20000;  // 1 MiB is kept for metadata: about 20 kB of events
  Watched w = watch("a100", "traces/examples/vector_add.trace.gz", o);
  EXPECT_GT(w.timeline->dropped_events(), 0u);
  EXPECT_NE(w.timeline->note().find("dropped"), std::string::npos);
  EXPECT_EQ(w.json["otherData"]["events_dropped"], w.timeline->dropped_events());
  bool marked = false;
  for (const auto& e : w.json["traceEvents"])
    if (e["ph"] == "i" && std::string(e["name"]).rfind("TRUNCATED", 0) == 0) marked = true;
  EXPECT_TRUE(marked);
}

TEST(Timeline, FiltersKeepOnlyTheChosenSmsSlotsAndWindow) {
  TimelineOptions o;
  o.sms = {1};
  o.slots = {0, 1};
  o.from = 200;
  o.to = 900;
  Watched w = watch("a100", "traces/examples/vector_add.trace.gz", o);
  size_t spans = 0;
  for (const auto& e : w.json["traceEvents"]) {
    if (e["ph"] != "X" || e["pid"] == 0) continue;
    ++spans;
    EXPECT_EQ(e["pid"], 2);
    EXPECT_LE(e["tid"], 1);
    EXPECT_GE(e["ts"], 200u);
    EXPECT_LE(uint64_t(e["ts"]) + uint64_t(e["dur"]), 900u);
  }
  EXPECT_GT(spans, 0u);
}

TEST(Timeline, IndexListsParseAndRejectNonsense) {
  EXPECT_EQ(parse_index_list("3,0-2,2"), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_THROW(parse_index_list("1-"), std::invalid_argument);
  EXPECT_THROW(parse_index_list("5-2"), std::invalid_argument);
  EXPECT_THROW(parse_index_list("a"), std::invalid_argument);
  EXPECT_THROW(parse_index_list(""), std::invalid_argument);
}

}  // namespace
}  // namespace warpsim
