// warpsim compare: one workload on several GPU configs, side by side.
#include <algorithm>
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_common.h"
#include "cli/workload_input.h"
#include "common/error.h"
#include "config/load_config.h"
#include "gpu/simulation.h"
#include "views/comparison.h"

namespace warpsim::cli {
namespace po = boost::program_options;

namespace {

const char* const kCompareHelp = R"(warpsim compare: run one workload on several GPU configs and compare them

Usage: warpsim compare --arch v100,a100,h100,h200,b200 <input> [--set key=value ...] [--svg FILE] [--json FILE]

<input> is anything warpsim run takes (a trace, an Accel-Sim trace or a launch file). Each config
runs the whole workload; a launch file is compiled for each GPU's PTX target ({sm} in its ptx:).
A GPU that cannot run it (a tensor precision it lacks, a launch file's requires:) is listed with
the reason. The table shows cycles, time, speed-up over the first GPU, what bounds the run, IPC,
DRAM bandwidth, L2 hit rate, occupancy, SIMT efficiency and achieved FLOP/s. With --sample, a
large grid's time is projected from part of it (docs/sampling.md): the table's rates are then
the timed part's.

Examples:
  warpsim compare --arch v100,a100,h100,h200,b200 traces/examples/tensor_mma.trace.gz
  warpsim compare --arch a100,h100 traces/kernels/attention_flash.launch.yaml --svg compare.svg

Options)";

std::vector<std::string> split_arches(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  std::string a;
  while (std::getline(s, a, ','))
    if (!a.empty()) out.push_back(a);
  if (out.empty()) throw UsageError{"--arch needs a comma-separated list of configs, e.g. v100,a100,h100"};
  return out;
}

}  // namespace

int compare_command(const std::vector<std::string>& args) {
  std::string arches, input, svg_path, json_path, checks = "error", reconvergence, isa = "auto";
  std::vector<std::string> sets;
  SamplingOptions sampling;
  int threads = kHostThreadsUnset;
  po::options_description opts(kCompareHelp);
  opts.add_options()("help,h", "show this help")("arch,a", po::value(&arches), "comma-separated configs (shipped names or YAML files)")(
      "set", po::value(&sets)->composing(), "override a config leaf on every GPU (repeatable)")(
      "svg", po::value(&svg_path), "write a bar chart of the times to FILE")("json", po::value(&json_path), "write the rows as JSON to FILE")(
      "checks", po::value(&checks), "with a launch file: error (default), warn or off")(
      "reconvergence", po::value(&reconvergence), "with a launch file run as PTX: stack or independent")(
      "isa", po::value(&isa), kIsaHelp)(
      "sample", po::bool_switch(&sampling.enabled), "as warpsim run --sample: time large grids in part and project the rest (docs/sampling.md)")(
      "sample-tolerance", po::value(&sampling.tolerance), "with --sample: as warpsim run's (default 0.02)")(
      "host-threads", po::value(&threads), kHostThreadsHelp)("input", po::value(&input), "workload file");
  po::positional_options_description pos;
  pos.add("input", 1);
  if (!parse_arguments(args, opts, pos)) return kExitOk;
  check_output_paths({{"--json", json_path}, {"--svg", svg_path}});
  if (arches.empty()) throw UsageError{"missing --arch (a list such as v100,a100,h100,h200,b200)"};
  if (input.empty()) throw UsageError{"missing the input"};
  check_sampling(sampling);
  const unsigned host = host_threads(threads);

  std::vector<ComparisonRow> rows;
  for (const std::string& arch : split_arches(arches)) {
    LoadedConfig config = load_gpu_config(arch, sets);  // a bad config is an error for the whole command
    ComparisonRow row;
    row.arch = config.spec.name;
    row.product = config.spec.product;
    try {
      WorkloadInput in = open_workload(input, config.spec, LaunchOptions{checks, reconvergence, isa});
      Gpu gpu(config.spec);
      gpu.set_sampling(sampling);
      gpu.set_host_threads(host);
      SimulationResult result = simulate(gpu, in.workload());
      if (result.kernels.empty()) throw InputError(SourceLocation{input, 0, 0}, "the input has no kernels");
      row.total = summarize_run(config.spec, gpu.stats(), result.kernels);
      row.ran = true;
      if (in.launch && !in.launch->spec().expect.empty()) {
        const ptx::CheckResult check = in.launch->check();
        row.check = check.passed ? "passed" : "FAILED";
        row.check_error = check.largest_error;
      }
    } catch (const InputError& e) {
      // Input this GPU cannot run is a row of the comparison, not the end of it; a file that
      // cannot be read at all fails the same way on every GPU, so it still ends the command.
      std::error_code ec;
      if (!std::filesystem::exists(input, ec)) throw;
      row.error = e.what();
    }
    rows.push_back(std::move(row));
  }
  if (std::none_of(rows.begin(), rows.end(), [](const ComparisonRow& r) { return r.ran; }))
    throw InputError(SourceLocation{input, 0, 0}, "no GPU could run it: " + rows.front().error);

  const double first_us = baseline_us(rows);
  if (!json_path.empty()) {
    auto j = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
      nlohmann::ordered_json x{{"arch", r.arch}, {"product", r.product}, {"ran", r.ran}};
      if (!r.ran) {
        x["error"] = r.error;
      } else {
        x["cycles"] = r.total.cycles;
        x["time_us"] = r.total.time_us;
        x["speedup_vs_first"] = first_us / r.total.time_us;
        x["bound"] = r.total.bound;
        x["ipc"] = r.total.ipc;
        x["dram_bandwidth_gbps"] = r.total.dram_bandwidth_gbps;
        x["l2_hit_rate"] = r.total.l2_hit_rate;
        x["achieved_occupancy"] = r.total.achieved_occupancy;
        x["simt_efficiency"] = r.total.simt_efficiency;
        x["tensor_flops"] = r.total.tensor_flops;
        if (!r.check.empty()) x["check"] = r.check, x["check_error"] = r.check_error;
      }
      j.push_back(x);
    }
    write_output(json_path, j.dump(2) + "\n");
  }
  if (!svg_path.empty()) write_output(svg_path, comparison_svg(input, rows));
  if (json_path != "-") std::cout << comparison_table(input, rows);
  return std::any_of(rows.begin(), rows.end(), [](const ComparisonRow& r) { return r.check == "FAILED"; }) ? kExitCheck : kExitOk;
}

}  // namespace warpsim::cli
