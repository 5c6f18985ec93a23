// warpsim run: simulate a workload on one GPU config and report.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/functional_run.h"
#include "cli/launch_results.h"
#include "cli/run_views.h"
#include "cli/workload_input.h"
#include "frontend/accelsim/sass_opcodes.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "config/load_config.h"
#include "frontend/accelsim/accelsim_workload.h"
#include "frontend/ptx/launch.h"
#include "frontend/trace/trace_reader.h"
#include "gpu/simulation.h"
#include "report/csv_report.h"
#include "report/json_report.h"
#include "report/stats_report.h"
#include "report/text_report.h"

namespace warpsim::cli {
namespace po = boost::program_options;

namespace {

const char* const kRunHelp = R"(warpsim run: simulate a workload on a GPU config

Usage: warpsim run --arch <name|file.yaml> [--set key.path=value ...] <input> [options]

<input> is a warpsim trace (.trace or .trace.gz; docs/trace-format.md), or an Accel-Sim trace:
a kernelslist.g command list or one kernel's .traceg / .traceg.xz (docs/accelsim.md), or a
launch file (.yaml) naming a PTX kernel, its grid, block and arguments: warpsim emulates the
PTX and times it (docs/launch-format.md; the emulator covers part of PTX so far).

Examples:
  warpsim run --arch a100 traces/examples/vector_add.trace
  warpsim run --arch h100 --set memory.l2.size_kib=102400 --set scheduler.policy=lrr traces/examples/fma_ilp.trace
  warpsim run --arch v100 traces/examples/divergence.trace --json out.json --csv out.csv

Output: a summary on stdout (cycles, time, IPC, occupancy, SIMT efficiency, stall breakdown,
cache hit rates, DRAM traffic, and what bounds the kernel). --stats writes every counter the
components register (per SM, L1, L2 slice, HBM channel, ...), per kernel. --view warps adds each chosen
warp's lanes over time and the cost of each divergent branch. --timeline (Perfetto), --roofline
(SVG) and --report (self-contained HTML) are described in docs/views.md. Output files are
written only after the whole simulation succeeded, and atomically. With a launch file, what the
kernels print with printf comes before the summary; a failed assert or a trap stops the run
(exit code 3). --functional runs a launch file's kernels without the timing model, for their
results only (check, dumped buffers, printf, checker findings) and instruction counts: as many
CTAs at once as the GPU holds, in launch order, their warps taking turns. --sample times a
large grid (twelve waves or more) only until its CTA throughput is steady and projects the rest
of its time; the rest still run, untimed, so results and checks are complete, and the counters
and rates reported are the timed part's, beside the whole kernel's instructions and FLOPs
(counted) and DRAM bytes (scaled) (docs/sampling.md). --host-threads N ticks the SMs on N
host threads (a trace also gets one to read it ahead); every output is identical whatever N
(launch files, clustered kernels and runs with views use one; docs/performance.md#host-threads).
Kernels issued to named streams (a launch's stream:, a trace's .stream) run side by side where
their streams and the SMs' room allow; kernels that overlapped are reported together, each with
its own span, and are timed whole even with --sample. --serial-streams runs them one at a time
instead, to see what the overlap buys (docs/streams.md).

Options)";

// Progress on stderr, only when it is a terminal and the run has taken a while.
class Progress {
 public:
  void update(const KernelInfo& k, uint64_t done, uint64_t total) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(2) || now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    std::fprintf(stderr, "\r%s: %llu/%llu CTAs", k.name.c_str(), static_cast<unsigned long long>(done),
                 static_cast<unsigned long long>(total));
    shown_ = true;
  }
  ~Progress() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool enabled_ = stderr_is_terminal();
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

}  // namespace

int run_command(const std::vector<std::string>& args) {
  std::string arch, input, json_path, csv_path, stats_path, dump_dir, checks = "error", reconvergence, isa = "auto";
  std::vector<std::string> sets;
  bool quiet = false, functional = false, serial_streams = false;
  int threads = kHostThreadsUnset;
  SamplingOptions sampling;
  po::options_description opts(kRunHelp);
  opts.add_options()("help,h", "show this help")(
      "arch,a", po::value(&arch), "GPU config: a shipped name (v100 a100 h100 h200 b200) or a YAML file")(
      "set", po::value(&sets)->composing(), "override a config leaf, e.g. --set memory.l2.size_kib=81920 (repeatable)")(
      "json", po::value(&json_path), "write results as JSON to FILE ('-' for stdout)")(
      "csv", po::value(&csv_path), "write per-kernel Nsight-Compute-named metrics as CSV to FILE")(
      "stats", po::value(&stats_path), "write every registered counter per kernel (value, unit, description) as CSV to FILE, or as JSON when FILE ends in .json")(
      "quiet,q", po::bool_switch(&quiet), "do not print the summary")(
      "dump-dir", po::value(&dump_dir), "with a launch file: write the buffers named in 'dump:' to DIR (made if missing) as <name>.bin")(
      "isa", po::value(&isa), kIsaHelp)(
      "reconvergence", po::value(&reconvergence), "with a launch file run as PTX: stack (classic SIMT stack) or independent (Volta-style independent thread scheduling)")(
      "checks", po::value(&checks), "with a launch file: kernel checkers (races, uninitialised shared reads, reads of init: none global memory nothing wrote, divergent barriers, texture reads of what the kernel wrote, shuffles from lanes not taking part; docs/launch-format.md#checks): error (default: findings exit 6), warn, or off")(
      "functional", po::bool_switch(&functional), "with a launch file: emulate the kernels without the timing model, for their results (check, dump, printf, checkers) and instruction counts; no timing, counters or views")(
      "sample", po::bool_switch(&sampling.enabled), "time a large grid's CTAs only until the GPU's CTA throughput is steady and project the rest's time (grids of twelve waves or more; the rest still run, untimed, for their results; docs/sampling.md)")(
      "sample-tolerance", po::value(&sampling.tolerance), "with --sample: the timing stops once the 95% confidence interval of the CTA completion rate, and its drift over the sample, are within this fraction of it (default 0.02)")(
      "host-threads", po::value(&threads), kHostThreadsHelp)(
      "serial-streams", po::bool_switch(&serial_streams), "run kernels of named streams one at a time, as if all were in the default stream (docs/streams.md)")(
      "input", po::value(&input), "workload file");
  RunViews views;
  views.add_options(opts);
  po::positional_options_description pos;
  pos.add("input", 1);
  if (!parse_arguments(args, opts, pos)) return kExitOk;
  check_output_paths({{"--json", json_path}, {"--csv", csv_path}, {"--stats", stats_path}});
  views.check_outputs();
  if (arch.empty()) throw UsageError{"missing --arch (one of: v100 a100 h100 h200 b200, or a YAML file)"};
  if (input.empty()) throw UsageError{"missing the input trace"};

  LoadedConfig config = load_gpu_config(arch, sets);
  WorkloadInput in = open_workload(input, config.spec, LaunchOptions{checks, reconvergence, isa});
  AccelSimWorkload* accelsim = in.accelsim.get();
  ptx::PtxWorkload* launch = in.launch;
  if (launch) print_isa_notes(*launch);
  if (!dump_dir.empty()) {
    if (!launch) throw UsageError{"--dump-dir needs a launch file"};
    make_output_directory(dump_dir);  // before the run, so that a bad directory fails at once, with nothing written
    // An empty directory after a long run is most likely a forgotten `dump:` list: say so first.
    if (launch->spec().dump.empty()) {
      std::cerr << "warpsim: warning: --dump-dir " << dump_dir << ": " << input << " lists no buffers under 'dump:', so none will be written\n";
    }
  }
  // A kernel fault, failed assert or hang: what the kernels printed before it still shows, and
  // what the checkers found, which may explain it (a lock nobody initialised).
  auto report_before_failure = [&] {
    if (!launch) return;
    std::cout << launch->device_output() << std::flush;
    print_findings(*launch);
  };
  check_sampling(sampling);
  const unsigned host = host_threads(threads);
  if (functional && sampling.enabled) throw UsageError{"--sample chooses which CTAs to time; --functional times none: use one or the other"};
  if (functional) {
    if (!launch) throw UsageError{"--functional needs a launch file: a trace holds no values to compute, only instructions to time"};
    if (!csv_path.empty() || !stats_path.empty() || views.requested())
      throw UsageError{"--csv, --stats, --view, --timeline, --roofline and --report need the timing model; drop --functional"};
    std::vector<FunctionalKernel> kernels;
    try {
      kernels = run_functional(in.workload(), config.spec);
    } catch (...) {
      report_before_failure();
      throw;
    }
    if (!json_path.empty()) {
      nlohmann::ordered_json j;
      j["warpsim_version"] = kVersion;
      j["input"] = input;
      j["arch"] = config.spec.name;
      j["mode"] = "functional";
      j["kernels"] = functional_kernels_json(kernels);
      add_launch_json(j, *launch);
      write_output(json_path, j.dump(2) + "\n");
    }
    if (!dump_dir.empty()) launch->dump(dump_dir);
    if (!launch->device_output().empty()) (json_path == "-" ? std::cerr : std::cout) << launch->device_output() << std::flush;
    const ptx::CheckResult check = launch->spec().expect.empty() ? ptx::CheckResult{} : launch->check();
    if (!quiet && json_path != "-") {
      std::cout << functional_text(kernels);
      print_check(*launch, check);
    }
    return launch_exit_code(*launch, checks, check);
  }
  Gpu gpu(config.spec);
  gpu.set_sampling(sampling);
  gpu.set_host_threads(host);
  gpu.set_serial_streams(serial_streams);
  views.attach(gpu);
  Progress progress;
  gpu.set_progress([&](const KernelInfo& k, uint64_t d, uint64_t t) { progress.update(k, d, t); });
  SimulationResult result;
  try {
    result = simulate(gpu, in.workload());
  } catch (...) {
    report_before_failure();
    throw;
  }
  if (sampling.enabled && !serial_streams) {
    for (const auto& r : result.kernels) {
      if ((!r.info.stream.empty() || !r.concurrent.empty()) && !r.sampling.sampled) {
        std::cerr << "warpsim: note: kernels of named streams were timed whole (--sample times kernels that run alone; "
                     "--serial-streams runs them so)\n";
        break;
      }
    }
  }
  nlohmann::ordered_json unknown = nlohmann::ordered_json::object();
  if (accelsim) {
    // Each unknown SASS opcode is reported once, with its count; it was timed as an ALU op.
    for (const auto& [opcode, count] : accelsim->unknown_opcodes()) {
      std::cerr << "warpsim: warning: unknown SASS opcode " << opcode << " (" << count << " times) timed as " << kDefaultSassMnemonic
                << "\n";
      unknown[opcode] = count;
    }
  }
  if (result.kernels.empty()) throw InputError(SourceLocation{input, 0, 0}, "the trace has no kernels; expected at least one .kernel");

  std::vector<Summary> kernels;
  for (const auto& run : result.kernels) kernels.push_back(summarize_kernel(config.spec, gpu.stats(), run));
  Summary total = summarize_run(config.spec, gpu.stats(), result.kernels);

  if (!json_path.empty()) {
    RunDescription d{kVersion, input, config.spec.name, &config.resolved};
    auto j = run_json(d, kernels, total);
    if (launch) add_launch_json(j, *launch);
    if (accelsim) {
      j["frontend"] = {{"format", "accel-sim"},
                       {"unknown_sass_opcodes", unknown},
                       {"memcpy_commands", accelsim->memcpy_commands()},
                       {"memcpy_bytes", accelsim->memcpy_bytes()}};
    }
    write_output(json_path, j.dump(2) + "\n");
  }
  if (!csv_path.empty()) write_output(csv_path, csv_report(kernels));
  if (!stats_path.empty()) {
    const bool json = stats_path.size() >= 5 && stats_path.compare(stats_path.size() - 5, 5, ".json") == 0;
    write_output(stats_path, json ? stats_json(gpu.stats(), result.kernels) : stats_csv(gpu.stats(), result.kernels));
  }
  if (!dump_dir.empty()) launch->dump(dump_dir);
  // What the kernels printed comes first, as a CUDA program's device printf output appears at
  // the synchronisation after the kernel (stderr when stdout carries the JSON).
  if (launch && !launch->device_output().empty()) (json_path == "-" ? std::cerr : std::cout) << launch->device_output() << std::flush;
  const std::string view_text = views.finish(config.spec, kernels, total, input);
  ptx::CheckResult check;
  if (launch && !launch->spec().expect.empty()) check = launch->check();
  if (!quiet && json_path != "-") {
    std::cout << text_report(config.spec, kernels, total);
    if (launch) print_check(*launch, check);
  }
  if (!view_text.empty() && json_path != "-") std::cout << "\n" << view_text;
  return launch ? launch_exit_code(*launch, checks, check) : kExitOk;
}

}  // namespace warpsim::cli
