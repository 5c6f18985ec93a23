#pragma once
// Runs every kernel of a workload on a GPU model, in issue order: those of the default stream
// one at a time, those of named streams side by side as their streams allow.
#include <vector>

#include "gpu/gpu.h"

namespace warpsim {

struct SimulationResult {
  std::vector<KernelRun> kernels;
  uint64_t engine_ticks = 0;
};

SimulationResult simulate(Gpu& gpu, Workload& workload);

}  // namespace warpsim
