#pragma once
// A workload whose warps' instructions are made by functions, one instruction at a time: the
// microbenchmarks of `warpsim calibrate` build exact access patterns this way, at any size,
// without trace files.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "frontend/kernel_source.h"

namespace warpsim {

// Fills instruction `i` of one warp; returns false past the warp's last instruction. The
// pointers it stores in the WarpInst must stay valid until its next call.
using WarpProgram = std::function<bool(uint64_t i, WarpInst& inst)>;

struct GeneratedKernel {
  KernelInfo info;
  std::function<WarpProgram(uint32_t cta, uint32_t warp)> program;
};

class GeneratedWorkload : public Workload {
 public:
  explicit GeneratedWorkload(std::vector<GeneratedKernel> kernels) : kernels_(std::move(kernels)) {}
  std::unique_ptr<KernelSource> next_kernel() override;

 private:
  std::vector<GeneratedKernel> kernels_;
  size_t next_ = 0;
};

}  // namespace warpsim
