#include "cli/workload_input.h"

#include "cli/cli_common.h"
#include "frontend/trace/trace_reader.h"

namespace warpsim::cli {

bool is_launch_file(const std::string& input) {
  auto ends = [&](const char* s) {
    const std::string e(s);
    return input.size() > e.size() && input.compare(input.size() - e.size(), e.size(), e) == 0;
  };
  return ends(".yaml") || ends(".yml");
}

ptx::IsaChoice isa_choice(const std::string& isa) {
  if (isa == "sass") return ptx::IsaChoice::kSass;
  if (isa == "ptx") return ptx::IsaChoice::kPtx;
  if (isa == "auto") return ptx::IsaChoice::kAuto;
  throw UsageError{"--isa takes sass, ptx or auto"};
}

WorkloadInput open_workload(const std::string& input, const GpuSpec& gpu, const LaunchOptions& options) {
  WorkloadInput in;
  if (is_launch_file(input)) {
    if (options.checks != "error" && options.checks != "warn" && options.checks != "off") throw UsageError{"--checks takes error, warn or off"};
    if (!options.reconvergence.empty() && options.reconvergence != "stack" && options.reconvergence != "independent")
      throw UsageError{"--reconvergence takes stack or independent"};
    ptx::IsaChoice isa = isa_choice(options.isa);
    // A reconvergence model is the PTX emulator's: SASS follows the convergence barriers ptxas placed.
    if (!options.reconvergence.empty() && isa == ptx::IsaChoice::kSass) throw UsageError{"--reconvergence applies to PTX; SASS follows its own convergence barriers (drop one of --reconvergence and --isa sass)"};
    if (!options.reconvergence.empty()) isa = ptx::IsaChoice::kPtx;
    auto w = std::make_unique<ptx::PtxWorkload>(input, gpu, isa);
    w->set_checks(options.checks != "off");
    if (!options.reconvergence.empty()) w->set_independent_thread_scheduling(options.reconvergence == "independent");
    in.launch = w.get();
    in.other = std::move(w);
  } else if (AccelSimWorkload::accepts(input)) {
    in.accelsim = std::make_unique<AccelSimWorkload>(input);
  } else {
    in.other = std::make_unique<TraceWorkload>(input);
  }
  return in;
}

}  // namespace warpsim::cli
