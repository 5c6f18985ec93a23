#include "gpu/simulation.h"

namespace warpsim {

SimulationResult simulate(Gpu& gpu, Workload& workload) {
  SimulationResult result;
  // Kernels of the default stream run one at a time; those of named streams side by side
  // where their streams allow (gpu_streams.cpp).
  auto kernel = workload.next_kernel();
  while (kernel) {
    if (gpu.serial_streams() || Gpu::runs_alone(kernel->info())) {
      result.kernels.push_back(gpu.run_kernel(*kernel));
      kernel.reset();  // finished with before the next is read
      kernel = workload.next_kernel();
    } else {
      kernel = gpu.run_streams(std::move(kernel), workload, result.kernels);
    }
  }
  result.engine_ticks = gpu.engine_ticks();
  return result;
}

}  // namespace warpsim
