// warpsim: a cycle-approximate GPU simulator. This file only dispatches subcommands and turns
// exceptions into messages and documented exit codes.
#include <spdlog/spdlog.h>

#include <boost/program_options/errors.hpp>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "common/error.h"
#include "frontend/ptx/compiled_cuda.h"

namespace {

const char* const kHelp = R"(warpsim - a cycle-approximate GPU simulator

Usage:
  warpsim run --arch <name|file.yaml> [--set key.path=value ...] <input> [--json FILE] [--csv FILE]
              [--view warps] [--timeline FILE.json] [--roofline FILE.svg] [--report FILE.html]
  warpsim compare --arch v100,a100,h100,h200,b200 <input> [--svg FILE] [--json FILE]
  warpsim sweep plan|run|merge|slurm ...   many runs over configs x modifiers, locally or on Slurm
  warpsim validate <measurements.json> [--arch h200,h100] [--csv FILE] [--svg FILE]
  warpsim arch list
  warpsim arch show <name|file.yaml> [--set key.path=value ...] [--json]
  warpsim bench [--arch <name>] [--host-threads N] [--json FILE]
  warpsim calibrate --arch <name> [--json FILE]   microbenchmarks beside hardware measurements
  warpsim convert <kernelslist.g | kernel.traceg[.xz]> -o <out.trace[.gz]>
  warpsim trace --arch <name> <kernel.launch.yaml> -o <out.trace[.gz]>
  warpsim help <command>        more about one command
  warpsim --version

Inputs: warpsim traces (.trace, or gzip-compressed .trace.gz; see docs/trace-format.md), and
Accel-Sim SASS traces (kernelslist.g, kernel-N.traceg[.xz]; see docs/accelsim.md), and launch
files that run nvcc's PTX through the emulator (.yaml; see docs/launch-format.md).
Shipped configs: v100, a100, h100, h200, b200 (configs/, documented in docs/configs.md).

Examples:
  warpsim run --arch a100 traces/examples/vector_add.trace
  warpsim run --arch h100 --set memory.l2.size_kib=102400 traces/examples/vector_add.trace --json out.json
  warpsim run --arch h100 traces/kernels/divergence.launch.yaml --view warps --report report.html
  warpsim compare --arch v100,a100,h100,h200,b200 traces/examples/tensor_mma.trace.gz
  warpsim arch show b200
  warpsim bench --json bench.json

Exit codes:
  0  success
  1  simulation failed (deadlock watchdog, out of host memory, internal error)
  2  bad command line
  3  bad input: config, trace (message gives file:line:col)
  4  cannot read or write a file
  5  a launch file's output did not match its expect: references
  6  the kernel checkers found a bug (race, uninitialised shared read, divergent barrier)
  7  warpsim validate: the error is above --max-mape
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace warpsim;
  spdlog::set_level(spdlog::level::warn);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kHelp;
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "--version" || args[0] == "-V") {
    std::cout << "warpsim " << cli::kVersion << "\n";
    return kExitOk;
  }
  std::string command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "help") {
    if (rest.empty()) {
      std::cout << kHelp;
      return kExitOk;
    }
    command = rest[0];
    rest = {"--help"};
  }
  // Any failure keeps the PTX nvcc compiled for the run: messages cite its lines.
  const int code = [&]() -> int {
    try {
      if (command == "run") return cli::run_command(rest);
      if (command == "arch") return cli::arch_command(rest);
      if (command == "bench") return cli::bench_command(rest);
      if (command == "calibrate") return cli::calibrate_command(rest);
      if (command == "convert") return cli::convert_command(rest);
      if (command == "trace") return cli::trace_command(rest);
      if (command == "compare") return cli::compare_command(rest);
      if (command == "validate") return cli::validate_command(rest);
      if (command == "sweep") return cli::sweep_command(rest);
      std::cerr << "warpsim: unknown command '" << command << "'; expected run, compare, sweep, validate, arch, bench, calibrate, convert, trace or help (see warpsim --help)\n";
      return kExitUsage;
    } catch (const cli::UsageError& e) {
      std::cerr << "warpsim " << command << ": " << e.message << " (see warpsim help " << command << ")\n";
      return kExitUsage;
    } catch (const boost::program_options::error& e) {
      std::cerr << "warpsim " << command << ": " << e.what() << " (see warpsim help " << command << ")\n";
      return kExitUsage;
    } catch (const InputError& e) {
      std::cerr << "warpsim: " << e.what() << "\n";
      return kExitInput;
    } catch (const SimulationError& e) {
      std::cerr << "warpsim: simulation failed: " << e.what() << "\n";
      return kExitSimulation;
    } catch (const std::runtime_error& e) {
      std::cerr << "warpsim: " << e.what() << "\n";
      return kExitIo;
    } catch (const std::bad_alloc&) {
      // Not a bug to report but a size to shrink: the inputs asked for more memory than the host has.
      std::cerr << "warpsim: out of host memory: the inputs ask for more than this machine has (large buffers, "
                   "malloc_heap_bytes, grids or traces); make them smaller\n";
      return kExitSimulation;
    } catch (const std::exception& e) {
      std::cerr << "warpsim: internal error: " << e.what() << "\n";
      return kExitSimulation;
    }
  }();
  if (code != kExitOk) ptx::keep_compiled_cuda();
  return code;
}
