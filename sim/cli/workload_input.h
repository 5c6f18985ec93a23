#pragma once
// Opens a workload file for `warpsim run` and `warpsim compare`: a warpsim trace, an Accel-Sim
// trace, or a launch file (PTX emulated for the GPU's compute capability, with its tensor-core
// arithmetic).
#include <memory>
#include <string>

#include "config/gpu_spec.h"
#include "frontend/accelsim/accelsim_workload.h"
#include "frontend/ptx/launch.h"

namespace warpsim::cli {

struct LaunchOptions {
  std::string checks = "error";        // error, warn or off
  std::string reconvergence;           // "", stack or independent
  std::string isa = "auto";            // sass, ptx or auto (SASS where it exists and runs, else PTX)
};

// The help text of --isa, shared by the commands that take it.
inline constexpr const char* kIsaHelp =
    "with a launch file: sass (the GPU's own instructions: the listing ptxas made of the PTX, committed beside it for A100, H100 and H200), "
    "ptx (the PTX, emulated), or auto (default: SASS where it exists and every instruction of it runs, else PTX, saying why)";
// "sass", "ptx" or "auto" as the PtxWorkload takes it; UsageError otherwise.
ptx::IsaChoice isa_choice(const std::string& isa);

struct WorkloadInput {
  std::unique_ptr<AccelSimWorkload> accelsim;  // set for Accel-Sim input
  std::unique_ptr<Workload> other;             // a trace or a launch file
  ptx::PtxWorkload* launch = nullptr;          // set for a launch file
  Workload& workload() { return accelsim ? static_cast<Workload&>(*accelsim) : *other; }
};

bool is_launch_file(const std::string& input);
// Throws UsageError for bad options and InputError for bad input.
WorkloadInput open_workload(const std::string& input, const GpuSpec& gpu, const LaunchOptions& options);

}  // namespace warpsim::cli
