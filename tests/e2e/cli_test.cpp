// The warpsim binary as a user runs it: every shipped config on every example, JSON shape,
// determinism, exit codes, error messages and no partial output files.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace warpsim {
namespace {

using test::run_cli;
using test::TempDir;

const std::vector<std::string> kExamples = {"vector_add.trace.gz", "fma_ilp.trace", "fma_throughput.trace.gz",
                                            "divergence.trace", "loop_trip_counts.trace", "shared_reduction.trace",
                                            "tensor_mma.trace.gz"};

// Instruction lines in a trace, counted independently of the reader: every warp instruction in
// the file must be issued exactly once.
uint64_t instruction_lines(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  char buf[1 << 16];
  uint64_t n = 0;
  while (gzgets(f, buf, sizeof buf)) {
    std::string line(buf);
    size_t i = line.find_first_not_of(" \t\r\n");
    if (i == std::string::npos || line[i] == '#' || line[i] == '.') continue;
    ++n;
  }
  gzclose(f);
  return n;
}

TEST(Cli, EveryConfigRunsEveryExampleAndConservesInstructions) {
  TempDir dir;
  for (const auto& ex : kExamples) {
    std::string path = test::source_path("traces/examples/" + ex);
    uint64_t expected = instruction_lines(path);
    for (const auto& arch : test::kArchs) {
      SCOPED_TRACE(arch + " " + ex);
      auto r = run_cli({"run", "--arch", arch, path, "--json", dir.path("o.json"), "--quiet"});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      auto j = nlohmann::json::parse(test::read_file(dir.path("o.json")));
      EXPECT_EQ(j["summary"]["warp_instructions"].get<uint64_t>(), expected);
      EXPECT_GT(j["summary"]["cycles"].get<uint64_t>(), 0u);
      for (const auto& k : j["kernels"]) EXPECT_GT(k["summary"]["cycles"].get<uint64_t>(), 0u);
    }
  }
}

TEST(Cli, JsonHasTheDocumentedShape) {
  TempDir dir;
  auto r = run_cli({"run", "--arch", "a100", test::source_path("traces/examples/divergence.trace"), "--json", dir.path("o.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(test::read_file(dir.path("o.json")));
  for (const char* key : {"arch", "config", "summary", "kernels"}) EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["arch"], "a100");
  EXPECT_EQ(j["config"]["topology"]["sms"], 108);
  for (const char* key : {"cycles", "time_us", "warp_instructions", "thread_instructions", "ipc", "achieved_occupancy",
                          "simt_efficiency", "l1_hit_rate", "l2_hit_rate", "dram_bytes_read", "dram_bytes_written", "bound",
                          "stalls"}) {
    EXPECT_TRUE(j["summary"].contains(key)) << key;
  }
  ASSERT_EQ(j["kernels"].size(), 3u);
  const auto& k = j["kernels"][1];
  EXPECT_EQ(k["name"], "if_else_half");
  EXPECT_EQ(k["grid"], nlohmann::json::array({1, 1, 1}));
  EXPECT_TRUE(k["metrics"].contains("smsp__inst_executed.sum"));
  EXPECT_TRUE(k["metrics"].contains("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"));
  EXPECT_EQ(k["metrics"]["smsp__inst_executed.sum"]["value"].get<double>(), k["summary"]["warp_instructions"].get<double>());
  EXPECT_LT(k["summary"]["simt_efficiency"].get<double>(), j["kernels"][0]["summary"]["simt_efficiency"].get<double>());
  // The summary text names the same numbers.
  EXPECT_NE(r.out.find("kernel if_else_half"), std::string::npos);
  EXPECT_NE(r.out.find("SIMT efficiency"), std::string::npos);
}

// bench --launch times a PTX launch file end to end; it must simulate the same instructions and
// cycles as `run` on that file (the rate itself is never tested: it depends on the machine).
TEST(Cli, BenchOnALaunchFileSimulatesWhatRunSimulates) {
  TempDir dir;
  std::string launch = test::source_path("traces/kernels/transpose_tiled.launch.yaml");
  ASSERT_EQ(test::run_cli({"bench", "--arch", "h100", "--launch", launch, "--json", dir.path("b.json")}).exit_code, 0);
  ASSERT_EQ(test::run_cli({"run", "--arch", "h100", launch, "-q", "--json", dir.path("r.json")}).exit_code, 0);
  auto b = nlohmann::json::parse(test::read_file(dir.path("b.json")));
  auto r = nlohmann::json::parse(test::read_file(dir.path("r.json")));
  const auto& k = r["kernels"][0]["summary"];
  EXPECT_EQ(b["warp_instructions"].get<uint64_t>(), k["warp_instructions"].get<uint64_t>());
  EXPECT_EQ(b["simulated_cycles"].get<uint64_t>(), k["cycles"].get<uint64_t>());
  EXPECT_EQ(b["workload"]["launch"].get<std::string>(), launch);
  EXPECT_GT(b["warp_instructions_per_second"].get<double>(), 0);
}

// --functional times the emulator alone: what `run --functional` executes, and no timing model.
TEST(Cli, BenchFunctionalEmulatesWhatRunFunctionalEmulates) {
  TempDir dir;
  std::string launch = test::source_path("traces/kernels/reduce_sum.launch.yaml");
  auto b = test::run_cli({"bench", "--arch", "a100", "--launch", launch, "--functional", "--json", dir.path("b.json")});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(b.out.find("functional (no timing model)"), std::string::npos) << b.out;
  ASSERT_EQ(test::run_cli({"run", "--arch", "a100", launch, "--functional", "-q", "--json", dir.path("r.json")}).exit_code, 0);
  auto bj = nlohmann::json::parse(test::read_file(dir.path("b.json")));
  auto rj = nlohmann::json::parse(test::read_file(dir.path("r.json")));
  uint64_t emulated = 0;
  for (const auto& k : rj["kernels"]) emulated += k["warp_instructions"].get<uint64_t>();
  EXPECT_GT(emulated, 0u);
  EXPECT_EQ(bj["warp_instructions"].get<uint64_t>(), emulated);
  EXPECT_EQ(bj["mode"].get<std::string>(), "functional");
  EXPECT_EQ(bj["simulated_cycles"].get<uint64_t>(), 0u);
  EXPECT_GT(bj["warp_instructions_per_second"].get<double>(), 0);
  EXPECT_EQ(bj["host_threads"].get<int>(), 1);  // no timing model, no threads ticking it
  auto bare = test::run_cli({"bench", "--functional"});
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_NE(bare.err.find("--launch"), std::string::npos) << bare.err;
  auto threads = test::run_cli({"bench", "--launch", launch, "--functional", "--host-threads", "2"});
  EXPECT_EQ(threads.exit_code, 2);
  EXPECT_NE(threads.err.find("--host-threads sets the threads that tick the timing model, which --functional leaves out"), std::string::npos)
      << threads.err;
}

TEST(Cli, TwoRunsGiveIdenticalJson) {
  TempDir dir;
  std::string trace = test::source_path("traces/examples/shared_reduction.trace");
  ASSERT_EQ(run_cli({"run", "--arch", "h100", trace, "--json", dir.path("a.json"), "-q"}).exit_code, 0);
  ASSERT_EQ(run_cli({"run", "--arch", "h100", trace, "--json", dir.path("b.json"), "-q"}).exit_code, 0);
  EXPECT_EQ(test::read_file(dir.path("a.json")), test::read_file(dir.path("b.json")));
}

TEST(Cli, CsvUsesNcuLongFormat) {
  TempDir dir;
  auto r = run_cli({"run", "--arch", "v100", test::source_path("traces/examples/fma_ilp.trace"), "--csv", dir.path("o.csv"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string csv = test::read_file(dir.path("o.csv"));
  EXPECT_EQ(csv.rfind("\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Kind\"\n", 0), 0u);
  EXPECT_NE(csv.find("\"fma_ilp1\",\"smsp__inst_executed.sum\",\"inst\",258,\"modelled\""), std::string::npos) << csv.substr(0, 400);
}

// --stats: every registered counter per kernel. The group rows must equal the sums of their
// instances, and the totals the JSON summary reports independently (instructions from the
// trace's lines, DRAM bytes), per kernel.
TEST(Cli, StatsDumpEveryCounterPerKernelConsistentWithTheSummary) {
  TempDir dir;
  const std::string trace = test::source_path("traces/accelsim/kernelslist.g");
  auto r = run_cli({"run", "--arch", "h100", trace, "--json", dir.path("o.json"), "--stats", dir.path("s.csv"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(test::read_file(dir.path("o.json")));
  std::istringstream csv(test::read_file(dir.path("s.csv")));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "\"Kernel\",\"Kernel Index\",\"Counter\",\"Value\",\"Unit\",\"Description\"");
  // kernel index -> counter -> value
  std::map<int, std::map<std::string, uint64_t>> value;
  while (std::getline(csv, line)) {
    const size_t a = line.find("\","), b = line.find(",\"", a + 2), c = line.find("\",", b + 2), d = line.find(',', c + 2);
    ASSERT_TRUE(a != std::string::npos && b != std::string::npos && c != std::string::npos && d != std::string::npos) << line;
    value[std::stoi(line.substr(a + 2, b - a - 2))][line.substr(b + 2, c - b - 2)] = std::stoull(line.substr(c + 2, d - c - 2));
  }
  ASSERT_EQ(value.size(), summary["kernels"].size());
  for (const auto& [k, counters] : value) {
    SCOPED_TRACE("kernel " + std::to_string(k));
    const auto& ks = summary["kernels"][k]["summary"];
    uint64_t inst = 0, dram = 0;
    for (const auto& [name, v] : counters) {
      if (name.starts_with("gpu.sm[") && name != "gpu.sm[*].inst_executed" && name.ends_with("].inst_executed")) inst += v;
      if (name.starts_with("gpu.dram.channel[") && name.find("[*]") == std::string::npos && name.ends_with("].bytes")) dram += v;
    }
    EXPECT_EQ(inst, ks["warp_instructions"].get<uint64_t>());
    EXPECT_EQ(counters.at("gpu.sm[*].inst_executed"), inst);
    EXPECT_EQ(dram, ks["dram_bytes_read"].get<uint64_t>() + ks["dram_bytes_written"].get<uint64_t>());
    EXPECT_EQ(counters.at("gpu.dram.channel[*].bytes"), dram);
    EXPECT_TRUE(counters.contains("gpu.dram.channel[0].activate_wait_cycles"));
  }
  // JSON: the same counters, with each group's unit and description once.
  r = run_cli({"run", "--arch", "h100", trace, "--stats", dir.path("s.json"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(test::read_file(dir.path("s.json")));
  EXPECT_EQ(j["units"]["gpu.dram.channel[*].refresh_wait_cycles"]["unit"], "cycles");
  ASSERT_EQ(j["kernels"].size(), value.size());
  EXPECT_EQ(j["kernels"][1]["counters"]["gpu.sm[*].inst_executed"].get<uint64_t>(), value[1]["gpu.sm[*].inst_executed"]);
  EXPECT_EQ(j["kernels"][1]["counters"].size(), value[1].size());
  // Nothing is written when the run fails.
  std::string bad = dir.write("bad.trace", ".version 1\n.kernel k\n.grid 1\n.block 32\n.cta 0 0 0\n.warp 0\nfrob %r1\n");
  r = run_cli({"run", "--arch", "a100", bad, "--stats", dir.path("bad.csv")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(std::filesystem::exists(dir.path("bad.csv")));
}

TEST(Cli, SetOverridesReachTheModel) {
  TempDir dir;
  std::string trace = test::source_path("traces/examples/fma_ilp.trace");
  ASSERT_EQ(run_cli({"run", "--arch", "a100", trace, "--json", dir.path("a.json"), "-q"}).exit_code, 0);
  ASSERT_EQ(run_cli({"run", "--arch", "a100", "--set", "pipes.fma.latency=8", trace, "--json", dir.path("b.json"), "-q"}).exit_code, 0);
  auto a = nlohmann::json::parse(test::read_file(dir.path("a.json"))), b = nlohmann::json::parse(test::read_file(dir.path("b.json")));
  // fma_ilp1 is 256 dependent FMAs: 4 more cycles each.
  EXPECT_EQ(b["kernels"][0]["summary"]["cycles"].get<int64_t>() - a["kernels"][0]["summary"]["cycles"].get<int64_t>(), 256 * 4);
  EXPECT_EQ(b["config"]["pipes"]["fma"]["latency"], 8);
}

TEST(Cli, ArchListAndShow) {
  auto list = run_cli({"arch", "list"});
  ASSERT_EQ(list.exit_code, 0);
  for (const auto& a : test::kArchs) EXPECT_NE(list.out.find(a), std::string::npos);
  auto show = run_cli({"arch", "show", "h200", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  auto j = nlohmann::json::parse(show.out);
  EXPECT_NEAR(j["peaks"]["hbm_tbps"].get<double>(), 4.8, 0.01);
  EXPECT_TRUE(j["peaks"]["tensor_tflops"].contains("fp8"));
  for (const auto& c : j["peaks"]["datasheet_checks"]) {
    EXPECT_TRUE(c["within_2_percent"].get<bool>() || !c["explain"].get<std::string>().empty()) << c;
  }
  auto text = run_cli({"arch", "show", "a100"});
  EXPECT_NE(text.out.find("ridge point"), std::string::npos);
  // The tensor cores' arithmetic from the config, and a what-if changing it.
  EXPECT_NE(text.out.find("(tensor sums: fp16 8 per block, 23 fraction bits, bf16 8 per block, 23 fraction bits, tf32 4 per block"), std::string::npos)
      << text.out;
  auto h100 = run_cli({"arch", "show", "h100", "--set", "tensor.block_sum.bf16.terms=0"});
  EXPECT_NE(h100.out.find("bf16 IEEE, tf32 8 per block, 23 fraction bits, fp8 32 per block, 13 fraction bits)"), std::string::npos) << h100.out;
  EXPECT_NE(h100.out.find("warp-level FP8 MMAs run as two k16 FP16 MMAs"), std::string::npos) << h100.out;
}

TEST(Cli, HelpAndVersion) {
  EXPECT_EQ(run_cli({"--version"}).exit_code, 0);
  auto help = run_cli({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Exit codes"), std::string::npos);
  EXPECT_NE(help.out.find("Examples"), std::string::npos);
  EXPECT_EQ(run_cli({"help", "run"}).exit_code, 0);
  EXPECT_EQ(run_cli({}).exit_code, 2);
}

TEST(CliErrors, UsageErrorsExit2) {
  auto r = run_cli({"run", test::source_path("traces/examples/fma_ilp.trace")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing --arch"), std::string::npos) << r.err;
  EXPECT_EQ(run_cli({"run", "--arch"}).exit_code, 2);
  EXPECT_EQ(run_cli({"run", "--arch", "a100", "--bogus", "x"}).exit_code, 2);
  EXPECT_EQ(run_cli({"frobnicate"}).exit_code, 2);
  EXPECT_EQ(run_cli({"arch", "explode"}).exit_code, 2);
}

TEST(CliErrors, BadInputExits3WithLocationAndWritesNothing) {
  TempDir dir;
  std::string bad = dir.write("bad.trace", ".version 1\n.kernel k\n.grid 1\n.block 32\n.cta 0 0 0\n.warp 0\nfrob %r1\n");
  auto r = run_cli({"run", "--arch", "a100", bad, "--json", dir.path("o.json"), "--csv", dir.path("o.csv")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(bad + ":7:1: unknown instruction 'frob'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path("o.json")));
  EXPECT_FALSE(std::filesystem::exists(dir.path("o.csv")));
  // An existing output file is left as it was.
  dir.write("keep.json", "old");
  run_cli({"run", "--arch", "a100", bad, "--json", dir.path("keep.json")});
  EXPECT_EQ(test::read_file(dir.path("keep.json")), "old");
  // No temporary files are left behind either.
  for (const auto& e : std::filesystem::directory_iterator(dir.path(""))) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  }
}

TEST(CliErrors, BadConfigOverrideExits3) {
  auto r = run_cli({"run", "--arch", "a100", "--set", "memory.l2.size_kib=-5", test::source_path("traces/examples/fma_ilp.trace")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("--set #1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("out of range"), std::string::npos) << r.err;
}

// Output paths are checked before the run, so that a long run does not end by losing its
// results: the error names the option and says what is wrong, and nothing is simulated (no
// report on stdout).
TEST(CliErrors, UnwritableOutputExits4BeforeTheRun) {
  const std::string trace = test::source_path("traces/examples/fma_ilp.trace");
  auto r = run_cli({"run", "--arch", "a100", trace, "--json", "/nonexistent/dir/o.json"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("--json /nonexistent/dir/o.json: directory '/nonexistent/dir' does not exist"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  TempDir dir;
  std::filesystem::create_directory(dir.path("sub"));
  r = run_cli({"run", "--arch", "a100", trace, "--timeline", dir.path("sub")});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("--timeline " + dir.path("sub") + ": is a directory"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  r = run_cli({"trace", "--arch", "a100", test::source_path("traces/kernels/vector_add.launch.yaml"), "-o", "/nonexistent/t.trace.gz"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("--output /nonexistent/t.trace.gz: directory '/nonexistent' does not exist"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
