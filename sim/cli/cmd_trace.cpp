// warpsim trace: run a launch file through the timing model and write the dynamic instruction
// stream as a warpsim trace, which replays with the same timing as running the launch file.
#include <boost/program_options.hpp>
#include <iostream>
#include <sstream>

#include "cli/cli_common.h"
#include "cli/launch_results.h"
#include "cli/trace_recording.h"
#include "common/error.h"
#include "config/load_config.h"
#include "frontend/ptx/launch.h"
#include "frontend/trace/trace_writer.h"
#include "gpu/gpu.h"

namespace warpsim::cli {
namespace po = boost::program_options;

namespace {
const char* const kTraceHelp = R"(warpsim trace: run a launch file and write its instruction stream

Usage: warpsim trace --arch <name|file.yaml> <kernel.launch.yaml> -o <out.trace | out.trace.gz>

The launch runs as `warpsim run` runs it, through the timing model of the GPU named, and the
trace holds what each warp executed, with active masks and per-lane addresses, as the timing
model took it: loops whose count depends on timing (spins, compare-and-swap retries, a
cooperative grid's barrier polls) keep the counts of that run. Replaying the trace with
`warpsim run` on the same GPU gives the same statistics. What the kernels print with printf goes
to stdout, in the order `warpsim run` shows; what the kernel checkers find (races, reads of
memory nothing wrote...) goes to stderr, and the trace is written all the same.

Options)";
}  // namespace

int trace_command(const std::vector<std::string>& args) {
  std::string arch, input, output;
  po::options_description opts(kTraceHelp);
  opts.add_options()("help,h", "show this help")("arch,a", po::value(&arch), "GPU config")(
      "output,o", po::value(&output), "trace to write (.gz to compress)")("input", po::value(&input), "launch file");
  po::positional_options_description pos;
  pos.add("input", 1);
  if (!parse_arguments(args, opts, pos)) return kExitOk;
  check_output_paths({{"--output", output}});
  if (arch.empty() || input.empty() || output.empty()) throw UsageError{"trace needs --arch, a launch file and -o OUTPUT"};
  LoadedConfig config = load_gpu_config(arch);
  ptx::PtxWorkload workload(input, config.spec);
  std::ostringstream text;
  TraceWriter writer(text);
  writer.comment("emulated by warpsim trace from " + input + " (" + workload.spec().ptx_named + ")");
  // Registers declared in an inline-asm scope (".reg .pred p;") have no '%', which a trace needs
  // to see a register.
  auto names = [&]() -> NameOf {
    return [names = workload.register_names()](RegId r) {
      const std::string& name = names(r);
      return name.starts_with("%") ? name : "%" + name;
    };
  };
  // The run applies the GPU's per-block limits (threads, registers, shared memory) as `warpsim
  // run` does: a 4 GiB .shared array is refused, not allocated for each CTA.
  Gpu gpu(config.spec);
  record_trace(gpu, workload, writer, text, names);
  std::cout << workload.device_output() << std::flush;  // what the kernels printed, as warpsim run shows it
  write_output_maybe_gzip(output, text.str());
  // The kernel checkers ran too; their findings are reported, but the trace is what was asked for.
  print_findings(workload);
  return kExitOk;
}

}  // namespace warpsim::cli
