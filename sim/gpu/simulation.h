#pragma once
// Runs every kernel of a workload on a fresh GPU model, in order (one stream).
#include <vector>

#include "gpu/gpu.h"

namespace warpsim {

struct SimulationResult {
  std::vector<KernelRun> kernels;
  uint64_t engine_ticks = 0;
};

SimulationResult simulate(Gpu& gpu, Workload& workload);

}  // namespace warpsim
