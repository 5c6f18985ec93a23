#pragma once
// A procedurally generated workload for benchmarking the simulator itself: every warp runs the
// same loop body mixing FP32 math, coalesced global loads and stores, a divergent if/else,
// shared-memory accesses with 2-way bank conflicts and a CTA barrier. Instructions are made on
// demand, so tens of millions cost no memory.
#include <cstdint>
#include <memory>
#include <string>

#include "frontend/kernel_source.h"

namespace warpsim {

struct SyntheticSpec {
  uint32_t ctas = 864;                 // 8 per A100 SM
  uint32_t threads_per_cta = 256;
  uint64_t iterations_per_warp = 410;  // loop trips; 864 x 8 warps x 410 x 18 = 51 M warp instructions
};

class SyntheticWorkload : public Workload {
 public:
  explicit SyntheticWorkload(SyntheticSpec spec);
  ~SyntheticWorkload() override;
  std::unique_ptr<KernelSource> next_kernel() override;

  static uint32_t body_length();
  uint64_t total_warp_instructions() const;

 private:
  SyntheticSpec spec_;
  bool done_ = false;
};

}  // namespace warpsim
