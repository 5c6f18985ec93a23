// Streams from the command line: a launch file's emulated kernels side by side compute what
// they compute one at a time, the report and the JSON show each kernel's span, --serial-streams
// runs them in order, a recorded trace keeps the streams, and the timeline puts kernels that
// overlap on tracks of their own.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <set>

#include "support/test_support.h"

namespace warpsim {
namespace {

using test::read_file;
using test::run_cli;
using test::source_path;
using test::TempDir;

const std::string kStreams = source_path("traces/kernels/saxpy_streams.launch.yaml");

nlohmann::json run_streams_json(const std::vector<std::string>& extra) {
  TempDir dir;
  std::vector<std::string> args = {"run", "--arch", "a100", kStreams, "--json", dir.path("out.json"), "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(read_file(dir.path("out.json"))) : nlohmann::json{};
}

TEST(StreamsCli, KernelsSideBySideComputeWhatTheyComputeInOrder) {
  const auto together = run_streams_json({});
  const auto serial = run_streams_json({"--serial-streams"});
  ASSERT_FALSE(together.is_null());
  ASSERT_FALSE(serial.is_null());
  EXPECT_TRUE(together["check"]["passed"].get<bool>());
  EXPECT_TRUE(serial["check"]["passed"].get<bool>());
  ASSERT_EQ(together["kernels"].size(), 1u);
  ASSERT_EQ(serial["kernels"].size(), 4u);
  const auto& members = together["kernels"][0]["concurrent"];
  ASSERT_EQ(members.size(), 4u);
  uint64_t instructions = 0, longest = 0;
  for (const auto& k : members) {
    EXPECT_EQ(k["ctas"], 32);
    instructions += k["warp_instructions"].get<uint64_t>();
    longest = std::max(longest, k["end_cycle"].get<uint64_t>());
  }
  EXPECT_EQ(instructions, together["summary"]["warp_instructions"].get<uint64_t>());
  EXPECT_EQ(instructions, serial["summary"]["warp_instructions"].get<uint64_t>());
  EXPECT_EQ(together["summary"]["cycles"].get<uint64_t>(), longest - members[0]["start_cycle"].get<uint64_t>());
  EXPECT_TRUE(together["kernels"][0]["grid"].is_null());
  EXPECT_EQ(serial["kernels"][2]["stream"], "s2");
  // 4 x 32 CTAs fit on A100's 108 SMs at once: together well under the sum of the four.
  EXPECT_LT(together["summary"]["cycles"].get<uint64_t>() * 2, serial["summary"]["cycles"].get<uint64_t>());
}

TEST(StreamsCli, TheTextReportShowsEachKernelsSpan) {
  auto r = run_cli({"run", "--arch", "h100", kStreams});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("kernels side by side in streams: saxpy + saxpy + saxpy + saxpy"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("saxpy [stream s3]  grid (32,1,1)  block (256,1,1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << r.out;
}

TEST(StreamsCli, ARecordedTraceKeepsTheStreams) {
  TempDir dir;
  auto replay = test::run_and_replay("a100", kStreams, dir);
  EXPECT_NE(replay.trace.find(".stream s3\n"), std::string::npos);
  EXPECT_EQ(replay.direct, replay.replay);
  EXPECT_EQ(replay.direct.rfind("error", 0), std::string::npos) << replay.direct;
}

TEST(StreamsCli, TheTimelineHasATrackPerStream) {
  TempDir dir;
  auto r = run_cli({"run", "--arch", "a100", kStreams, "-q", "--timeline", dir.path("t.json"), "--view", "warps", "--view-warps", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto t = nlohmann::json::parse(read_file(dir.path("t.json")));
  std::set<int> tracks;
  std::map<int, std::string> names;
  for (const auto& e : t["traceEvents"]) {
    if (e.value("cat", "") == "kernel") tracks.insert(e["tid"].get<int>());
    if (e["pid"] == 0 && e.value("name", "") == "thread_name") names[e["tid"].get<int>()] = e["args"]["name"];
  }
  EXPECT_EQ(tracks, (std::set<int>{1, 2, 3, 4}));
  EXPECT_EQ(names[0], "kernels");
  EXPECT_EQ(names[4], "stream s3");
}

TEST(StreamsCli, ABadStreamNameIsRefusedAtItsLine) {
  TempDir dir;
  std::string text = test::shipped_launch("saxpy_streams.launch.yaml");
  const size_t s1 = text.find("stream: s1");
  ASSERT_NE(s1, std::string::npos);
  text.replace(s1, 10, "stream: 'two words'");
  auto r = run_cli({"run", "--arch", "a100", dir.write("bad.launch.yaml", text), "--json", dir.path("out.json")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("bad.launch.yaml:15:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a stream is named by one word"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("out.json")));
}

TEST(StreamsCli, WaitForJoinsStreams) {
  TempDir dir;
  std::string text = test::shipped_launch("saxpy_streams.launch.yaml");
  text.replace(text.find("stream: s3,"), 11, "stream: s3, wait_for: [s0, s1],");
  auto r = run_cli({"run", "--arch", "a100", dir.write("join.launch.yaml", text), "--json", dir.path("out.json"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(dir.path("out.json")));
  const auto& k = j["kernels"][0]["concurrent"];
  ASSERT_EQ(k.size(), 4u);
  EXPECT_EQ(k[2]["start_cycle"], 0);  // s2 joins nothing
  EXPECT_GE(k[3]["start_cycle"].get<uint64_t>() + 1, std::max(k[0]["end_cycle"].get<uint64_t>(), k[1]["end_cycle"].get<uint64_t>()));
  EXPECT_TRUE(j["check"]["passed"].get<bool>());
  // s2 waiting for s0: s3, issued after it, passes it (a launch file reads ahead, as the GPU's
  // hardware queues let a later stream's kernel pass a waiting one).
  text = test::shipped_launch("saxpy_streams.launch.yaml");
  text.replace(text.find("stream: s2,"), 11, "stream: s2, wait_for: [s0],");
  r = run_cli({"run", "--arch", "a100", dir.write("pass.launch.yaml", text), "--json", dir.path("pass.json"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto p = nlohmann::json::parse(read_file(dir.path("pass.json")));
  std::map<std::string, nlohmann::json> by_stream;
  for (const auto& run : p["kernels"])
    for (const auto& k : run["concurrent"]) by_stream[k["stream"]] = k;
  ASSERT_EQ(by_stream.size(), 4u) << p.dump();
  EXPECT_EQ(by_stream["s3"]["start_cycle"], 0);
  EXPECT_GE(by_stream["s2"]["start_cycle"].get<uint64_t>() + 1, by_stream["s0"]["end_cycle"].get<uint64_t>());
  // In the default stream it would mean nothing: refused.
  text = test::shipped_launch("saxpy_streams.launch.yaml");
  text.replace(text.find("stream: s3,"), 11, "wait_for: [s0],");
  r = run_cli({"run", "--arch", "a100", dir.write("bad.launch.yaml", text), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("bad.launch.yaml:19:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("wait_for needs a stream"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
