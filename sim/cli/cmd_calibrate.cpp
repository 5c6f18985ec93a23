// warpsim calibrate: the model's microbenchmarks beside hardware measurements.
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <nlohmann/json.hpp>

#include "calibrate/microbench.h"
#include "cli/cli_common.h"
#include "common/error.h"
#include "common/format.h"
#include "config/load_config.h"
#include "frontend/synthetic/generated_workload.h"
#include "frontend/trace/trace_writer.h"

namespace warpsim::cli {
namespace po = boost::program_options;

namespace {
const char* const kCalibrateHelp = R"(warpsim calibrate: microbenchmarks of the model beside hardware measurements

Usage: warpsim calibrate --arch <name|file.yaml> [--set key.path=value ...] [--json FILE]
                         [--write-traces DIR]

Runs, on the model of the GPU named: pointer chases for the latency of L1, shared memory, L2 and
DRAM and a ladder of working-set sizes; the shared-memory bank-conflict ladder (1 to 32 ways);
DRAM reads at 8, 16 and 32 warps per SM and an L2-resident read; FP32 FMA and tensor
throughput for every precision the GPU has, through mma.sync (wmma on V100) and, where those
reach only part of the peak, through the instruction that reaches it (Hopper: wgmma;
Blackwell: tcgen05.mma, FP6 and FP4's only form there). Each is built in memory at sizes that
follow the config's caches. Beside each result: the hardware measurement from configs/
reference/microbench.yaml (latencies, from pointer-chase studies) or the config's datasheet
section (throughput peaks), and the error. See docs/validation.md. --write-traces also writes every
microbenchmark run as a warpsim trace (DIR/<name>.trace.gz, sized for this GPU), to replay with
warpsim run or edit (traces/microbench/ has the small ones for a100).

Options)";

std::string number(double v) { return std::isnan(v) ? "n/m" : v >= 100 ? fmt("%.0f", v) : fmt("%.1f", v); }
}  // namespace

int calibrate_command(const std::vector<std::string>& args) {
  std::string arch, json_path, trace_dir;
  std::vector<std::string> sets;
  po::options_description opts(kCalibrateHelp);
  opts.add_options()("help,h", "show this help")("arch,a", po::value(&arch), "GPU config (required)")(
      "set", po::value(&sets)->composing(), "override a config leaf, e.g. --set memory.l2.size_kib=102400")(
      "json", po::value(&json_path), "write the table as JSON to FILE")(
      "write-traces", po::value(&trace_dir), "also write each microbenchmark run as DIR/<name>.trace.gz");
  if (!parse_arguments(args, opts, po::positional_options_description{})) return kExitOk;
  check_output_paths({{"--json", json_path}});
  if (arch.empty()) throw UsageError{"--arch is required"};
  LoadedConfig config = load_gpu_config(arch, sets);
  MicrobenchTraceSink sink;
  if (!trace_dir.empty()) {
    std::filesystem::create_directories(trace_dir);
    sink = [&](const std::string& name, const std::vector<GeneratedKernel>& kernels) {
      GeneratedWorkload workload(kernels);
      std::ostringstream text;
      TraceWriter writer(text);
      writer.comment("warpsim calibrate --arch " + config.spec.name + ": microbenchmark " + name);
      writer.workload(workload, [](RegId r) { return "%r" + std::to_string(r); });
      write_output_maybe_gzip(trace_dir + "/" + name + ".trace.gz", text.str());
    };
  }
  const auto rows = run_microbenchmarks(config.spec, load_microbench_references(config.spec.name), sink);

  std::printf("warpsim calibrate on %s (%s)\n", config.spec.name.c_str(), config.spec.product.c_str());
  std::printf("%-16s %-34s %10s %10s %8s  %s\n", "group", "benchmark", "simulated", "reference", "error", "unit; reference source or note");
  nlohmann::ordered_json j;
  j["arch"] = config.spec.name;
  j["rows"] = nlohmann::ordered_json::array();
  int compared = 0, within = 0;
  for (const auto& r : rows) {
    std::string ref = "-", err = "-";
    if (r.reference && !std::isnan(r.simulated)) {
      const double e = (r.simulated - *r.reference) / *r.reference * 100;
      ref = number(*r.reference);
      err = fmt("%+.1f%%", e);
      if (r.group == "latency") ++compared, within += std::fabs(e) <= 10.0;
    }
    std::string tail = r.unit;
    if (!r.source.empty()) tail += "; " + r.source;
    if (!r.note.empty()) tail += "; " + r.note;
    std::printf("%-16s %-34s %10s %10s %8s  %s\n", r.group.c_str(), r.name.c_str(), number(r.simulated).c_str(), ref.c_str(), err.c_str(),
                tail.c_str());
    nlohmann::ordered_json row = {{"group", r.group}, {"name", r.name}, {"unit", r.unit}};
    row["simulated"] = std::isnan(r.simulated) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.simulated);
    row["reference"] = r.reference ? nlohmann::ordered_json(*r.reference) : nlohmann::ordered_json(nullptr);
    row["source"] = r.source;
    row["note"] = r.note;
    j["rows"].push_back(row);
  }
  std::printf("latencies within 10%% of their measurement: %d of %d\n", within, compared);
  j["latencies_compared"] = compared;
  j["latencies_within_10_percent"] = within;
  if (!json_path.empty()) write_output(json_path, j.dump(2) + "\n");
  return kExitOk;
}

}  // namespace warpsim::cli
