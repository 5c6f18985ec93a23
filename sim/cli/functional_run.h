#pragma once
// `warpsim run --functional`: a launch file's kernels emulated without the timing model, for
// their results (the reference check, dumped buffers, printf, the kernel checkers) when the
// timing is not wanted; like GPGPU-Sim's pure functional mode. CTAs run in launch order, as many
// at once as the GPU holds, their warps taking turns (frontend/in_order_run.h).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/gpu_spec.h"
#include "frontend/kernel_source.h"

namespace warpsim::cli {

struct FunctionalKernel {
  KernelInfo info;
  uint64_t ctas = 0;                 // CTAs that ran
  uint64_t ctas_cancelled = 0;       // by cluster launch control: never ran
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;  // active lanes summed over the warp instructions
};

// Refuses (InputError) a kernel `spec`'s GPU could not launch, as the timing model does.
std::vector<FunctionalKernel> run_functional(Workload& workload, const GpuSpec& spec);
std::string functional_text(const std::vector<FunctionalKernel>& kernels);
nlohmann::ordered_json functional_kernels_json(const std::vector<FunctionalKernel>& kernels);

}  // namespace warpsim::cli
