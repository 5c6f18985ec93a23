// warpsim bench: how fast the simulator itself runs, on a synthetic workload made in memory.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/workload_input.h"
#include "cli/functional_run.h"
#include "common/error.h"
#include "config/load_config.h"
#include "frontend/ptx/launch.h"
#include "frontend/synthetic/synthetic_workload.h"
#include "gpu/simulation.h"

namespace warpsim::cli {
namespace po = boost::program_options;

namespace {
const char* const kBenchHelp = R"(warpsim bench: measure simulation speed

Usage: warpsim bench [--arch a100] [--iterations N] [--ctas N] [--host-threads N] [--json FILE]
       warpsim bench [--arch a100] --launch FILE.launch.yaml [--functional] [--json FILE]

Simulates a synthetic kernel (FP32 math, coalesced global loads and stores, a divergent
if/else, shared memory with 2-way bank conflicts, a CTA barrier) of about 50 million warp
instructions by default (on one host thread unless --host-threads says more), and reports warp_instructions_per_second and
simulated_cycles_per_second. With --launch it runs a PTX launch file end to end instead
(parsing, functional emulation with the kernel checkers on, and timing), for example
tools/bench/sgemm_256.launch.yaml; --functional leaves the timing model out and measures the
emulator alone, as `warpsim run --functional` runs it (simulated_cycles is then 0, and there is no
timing model for --host-threads to spread), for example tools/bench/sampling/saxpy_32m.launch.yaml.
See docs/performance.md.

Options)";
}  // namespace

int bench_command(const std::vector<std::string>& args) {
  std::string arch = "a100", json_path, launch, isa = "auto";
  bool functional = false;
  int host = kHostThreadsUnset;
  SyntheticSpec spec;
  po::options_description opts(kBenchHelp);
  opts.add_options()("help,h", "show this help")("arch,a", po::value(&arch), "GPU config (default a100)")(
      "ctas", po::value(&spec.ctas), "CTAs in the grid (default 864)")(
      "threads", po::value(&spec.threads_per_cta), "threads per CTA (default 256)")(
      "iterations", po::value(&spec.iterations_per_warp), "loop trips per warp (default 410)")(
      "launch", po::value(&launch), "time this launch file (emulated) instead of the synthetic kernel")(
      "isa", po::value(&isa), kIsaHelp)(
      "functional", po::bool_switch(&functional), "with --launch: the emulator alone, without the timing model")(
      "host-threads", po::value(&host), kHostThreadsHelp)(
      "json", po::value(&json_path), "write the result as JSON to FILE");
  if (!parse_arguments(args, opts, po::positional_options_description{})) return kExitOk;
  check_output_paths({{"--json", json_path}});
  if (spec.ctas == 0 || spec.threads_per_cta == 0 || spec.iterations_per_warp == 0) {
    throw UsageError{"--ctas, --threads and --iterations must be positive"};
  }
  if (functional && launch.empty()) throw UsageError{"--functional times the emulator, which runs launch files: give one with --launch"};
  if (functional && host != kHostThreadsUnset) throw UsageError{"--host-threads sets the threads that tick the timing model, which --functional leaves out"};
  LoadedConfig config = load_gpu_config(arch);
  std::optional<Gpu> gpu;  // the timing model: none for --functional
  if (!functional) {
    gpu.emplace(config.spec);
    gpu->set_host_threads(host_threads(host));
  }
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<Workload> workload;
  if (launch.empty()) {
    workload = std::make_unique<SyntheticWorkload>(spec);
  } else {
    workload = std::make_unique<ptx::PtxWorkload>(launch, config.spec, isa_choice(isa));
  }
  uint64_t insts = 0, cycles = 0, ticks = 0;
  if (functional) {
    for (const auto& k : run_functional(*workload, config.spec)) insts += k.warp_instructions;
  } else {
    SimulationResult result = simulate(*gpu, *workload);
    for (const auto& k : result.kernels) {
      insts += gpu->stats().sum("gpu.sm[*].inst_executed", k.stats);
      cycles += k.cycles();
    }
    ticks = result.engine_ticks;
  }
  auto t1 = std::chrono::steady_clock::now();
  double seconds = std::chrono::duration<double>(t1 - t0).count();
  nlohmann::ordered_json j;
  j["arch"] = config.spec.name;
  if (launch.empty()) {
    j["workload"] = {{"ctas", spec.ctas}, {"threads_per_cta", spec.threads_per_cta}, {"iterations_per_warp", spec.iterations_per_warp}};
  } else {
    j["workload"] = {{"launch", launch}};
    j["mode"] = functional ? "functional" : "timing";
  }
  j["host_threads"] = gpu ? gpu->host_threads() : 1;
  j["ran_parallel"] = gpu && gpu->ran_parallel();  // launch files tick on one thread (gpu/sm_batch.h)
  j["warp_instructions"] = insts;
  j["simulated_cycles"] = cycles;
  j["engine_ticks"] = ticks;
  j["wall_seconds"] = seconds;
  j["warp_instructions_per_second"] = insts / seconds;
  j["simulated_cycles_per_second"] = cycles / seconds;
  if (!json_path.empty()) write_output(json_path, j.dump(2) + "\n");
  if (functional) {
    std::printf("warpsim bench on %s, functional (no timing model): %llu warp instructions emulated in %.2f s\n", config.spec.name.c_str(),
                static_cast<unsigned long long>(insts), seconds);
    std::printf("  warp_instructions_per_second  %.3g\n", insts / seconds);
    return kExitOk;
  }
  std::printf("warpsim bench on %s: %llu warp instructions, %llu simulated cycles in %.2f s (%u host thread%s%s)\n",
              config.spec.name.c_str(), static_cast<unsigned long long>(insts), static_cast<unsigned long long>(cycles), seconds,
              gpu->host_threads(), gpu->host_threads() == 1 ? "" : "s", gpu->host_threads() > 1 && !gpu->ran_parallel() ? ", used one" : "");
  std::printf("  warp_instructions_per_second  %.3g\n  simulated_cycles_per_second   %.3g\n", insts / seconds, cycles / seconds);
  return kExitOk;
}

}  // namespace warpsim::cli
