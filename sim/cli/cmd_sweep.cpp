// warpsim sweep: plan, run and merge many independent runs, locally or as a Slurm job array.
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/sweep_merge.h"
#include "cli/sweep_run.h"
#include "common/error.h"
#include "sweep/sweep_plan.h"

namespace warpsim::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

const char* const kSweepHelp = R"(warpsim sweep: many runs over inputs x configs x modifiers, locally or on Slurm

Usage:
  warpsim sweep plan  <sweep.yaml> [-o points.jsonl]
  warpsim sweep run   <points.jsonl> --results DIR [-j N] [--index I --chunk K] [--force]
  warpsim sweep merge <DIR> [--points points.jsonl] [--kernels] [--baseline AXIS=VALUE] [-o sweep.csv | sweep.json]
                      [--svg chart.svg --x AXIS --y METRIC]
  warpsim sweep slurm <points.jsonl> --results DIR [--chunk K] [--max-running M] [-o sweep.csv]

plan expands a sweep file (docs/sweeps.md) into one JSON line per point, each with a point_id
that hashes its input, resolved config and options; every point's config is checked first.
run runs the points (or chunk I of K points, for a Slurm array task), each as its own `warpsim
run`, N at once, writing DIR/<point_id>.json atomically; points already "ok" there are skipped,
so reruns resume, unless the files their run read (input, PTX, references) have changed since.
merge writes one row per point (axes, status, cycles, time, IPC, hit rates, DRAM traffic,
bound), or per kernel with --kernels; --baseline l2=base adds each row's speed-up
over the row that differs only in that axis, --svg a line chart of one column against one axis;
failed and missing points are reported on stderr. slurm prints a script that submits the run as
a job array and the merge as a job that waits for it.

Examples:
  warpsim sweep plan traces/sweeps/l2_and_scheduler.yaml -o points.jsonl
  warpsim sweep run points.jsonl --results results/ -j 8
  warpsim sweep merge results/ --points points.jsonl -o sweep.csv --baseline l2=base
  warpsim sweep slurm points.jsonl --results results/ --chunk 4 > submit.sh && bash submit.sh

Exit codes: 0 all points ok; 1 some points failed or are missing (the table says which);
2 bad command line; 3 bad sweep, points or result file (file:line:col); 4 I/O.

Options)";

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-=:,+@") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

int plan(const std::vector<std::string>& args) {
  std::string sweep_file, output = "-";
  po::options_description opts(kSweepHelp);
  opts.add_options()("help,h", "show this help")("output,o", po::value(&output), "write the points to FILE (default: stdout)")(
      "input", po::value(&sweep_file), "sweep file");
  po::positional_options_description pos;
  pos.add("input", 1);
  if (!parse_arguments(args, opts, pos)) return kExitOk;
  check_output_paths({{"--output", output}});
  if (sweep_file.empty()) throw UsageError{"missing the sweep file"};
  std::string lines;
  const auto points = plan_sweep(sweep_file);
  for (const auto& p : points) lines += p.to_json().dump() + "\n";
  write_output(output, lines);
  if (output != "-") std::cerr << "warpsim sweep: " << points.size() << " points written to " << output << "\n";
  return kExitOk;
}

int run(const std::vector<std::string>& args) {
  std::string points_file;
  SweepRunOptions o;
  int64_t index = -1;
  po::options_description opts(kSweepHelp);
  opts.add_options()("help,h", "show this help")("results", po::value(&o.results_dir), "folder for the result files")(
      "jobs,j", po::value(&o.jobs), "points run at once (default 1)")("index", po::value(&index), "run only chunk I (e.g. $SLURM_ARRAY_TASK_ID)")(
      "chunk", po::value(&o.chunk), "points per chunk with --index (default 1)")("force", po::bool_switch(&o.force), "rerun points that already have a result")(
      "input", po::value(&points_file), "points file");
  po::positional_options_description pos;
  pos.add("input", 1);
  if (!parse_arguments(args, opts, pos)) return kExitOk;
  if (points_file.empty()) throw UsageError{"missing the points file (from 'warpsim sweep plan')"};
  if (o.results_dir.empty()) throw UsageError{"missing --results DIR"};
  if (index < -1) throw UsageError{"--index must be 0 or more"};
  if (index >= 0) o.index = static_cast<uint64_t>(index);
  const auto tally = run_sweep(read_points(points_file), o, std::cerr);
  std::cout << "warpsim sweep: " << tally.ran << " run"
            << (tally.stale ? " (" + std::to_string(tally.stale) + " because the files their results came from have changed)" : "") << ", "
            << tally.skipped << " already done, " << tally.failed << " failed; results in "
            << o.results_dir << "\n";
  return tally.failed ? kExitSimulation : kExitOk;
}

int merge(const std::vector<std::string>& args) {
  std::string dir, points_file, output = "-", svg_path, x_axis, y_metric = "time_us";
  std::vector<std::string> baseline_args;
  SweepMergeOptions options;
  po::options_description opts(kSweepHelp);
  opts.add_options()("help,h", "show this help")("points", po::value(&points_file), "the planned points: list the missing ones too")(
      "kernels", po::bool_switch(&options.per_kernel), "a row per kernel of each point (launch files and traces with several kernels)")(
      "baseline", po::value(&baseline_args)->composing(), "AXIS=VALUE (or arch=NAME): add each row's speed-up over that choice (repeatable)")(
      "svg", po::value(&svg_path), "also draw --y against --x as an SVG line chart, a line per combination of the rest")(
      "x", po::value(&x_axis), "the chart's x axis: an axis of the sweep, or arch (default: the first axis)")(
      "y", po::value(&y_metric), "the chart's y: a numeric column, e.g. time_us (default), cycles, l2_hit_rate, speedup")(
      "output,o", po::value(&output), "write the table to FILE: .json for JSON, else CSV (default: CSV on stdout)")(
      "input", po::value(&dir), "results folder");
  po::positional_options_description pos;
  pos.add("input", 1);
  if (!parse_arguments(args, opts, pos)) return kExitOk;
  check_output_paths({{"--output", output}, {"--svg", svg_path}});
  if (dir.empty()) throw UsageError{"missing the results folder"};
  std::vector<SweepPoint> points;
  if (!points_file.empty()) points = read_points(points_file);
  for (const auto& b : baseline_args) {
    const size_t eq = b.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError{"--baseline needs AXIS=VALUE, e.g. l2=base or arch=h100; got '" + b + "'"};
    options.baselines.push_back({b.substr(0, eq), b.substr(eq + 1)});
  }
  options.as_json = output.ends_with(".json");
  const SweepTable t = merge_sweep(dir, points_file.empty() ? nullptr : &points, options);
  std::string chart;
  if (!svg_path.empty()) chart = sweep_chart(t, x_axis.empty() ? (t.axes.empty() ? "arch" : t.axes.front()) : x_axis, y_metric);
  write_output(output, t.text);
  if (!svg_path.empty()) write_output(svg_path, chart);
  std::cerr << "warpsim sweep: " << t.ok << " ok, " << t.failed << " failed, " << t.missing << " missing\n";
  return t.failed || t.missing ? kExitSimulation : kExitOk;
}

int slurm(const std::vector<std::string>& args) {
  std::string points_file, results, output = "sweep.csv";
  uint64_t chunk = 1, max_running = 200;
  po::options_description opts(kSweepHelp);
  opts.add_options()("help,h", "show this help")("results", po::value(&results), "folder for the result files")(
      "chunk", po::value(&chunk), "points per array task (default 1; batch small points)")(
      "max-running", po::value(&max_running), "array tasks running at once (default 200)")(
      "output,o", po::value(&output), "the merged table the final job writes (default sweep.csv)")("input", po::value(&points_file), "points file");
  po::positional_options_description pos;
  pos.add("input", 1);
  if (!parse_arguments(args, opts, pos)) return kExitOk;
  if (points_file.empty()) throw UsageError{"missing the points file (from 'warpsim sweep plan')"};
  if (results.empty()) throw UsageError{"missing --results DIR"};
  if (chunk == 0 || max_running == 0) throw UsageError{"--chunk and --max-running must be at least 1"};
  const uint64_t n = read_points(points_file).size();
  const uint64_t tasks = (n + chunk - 1) / chunk;
  const std::string self = shell_quote(fs::read_symlink("/proc/self/exe").string());
  const std::string run = self + " sweep run " + shell_quote(points_file) + " --results " + shell_quote(results) +
                          " --index $SLURM_ARRAY_TASK_ID --chunk " + std::to_string(chunk);
  const std::string merge = self + " sweep merge " + shell_quote(results) + " --points " + shell_quote(points_file) + " -o " + shell_quote(output);
  std::cout << "#!/bin/bash\n"
            << "# warpsim sweep: " << n << " points in " << tasks << " array tasks of " << chunk << "; run this script to submit.\n"
            << "# Failed or timed-out tasks can be resubmitted as they are: points already ok are skipped.\n"
            << "set -euo pipefail\n"
            << "mkdir -p logs " << shell_quote(results) << "\n"
            << "jid=$(sbatch --parsable --array=0-" << tasks - 1 << "%" << max_running << " -J warpsim-sweep -o logs/%A_%a.out -e logs/%A_%a.err \\\n"
            << "  --wrap " << shell_quote(run) << ")\n"
            << "sbatch --parsable --dependency=afterany:$jid -J warpsim-sweep-merge -o logs/%j.merge.out -e logs/%j.merge.err \\\n"
            << "  --wrap " << shell_quote(merge) << "\n"
            << "echo \"submitted array job $jid; the merge writes " << output << " when it ends\"\n";
  return kExitOk;
}

}  // namespace

int sweep_command(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError{"missing the sweep action: plan, run, merge or slurm"};
  if (args[0] == "--help" || args[0] == "-h") {
    po::options_description opts(kSweepHelp);
    opts.add_options()("help,h", "show this help");
    std::cout << opts << "\n";
    return kExitOk;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "plan") return plan(rest);
  if (args[0] == "run") return run(rest);
  if (args[0] == "merge") return merge(rest);
  if (args[0] == "slurm") return slurm(rest);
  throw UsageError{"unknown sweep action '" + args[0] + "'; expected plan, run, merge or slurm"};
}

}  // namespace warpsim::cli
