// Running a launch file through the emulator and timing model in a test, and reading a buffer
// back: shared by the PTX emulator's test files.
#pragma once

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/load_config.h"
#include "frontend/ptx/launch.h"
#include "gpu/simulation.h"
#include "report/kernel_summary.h"

namespace warpsim::test {

template <class T>
std::vector<T> buffer(const ptx::PtxWorkload& w, const std::string& name) {
  const auto* b = const_cast<ptx::PtxWorkload&>(w).memory().find(name);
  std::vector<T> out(b->bytes.size() / sizeof(T));
  std::memcpy(out.data(), b->bytes.data(), b->bytes.size());
  return out;
}

struct Ran {
  std::unique_ptr<ptx::PtxWorkload> workload;
  Summary summary;
};

// `tweak` changes the loaded config first (a --set in code).
inline Ran run_launch(const std::string& arch, const std::string& launch, const std::function<void(GpuSpec&)>& tweak = {}) {
  LoadedConfig c = load_gpu_config(arch);
  if (tweak) tweak(c.spec);
  Ran r;
  r.workload = std::make_unique<ptx::PtxWorkload>(launch, c.spec);  // as `warpsim run` sets it up
  Gpu gpu(c.spec);
  auto runs = simulate(gpu, *r.workload).kernels;
  r.summary = summarize_kernel(c.spec, gpu.stats(), runs.at(0));
  return r;
}

}  // namespace warpsim::test
