// warpsim trace: emulate a launch file and write the dynamic instruction stream as a warpsim
// trace, which replays with the same timing as running the launch file directly.
#include <boost/program_options.hpp>
#include <iostream>
#include <sstream>

#include "cli/cli_common.h"
#include "common/error.h"
#include "config/load_config.h"
#include "frontend/ptx/launch.h"
#include "frontend/trace/trace_writer.h"
#include "gpu/occupancy.h"

namespace warpsim::cli {
namespace po = boost::program_options;

namespace {
const char* const kTraceHelp = R"(warpsim trace: emulate a launch file and write its instruction stream

Usage: warpsim trace --arch <name|file.yaml> <kernel.launch.yaml> -o <out.trace | out.trace.gz>

The GPU config only picks which PTX the launch file names ({sm}); the trace itself holds what
each warp executed, with active masks and per-lane addresses. Replaying it with `warpsim run`
gives the same statistics as running the launch file. What the kernels print with printf goes
to stdout (in emulation order, CTA by CTA, which need not be the order `warpsim run` shows).

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
  if (arch.empty() || input.empty() || output.empty()) throw UsageError{"trace needs --arch, a launch file and -o OUTPUT"};
  LoadedConfig config = load_gpu_config(arch);
  ptx::PtxWorkload workload(input, config.spec.compute_capability);
  std::ostringstream text;
  TraceWriter writer(text);
  writer.comment("emulated by warpsim trace from " + input + " (" + workload.spec().ptx_path + ")");
  // Registers declared in an inline-asm scope (".reg .pred p;") have no '%', which a trace needs
  // to see a register.
  auto name_of = [&](RegId r) {
    const std::string& name = workload.register_name(r);
    return name.starts_with("%") ? name : "%" + name;
  };
  // The GPU's per-block limits (threads, registers, shared memory), as `warpsim run` applies them:
  // a 4 GiB .shared array is refused here, not allocated for each CTA.
  writer.workload(workload, name_of, nullptr, [&](const KernelInfo& k) { compute_occupancy(config.spec, k); });
  std::cout << workload.device_output() << std::flush;  // what the kernels printed, as warpsim run shows it
  write_output_maybe_gzip(output, text.str());
  return kExitOk;
}

}  // namespace warpsim::cli
