// warpsim convert: an Accel-Sim trace to warpsim's trace format, to read or edit it as PTX-like text.
#include <boost/program_options.hpp>
#include <iostream>
#include <sstream>

#include "cli/cli_common.h"
#include "common/error.h"
#include "frontend/accelsim/accelsim_workload.h"
#include "frontend/trace/trace_writer.h"

namespace warpsim::cli {
namespace po = boost::program_options;

namespace {
const char* const kConvertHelp = R"(warpsim convert: an Accel-Sim trace to a warpsim trace

Usage: warpsim convert <kernelslist.g | kernel.traceg[.xz]> -o <out.trace | out.trace.gz>

Each SASS instruction becomes the PTX-style mnemonic warpsim times it as, with the SASS opcode
kept as a comment; registers become %rN; addresses are written per active lane. Replaying the
converted trace gives the same statistics as replaying the Accel-Sim trace (a test checks it).

Options)";

}  // namespace

int convert_command(const std::vector<std::string>& args) {
  std::string input, output;
  po::options_description opts(kConvertHelp);
  opts.add_options()("help,h", "show this help")("output,o", po::value(&output), "warpsim trace to write (.gz to compress)")(
      "input", po::value(&input), "Accel-Sim trace");
  po::positional_options_description pos;
  pos.add("input", 1);
  if (!parse_arguments(args, opts, pos)) return kExitOk;
  check_output_paths({{"--output", output}});
  if (input.empty() || output.empty()) throw UsageError{"convert needs an input and -o OUTPUT"};
  if (!AccelSimWorkload::accepts(input)) throw UsageError{"'" + input + "' is not an Accel-Sim trace (kernelslist.g, .traceg or .traceg.xz)"};

  AccelSimWorkload workload(input);
  std::ostringstream text;
  TraceWriter writer(text);
  writer.comment("converted by warpsim convert from " + input + "\nSASS opcodes are kept as comments; see docs/accelsim.md");
  auto name_of = [](RegId r) { return "%r" + std::to_string(r); };
  writer.workload(workload, name_of, [&](const WarpInst& inst) { return workload.sass_opcode(inst.op); });
  write_output_maybe_gzip(output, text.str());
  for (const auto& [opcode, count] : workload.unknown_opcodes()) {
    std::cerr << "warpsim: warning: unknown SASS opcode " << opcode << " (" << count << " times) written as mov.b32\n";
  }
  return kExitOk;
}

}  // namespace warpsim::cli
