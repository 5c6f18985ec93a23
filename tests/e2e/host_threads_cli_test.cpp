// --host-threads on the command line: the outputs are byte-identical whatever the count, a count
// out of range is a usage error, and one above the machine's hardware threads is capped.
#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace warpsim {
namespace {

using test::run_cli;

TEST(HostThreadsCli, RunWritesTheSameFilesWhateverTheThreadCount) {
  test::TempDir dir;
  const std::string trace = test::source_path("traces/tutorials/precision_fp16.trace.gz");
  std::vector<std::string> outputs;
  for (const std::string threads : {"1", "3"}) {
    const auto r = run_cli({"run", "--arch", "h100", trace, "--host-threads", threads, "--json", dir.path("r" + threads + ".json"),
                            "--stats", dir.path("s" + threads + ".csv"), "--csv", dir.path("m" + threads + ".csv")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    outputs.push_back(r.out + test::read_file(dir.path("r" + threads + ".json")) + test::read_file(dir.path("s" + threads + ".csv")) +
                      test::read_file(dir.path("m" + threads + ".csv")));
  }
  EXPECT_EQ(outputs[0], outputs[1]);
}

TEST(HostThreadsCli, CompareAndBenchTakeTheOption) {
  const std::string trace = test::source_path("traces/examples/vector_add.trace.gz");
  const auto one = run_cli({"compare", "--arch", "a100,h100", trace});
  const auto two = run_cli({"compare", "--arch", "a100,h100", trace, "--host-threads", "2"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, two.out);

  test::TempDir dir;
  const auto bench = run_cli({"bench", "--iterations", "2", "--host-threads", "2", "--json", dir.path("b.json")});
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  const auto j = nlohmann::json::parse(test::read_file(dir.path("b.json")));
  EXPECT_EQ(j["host_threads"], 2);
  EXPECT_EQ(j["ran_parallel"], true);  // the synthetic workload's CTAs share nothing
}

TEST(HostThreadsCli, ACountOutOfRangeIsAUsageError) {
  const std::string trace = test::source_path("traces/examples/vector_add.trace.gz");
  for (const std::string bad : {"-1", "257"}) {
    const auto r = run_cli({"run", "--arch", "a100", trace, "--host-threads", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--host-threads must be between 0 (one per hardware thread) and 256"), std::string::npos) << r.err;
  }
  // 0: one per hardware thread, whatever this machine has; more than it has: as many, said so.
  EXPECT_EQ(run_cli({"run", "--arch", "a100", trace, "--host-threads", "0", "-q"}).exit_code, 0);
  const auto many = run_cli({"run", "--arch", "a100", trace, "--host-threads", "256", "-q"});
  EXPECT_EQ(many.exit_code, 0) << many.err;
  EXPECT_NE(many.err.find("--host-threads 256 is more than this machine's"), std::string::npos) << many.err;
}

TEST(HostThreadsCli, TheEnvironmentSetsTheDefault) {
  const std::string trace = test::source_path("traces/examples/vector_add.trace.gz");
  test::TempDir dir;
  ::setenv("WARPSIM_HOST_THREADS", "2", 1);
  const auto bench = run_cli({"bench", "--iterations", "2", "--json", dir.path("b.json")});
  ::setenv("WARPSIM_HOST_THREADS", "two", 1);
  const auto bad = run_cli({"run", "--arch", "a100", trace, "-q"});
  const auto given = run_cli({"run", "--arch", "a100", trace, "-q", "--host-threads", "1"});  // the option wins
  ::unsetenv("WARPSIM_HOST_THREADS");
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_EQ(nlohmann::json::parse(test::read_file(dir.path("b.json")))["host_threads"], 2);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("WARPSIM_HOST_THREADS must be a whole number from 0 (one per hardware thread) to 256, got 'two'"), std::string::npos)
      << bad.err;
  EXPECT_EQ(given.exit_code, 0) << given.err;
}

}  // namespace
}  // namespace warpsim
