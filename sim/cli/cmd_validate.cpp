// warpsim validate: the validation suite's kernels, measured on a GPU (tools/validation/), run
// through warpsim with the matching config, and compared.
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_common.h"
#include "cli/workload_input.h"
#include "common/error.h"
#include "config/load_config.h"
#include "gpu/simulation.h"
#include "report/kernel_summary.h"
#include "views/metric_validation.h"
#include "views/ncu_csv.h"
#include "views/validation.h"

namespace warpsim::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

const char* const kValidateHelp = R"(warpsim validate: compare measured GPU times with simulated ones

Usage: warpsim validate <measurements.json> [--arch h200[,h100]] [--csv FILE] [--svg FILE] [--json FILE]
                        [--ncu FILE.ncu.csv] [--metrics-csv FILE]

<measurements.json> is what tools/validation/run_on_gpu.sh writes on a machine with a GPU. Each
kernel that passed its check there is simulated from its launch file (the same CUDA source and
launch shape) on the config matching the GPU's name (H200 -> h200, ...) or on each --arch given,
and the table shows measured vs simulated time and the error, per family and overall: MAPE,
median |error| and the correlation of the times. Measured times are CUDA-event medians minus the
median of an empty kernel (the launch cost, which warpsim does not model); --no-baseline keeps
them whole. With Nsight Compute's metrics for the same kernels (run_on_gpu.sh writes them beside
the measurements, <name>.ncu.csv, when ncu is installed; read by default when present), each
simulated launch is also paired with the profiled one and every metric both report is compared:
per metric, how many launches agree exactly, the MAPE and the median |error|. Where the
measurements record an entry's largest |output - reference| (max_abs_error), warpsim's own is
shown beside it for the entries that are not exact: the rounding, above all the tensor cores'
arithmetic, the simulator must reproduce. See docs/validation.md.

Options)";

std::string arch_for(const std::string& gpu_name) {
  std::string n = gpu_name;
  for (char& c : n) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* a : {"B200", "H200", "H100", "A100", "V100"})
    if (n.find(a) != std::string::npos) {
      std::string s = a;
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    }
  return "";
}

// Launch files are named relative to the repository root; look from here, then upwards from the
// measurements file (which usually lives in tools/validation/measurements/).
std::string find_launch(const std::string& name, const fs::path& measurements) {
  std::error_code ec;  // non-throwing: the name comes from the measurements file
  if (fs::exists(name, ec)) return name;
  fs::path dir = fs::absolute(measurements, ec).parent_path();
  for (int up = 0; up < 6 && !dir.empty(); ++up, dir = dir.parent_path())
    if (fs::exists(dir / name, ec)) return (dir / name).string();
  return "";
}

// One kernel of a measurements file, the fields validate reads.
struct MeasuredKernel {
  std::string name, family, skipped, check, launch_file;
  double time_us = 0;
  bool timed = false;
  double output_error = -1;  // the harness's largest |output - reference| (max_abs_error); -1: not recorded
};

// An entry's largest |output - reference| on the GPU and in warpsim: rounding the simulator must
// reproduce, the tensor cores' arithmetic above all (docs/tensor-numerics.md).
struct OutputErrorPoint {
  std::string name, arch;
  double gpu = 0, simulated = 0;
};

std::string output_error_table(const std::vector<OutputErrorPoint>& points) {
  std::ostringstream t;
  t << "Largest |output - reference| (rounding and the tensor cores' arithmetic), GPU vs warpsim:\n\n";
  t << "  kernel                    arch         GPU     warpsim\n";
  for (const auto& p : points) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-24s  %-6s  %10.3g  %10.3g\n", p.name.c_str(), p.arch.c_str(), p.gpu, p.simulated);
    t << line;
  }
  return t.str();
}

struct Measurements {
  std::string gpu_name;
  std::vector<MeasuredKernel> kernels;
};

// Reads what tools/validation/run_on_gpu.sh writes; a missing or mistyped field is an InputError
// naming the file and the field, not an exception from the JSON library.
Measurements read_measurements(const std::string& input) {
  std::ifstream f(input);
  if (!f) throw std::runtime_error(input + ": cannot open");
  const SourceLocation where{input, 0, 0};
  nlohmann::json m;
  try {
    m = nlohmann::json::parse(f);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(where, std::string("not valid JSON: ") + e.what());
  }
  if (!m.is_object() || !m.contains("gpu") || !m["gpu"].is_object() || !m.contains("kernels") || !m["kernels"].is_array())
    throw InputError(where, "expected an object with 'gpu' (an object) and 'kernels' (an array), as tools/validation/run_on_gpu.sh writes");
  Measurements out;
  try {
    out.gpu_name = m["gpu"].value("name", "");
    for (const auto& k : m["kernels"]) {
      if (!k.is_object()) throw InputError(where, "each entry of 'kernels' must be an object");
      MeasuredKernel mk;
      mk.name = k.value("name", "");
      mk.family = k.value("family", "");
      mk.skipped = k.contains("skipped") ? k["skipped"].get<std::string>() : "";
      mk.check = k.value("check", "");
      mk.launch_file = k.value("launch_file", "");
      mk.timed = k.contains("time_us_median");
      mk.time_us = mk.timed ? k["time_us_median"].get<double>() : 0.0;
      mk.output_error = k.contains("max_abs_error") && !k["max_abs_error"].is_null() ? k["max_abs_error"].get<double>() : -1.0;
      if (k.contains("skipped") && mk.skipped.empty()) mk.skipped = "no reason given";
      out.kernels.push_back(std::move(mk));
    }
  } catch (const nlohmann::json::type_error& e) {
    throw InputError(where, std::string("a field has the wrong type (") + e.what() + "); expected what tools/validation/run_on_gpu.sh writes");
  }
  return out;
}

}  // namespace

int validate_command(const std::vector<std::string>& args) {
  std::string input, arches, csv_path, svg_path, json_path, only, ncu_path, metrics_csv_path, isa = "auto";
  double max_mape = -1;
  bool no_baseline = false;
  po::options_description opts(kValidateHelp);
  opts.add_options()("help,h", "show this help")("arch,a", po::value(&arches), "configs to simulate, comma-separated (default: from the GPU's name)")(
      "csv", po::value(&csv_path), "write the per-kernel comparison as CSV to FILE")(
      "svg", po::value(&svg_path), "write a log-log scatter plot (measured vs simulated, one marker per family) to FILE")(
      "json", po::value(&json_path), "write the comparison and its statistics as JSON to FILE")(
      "only", po::value(&only), "compare only this kernel")("no-baseline", po::bool_switch(&no_baseline), "do not subtract the empty kernel's time")(
      "max-mape", po::value(&max_mape), "exit with code 7 when the MAPE is above this percentage (the accuracy gate)")(
      "ncu", po::value(&ncu_path), "Nsight Compute CSV of the same kernels (default: <measurements>.ncu.csv when it exists)")(
      "metrics-csv", po::value(&metrics_csv_path), "write the per-launch metric comparison as CSV to FILE")(
      "isa", po::value(&isa), kIsaHelp)(
      "input", po::value(&input), "measurements JSON");
  po::positional_options_description pos;
  pos.add("input", 1);
  if (!parse_arguments(args, opts, pos)) return kExitOk;
  check_output_paths({{"--json", json_path}, {"--csv", csv_path}, {"--svg", svg_path}, {"--metrics-csv", metrics_csv_path}});
  if (input.empty()) throw UsageError{"missing the measurements file (tools/validation/run_on_gpu.sh writes one)"};
  std::vector<NcuLaunch> profiled;
  if (ncu_path.empty()) {
    std::error_code ec;
    const fs::path sibling = fs::path(input).replace_extension(".ncu.csv");
    if (fs::exists(sibling, ec)) ncu_path = sibling.string();
  }
  if (!ncu_path.empty()) {
    std::ifstream f(ncu_path, std::ios::binary);
    if (!f) throw UsageError{"--ncu: cannot open " + ncu_path};
    std::stringstream text;
    text << f.rdbuf();
    profiled = parse_ncu_csv(text.str(), ncu_path);
  }
  if (!metrics_csv_path.empty() && ncu_path.empty()) throw UsageError{"--metrics-csv needs Nsight Compute's metrics (--ncu FILE)"};

  const Measurements m = read_measurements(input);
  const std::string& gpu_name = m.gpu_name;
  std::vector<std::string> archs;
  if (arches.empty()) {
    const std::string a = arch_for(gpu_name);
    if (a.empty()) throw UsageError{"no shipped config matches the GPU '" + gpu_name + "'; pick one with --arch"};
    archs.push_back(a);
  } else {
    std::stringstream s(arches);
    for (std::string a; std::getline(s, a, ',');)
      if (!a.empty()) archs.push_back(a);
  }
  double baseline = 0;
  for (const auto& k : m.kernels)
    if (k.name == "empty_kernel" && k.timed) baseline = k.time_us;
  if (no_baseline) baseline = 0;

  std::vector<ValidationPoint> points;
  std::vector<MetricPoint> metric_points;
  std::vector<std::string> notes;
  std::vector<OutputErrorPoint> output_errors;
  for (const std::string& arch : archs) {
    LoadedConfig config = load_gpu_config(arch, {});
    std::vector<SimulatedLaunch> launches;  // this config's, in the order the harness ran them
    for (const auto& k : m.kernels) {
      const std::string& name = k.name;
      const std::string& family = k.family;
      if (family == "baseline" || (!only.empty() && name != only)) continue;
      if (!k.skipped.empty()) {
        notes.push_back(name + ": not measured (" + k.skipped + ")");
        continue;
      }
      if (k.check != "passed") {
        notes.push_back(name + ": left out, its output was wrong on the GPU (" + (k.check.empty() ? "no check" : k.check) + ")");
        continue;
      }
      const double measured = k.time_us - baseline;
      if (measured <= 0) {
        notes.push_back(name + ": left out, no longer than an empty kernel on the GPU");
        continue;
      }
      const std::string launch = find_launch(k.launch_file, input);
      if (launch.empty()) throw InputError(SourceLocation{input, 0, 0}, "kernel " + name + ": no launch file " + k.launch_file);
      try {
        WorkloadInput in = open_workload(launch, config.spec, LaunchOptions{"off", "", isa});
        Gpu gpu(config.spec);
        SimulationResult r = simulate(gpu, in.workload());
        ValidationPoint p{name, family, config.spec.name, measured, summarize_run(config.spec, gpu.stats(), r.kernels).time_us};
        points.push_back(p);
        for (const KernelRun& run : r.kernels) {
          SimulatedLaunch l{name, config.spec.name, run.info.name, ncu_dim3(run.info.grid.x, run.info.grid.y, run.info.grid.z), {}, {}};
          for (const Metric& metric : summarize_kernel(config.spec, gpu.stats(), run).metrics) {
            l.metrics[metric.name] = metric.value;
            l.kinds[metric.name] = metric.kind;
          }
          launches.push_back(std::move(l));
        }
        if (in.launch && !in.launch->spec().expect.empty()) {
          const ptx::CheckResult check = in.launch->check();
          if (!check.passed) notes.push_back(name + " on " + arch + ": warpsim's output did not match the reference (timed anyway)");
          // Only entries whose outputs are not exact somewhere: an exact kernel says nothing here.
          if (k.output_error >= 0 && (k.output_error > 0 || check.largest_error > 0))
            output_errors.push_back({name, config.spec.name, k.output_error, check.largest_error});
        }
      } catch (const InputError& e) {
        notes.push_back(name + " on " + arch + ": not simulated: " + e.what());
      }
    }
    if (!profiled.empty()) {
      std::vector<MetricPoint> matched = match_metrics(launches, profiled, notes);
      metric_points.insert(metric_points.end(), matched.begin(), matched.end());
    }
  }
  const std::vector<MetricSummary> metric_stats = metric_summaries(metric_points);
  if (!metrics_csv_path.empty()) write_output(metrics_csv_path, metric_csv(metric_points));
  const ValidationStats stats = validation_stats(points);
  const std::string title = "warpsim vs " + gpu_name;
  if (!csv_path.empty()) write_output(csv_path, validation_csv(points));
  if (!svg_path.empty()) write_output(svg_path, validation_svg(title, points, stats));
  if (!json_path.empty()) {
    nlohmann::ordered_json j{{"measurements", input}, {"gpu", gpu_name}, {"baseline_us", baseline},
                             {"mape", stats.mape}, {"median_abs_error", stats.median_abs_error}, {"pearson", stats.pearson},
                             {"pearson_log", stats.pearson_log}, {"notes", notes}};
    if (!ncu_path.empty()) {
      auto& ms = j["metrics"] = nlohmann::ordered_json::array();
      for (const auto& s : metric_stats)
        ms.push_back({{"metric", s.metric}, {"arch", s.arch}, {"kind", s.kind}, {"launches", s.launches}, {"exact", s.exact},
                      {"mape", s.with_error ? nlohmann::ordered_json(s.mape) : nlohmann::ordered_json()},
                      {"median_abs_error", s.with_error ? nlohmann::ordered_json(s.median_abs_error) : nlohmann::ordered_json()}});
    }
    auto& oe = j["output_errors"] = nlohmann::ordered_json::array();
    for (const auto& p : output_errors) oe.push_back({{"name", p.name}, {"arch", p.arch}, {"gpu", p.gpu}, {"warpsim", p.simulated}});
    auto& ks = j["kernels"] = nlohmann::ordered_json::array();
    for (const auto& p : points)
      ks.push_back({{"name", p.name}, {"family", p.family}, {"arch", p.arch}, {"measured_us", p.measured_us}, {"simulated_us", p.simulated_us},
                    {"error_percent", p.error_percent()}});
    write_output(json_path, j.dump(2) + "\n");
  }
  if (json_path != "-") {
    std::cout << title << " (" << input << ")";
    if (baseline > 0) std::cout << ", empty-kernel baseline " << baseline << " us subtracted";
    std::cout << "\n\n" << validation_table(points, stats);
    if (!ncu_path.empty()) std::cout << "\nNsight Compute metrics (" << ncu_path << "), measured vs simulated:\n\n" << metric_table(metric_stats);
    if (!output_errors.empty()) std::cout << "\n" << output_error_table(output_errors);
    for (const auto& n : notes) std::cout << "note: " << n << "\n";
  }
  if (max_mape >= 0 && stats.mape > max_mape) {
    std::cerr << "warpsim: MAPE " << stats.mape << "% is above --max-mape " << max_mape << "%\n";
    return kExitAccuracy;
  }
  return kExitOk;
}

}  // namespace warpsim::cli
