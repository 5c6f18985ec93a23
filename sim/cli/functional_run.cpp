#include "cli/functional_run.h"

#include <sstream>

#include "common/format.h"
#include "frontend/in_order_run.h"
#include "gpu/occupancy.h"

namespace warpsim::cli {

std::vector<FunctionalKernel> run_functional(Workload& workload, const GpuSpec& spec) {
  std::vector<FunctionalKernel> kernels;
  InOrderVisitor visit;
  uint64_t resident = 0;
  visit.kernel = [&](const KernelInfo& info) {
    // Both throw for a launch the GPU (or CUDA, for a cooperative one) refuses, as in gpu.cpp.
    resident = resident_ctas(spec, info, compute_occupancy(spec, info));
    kernels.push_back(FunctionalKernel{info});
  };
  visit.resident = [&](const KernelInfo&) { return resident; };
  visit.cta = [&](const Dim3&) { ++kernels.back().ctas; };
  visit.instruction = [&](const WarpInst& inst, uint32_t) {
    ++kernels.back().warp_instructions;
    kernels.back().thread_instructions += static_cast<uint64_t>(inst.active_lanes());
  };
  visit.kernel_done = [&](const KernelSource& k) { kernels.back().ctas_cancelled = k.cancelled_ctas().size(); };
  run_in_order(workload, visit);
  return kernels;
}

std::string functional_text(const std::vector<FunctionalKernel>& kernels) {
  std::ostringstream o;
  for (const auto& k : kernels) {
    o << "kernel " << k.info.name << "  grid " << k.info.grid.str() << "  block " << k.info.block.str() << "\n";
    o << "  functional run (no timing): " << k.warp_instructions << " warp instructions (" << k.thread_instructions << " thread, "
      << fmt("%.1f%%", k.warp_instructions ? 100.0 * double(k.thread_instructions) / (32.0 * double(k.warp_instructions)) : 0.0)
      << " of lanes active), " << k.ctas << " CTAs";
    if (k.ctas_cancelled) o << " (" << k.ctas_cancelled << " more cancelled)";
    o << "\n";
  }
  return o.str();
}

nlohmann::ordered_json functional_kernels_json(const std::vector<FunctionalKernel>& kernels) {
  auto list = nlohmann::ordered_json::array();
  for (const auto& k : kernels) {
    list.push_back({{"name", k.info.name},
                    {"grid", {k.info.grid.x, k.info.grid.y, k.info.grid.z}},
                    {"block", {k.info.block.x, k.info.block.y, k.info.block.z}},
                    {"ctas", k.ctas},
                    {"ctas_cancelled", k.ctas_cancelled},
                    {"warp_instructions", k.warp_instructions},
                    {"thread_instructions", k.thread_instructions}});
  }
  return list;
}

}  // namespace warpsim::cli
