#include "gpu/simulation.h"

namespace warpsim {

SimulationResult simulate(Gpu& gpu, Workload& workload) {
  SimulationResult result;
  while (auto kernel = workload.next_kernel()) result.kernels.push_back(gpu.run_kernel(*kernel));
  result.engine_ticks = gpu.engine_ticks();
  return result;
}

}  // namespace warpsim
