// The validation suite's own kernels (tools/validation/launch/) compute what their references
// say in warpsim too, on a config that runs them all, and the suite's generated files agree with
// the launch files they came from. Release build only (CMakePresets.json): the kernels are sized
// for a GPU, and the emulator they exercise is covered under the sanitizers by the other tests.
#include <gtest/gtest.h>

#include <sys/wait.h>

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

// tools/validation/probes/fp8_wgmma_accumulation: an H200's FP8 wgmma result (a large product
// then 4095 small ones, K = 4096) is what h200's block sum gives bit for bit, and a bit more or
// less of accumulation precision gives something else (the probe tells 13 bits from 12 and 14).
TEST(ValidationSuite, Fp8WgmmaAccumulationMatchesTheH200BitForBit) {
  const std::string launch = test::source_path("tools/validation/probes/fp8_wgmma_accumulation.launch.yaml");
  auto passed = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"run", "--arch", "h200", launch, "--json", "-"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = test::run_cli(args);
    // A failed check exits 5 (docs/launch-format.md), with the results written all the same.
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 5) << r.err;
    const bool ok = nlohmann::json::parse(r.out)["check"]["passed"].get<bool>();
    EXPECT_EQ(ok, r.exit_code == 0);
    return ok;
  };
  EXPECT_TRUE(passed({}));
  EXPECT_FALSE(passed({"--set", "tensor.block_sum.fp8.extra_bits=-9"}));   // 14 fraction bits
  EXPECT_FALSE(passed({"--set", "tensor.block_sum.fp8.extra_bits=-11"}));  // 12
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

// tools/validation/run_on_gpu.sh's glue, with stand-ins for the GPU tools on PATH (nvidia-smi,
// nvcc building a stand-in harness, ncu): the measurements JSON, then the Nsight Compute pass
// with the GPU's clocks left alone (--clock-control none), only the metrics this ncu knows, the
// harness in its --profile mode, and its CSV beside the JSON; WARPSIM_NCU=0 skips that pass.
TEST(ValidationSuite, MeasurementScriptProfilesWithNcuWhenItIsThere) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path("bin"));
  dir.write("bin/nvidia-smi", "#!/bin/sh\ncase \"$*\" in *compute_cap*) echo '9.0';; *) echo 'name, driver_version'; echo 'NVIDIA H200, 570';; esac\n");
  // nvcc "builds" a harness that writes a minimal measurements file and logs a --profile run.
  dir.write("harness", "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --list ] && { printf 'k\\tfam\\tk.launch.yaml\\n'; exit 0; }; "
                      "[ \"$1\" = -o ] && o=$2; [ \"$1\" = --profile ] && echo profile >> " + dir.path("harness.log") +
                      "; shift; done\necho 'harness: running k' >&2\necho '{\"gpu\": {\"name\": \"NVIDIA H200\"}, \"kernels\": []}' > $o\n");
  dir.write("bin/nvcc", "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\ncp " + dir.path("harness") + " $out\n");
  dir.write("bin/ncu", "#!/bin/sh\nif [ \"$1\" = --query-metrics ]; then printf '\"Metric\",\"Description\"\\n\"dram__bytes_read\",\"x\"\\n"
                       "\"gpu__time_duration\",\"y\"\\n'; exit 0; fi\n"
                       "echo \"$*\" > " + dir.path("ncu.args") + "\n"
                       "while [ $# -gt 0 ]; do case $1 in --clock-control|--metrics|--print-units) shift 2;; --*) shift;; *) break;; esac; done\n"
                       "\"$@\"\necho '==PROF== Disconnected'\necho '\"ID\",\"Kernel Name\",\"Grid Size\",\"Metric Name\",\"Metric Value\"'\n"
                       "echo '\"0\",\"k\",\"(1, 1, 1)\",\"dram__bytes_read.sum\",\"64\"'\n");
  const std::string env = "PATH=" + dir.path("bin") + ":$PATH ";
  const std::string script = test::source_path("tools/validation/run_on_gpu.sh");
  ASSERT_EQ(std::system(("chmod +x " + dir.path("bin/*") + " " + dir.path("harness")).c_str()), 0);
  const std::string cmd = env + "bash " + script + " " + dir.path("m.json") + " > " + dir.path("out") + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << test::read_file(dir.path("out"));
  EXPECT_NE(test::read_file(dir.path("m.json")).find("NVIDIA H200"), std::string::npos);
  const std::string args = test::read_file(dir.path("ncu.args"));
  EXPECT_NE(args.find("--clock-control none"), std::string::npos) << args;
  EXPECT_NE(args.find("--metrics gpu__time_duration.sum,dram__bytes_read.sum "), std::string::npos) << args;  // the known ones only
  EXPECT_NE(args.find("--profile"), std::string::npos) << args;
  EXPECT_EQ(test::read_file(dir.path("harness.log")), "profile\n");  // timed once, profiled once
  EXPECT_NE(test::read_file(dir.path("m.ncu.csv")).find("\"dram__bytes_read.sum\",\"64\""), std::string::npos);
  std::filesystem::remove(dir.path("m.ncu.csv"));
  const std::string skip = env + "WARPSIM_NCU=0 bash " + script + " " + dir.path("m.json") + " > " + dir.path("out") + " 2>&1";
  ASSERT_EQ(std::system(skip.c_str()), 0) << test::read_file(dir.path("out"));
  EXPECT_FALSE(std::filesystem::exists(dir.path("m.ncu.csv")));
}

// The accuracy gate: warpsim against the committed H200 measurements (docs/validation.md). The
// threshold sits just above the result when it was armed, so a model change may only lower the
// error: lower it when a change does. History: first comparison 54.1% (h200 as shipped before the
// measurement); with H200's measured 60 MiB L2 54.8%; with 32 B/clk per L2 slice 53.4%; with a
// 25-cycle shared latency 52.8%; with atomics at their home partition, a sector per update 46.3%;
// with 64-byte HBM fetches 44.1%; with the atomic unit's rate calibrated on atomic_one_address
// 43.2%; with store data at 17.5 B per SM-clock toward L2 (calibrated on bw_write) 41.7%; running
// ptxas's SASS instead of the PTX, where the emulator runs every instruction of it (nothing tuned),
// 29.3%; SASS timed by its control bits (stall counts, dependence barriers, yield; nothing tuned)
// 26.2%; arithmetic on the pipe each SASS opcode counts on (Nsight's pipe table) 26.4%; DMMA run
// from SASS (dgemm_mma) 25.3%; sparse HMMA/IMMA run from SASS 23.1%.
constexpr double kH200MapeGate = 23.5;

TEST(ValidationSuite, AccuracyGateOnTheCommittedH200Measurements) {
  const std::string m = test::source_path("tools/validation/measurements/NVIDIA_H200-20261204-1333.json");
  auto r = test::run_cli({"validate", m, "--arch", "h200", "--json", "-", "--max-mape", std::to_string(kH200MapeGate)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json v = nlohmann::json::parse(r.out);
  // The gate cannot be met by comparing fewer kernels: every kernel that passed its check on the
  // GPU is compared (65 of the 75 entries; the rest failed there, need a B200, or are the baseline).
  EXPECT_EQ(v["kernels"].size(), 65u);
  EXPECT_LE(v["mape"].get<double>(), kH200MapeGate);
  EXPECT_GE(v["pearson_log"].get<double>(), 0.95);
}

// The PTX path keeps its own gate, where it was when SASS became the default.
TEST(ValidationSuite, PtxPathAccuracyGate) {
  const std::string m = test::source_path("tools/validation/measurements/NVIDIA_H200-20261204-1333.json");
  auto r = test::run_cli({"validate", m, "--arch", "h200", "--isa", "ptx", "--json", "-", "--max-mape", "42.0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kernels"].size(), 65u);
}

// An entry that takes the harness process down (a sticky CUDA error, its watchdog) costs that
// entry alone: the script records it as failed with the harness's message, starts a new process
// after it, and puts the parts together in suite order; the exit status says a check failed.
TEST(ValidationSuite, MeasurementScriptGoesOnAfterAnEntryThatTakesTheHarnessDown) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path("bin"));
  dir.write("bin/nvidia-smi", "#!/bin/sh\ncase \"$*\" in *compute_cap,*) echo 'name, compute_cap'; echo 'NVIDIA H200, 9.0';; "
                            "*compute_cap*) echo '9.0';; *) echo 'NVIDIA H200';; esac\n");
  // Entries a, crash, hang, d: "crash" exits 1 as CUDA_OK does, "hang" 4 as the watchdog does.
  dir.write("harness",
            "#!/bin/sh\nafter=''\nwhile [ $# -gt 0 ]; do case $1 in --list) printf 'a\\tf1\\ta.yaml\\ncrash\\tf2\\tc.yaml\\nhang\\tf2\\th.yaml\\nd\\tf1\\td.yaml\\n'; exit 0;;\n"
            "  -o) o=$2; shift;; --after) after=$2; shift;; esac; shift; done\n"
            "echo \"$after\" >> " + dir.path("afters") + "\n"
            "entries=''; started=$([ -z \"$after\" ] && echo 1 || echo 0)\n"
            "for n in a crash hang d; do\n"
            "  if [ $started = 0 ]; then [ $n = \"$after\" ] && started=1; continue; fi\n"
            "  echo \"harness: running $n\" >&2\n"
            "  [ $n = crash ] && { echo 'harness: harness.cu:9: an illegal memory access was encountered' >&2; exit 1; }\n"
            "  [ $n = hang ] && { echo 'harness: hang did not finish within 20 s' >&2; exit 4; }\n"
            "  entries=\"$entries${entries:+,}{\\\"name\\\": \\\"$n\\\", \\\"check\\\": \\\"passed\\\", \\\"time_us_median\\\": 1}\"\n"
            "  echo \"{\\\"gpu\\\": {\\\"name\\\": \\\"NVIDIA H200\\\"}, \\\"kernels\\\": [$entries]}\" > $o\n"
            "done\nexit 0\n");
  dir.write("bin/nvcc", "#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\ncp " + dir.path("harness") + " $out\n");
  ASSERT_EQ(std::system(("chmod +x " + dir.path("bin/*") + " " + dir.path("harness")).c_str()), 0);
  const std::string cmd = "PATH=" + dir.path("bin") + ":$PATH WARPSIM_NCU=0 bash " + test::source_path("tools/validation/run_on_gpu.sh") +
                          " " + dir.path("m.json") + " > " + dir.path("out") + " 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << test::read_file(dir.path("out"));
  EXPECT_EQ(WEXITSTATUS(status), 3) << test::read_file(dir.path("out"));
  EXPECT_EQ(test::read_file(dir.path("afters")), "\ncrash\nhang\n");  // one process, then one after each casualty
  const nlohmann::json m = nlohmann::json::parse(test::read_file(dir.path("m.json")));
  ASSERT_EQ(m["kernels"].size(), 4u) << m.dump(1);
  const char* names[] = {"a", "crash", "hang", "d"};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(m["kernels"][i]["name"], names[i]);
  EXPECT_EQ(m["kernels"][0]["check"], "passed");
  EXPECT_EQ(m["kernels"][1]["check"], "FAILED: harness: harness.cu:9: an illegal memory access was encountered");
  EXPECT_EQ(m["kernels"][1]["family"], "f2");
  EXPECT_EQ(m["kernels"][1]["launch_file"], "c.yaml");
  EXPECT_EQ(m["kernels"][2]["check"], "FAILED: harness: hang did not finish within 20 s");
  EXPECT_EQ(m["kernels"][3]["check"], "passed");
  EXPECT_EQ(m["gpu"]["name"], "NVIDIA H200");
  EXPECT_NE(m["gpu"]["nvidia_smi_after"].get<std::string>().find("NVIDIA H200"), std::string::npos);
}

}  // namespace
}  // namespace warpsim
