#pragma once
// The FLOPs issued warp instructions perform, by kind, as ncu's roofline counts them. One
// definition for the SMs' counters (SmStats registers these fields) and for a sampled kernel's
// untimed CTAs (gpu/gpu.cpp), which the timing model never issues: so a sampled run's
// whole-kernel FLOPs are exact, not scaled (docs/sampling.md).
#include <bit>
#include <cstdint>

#include "isa/op_info.h"

namespace warpsim {

struct FlopCounts {
  uint64_t fp32_add = 0, fp32_mul = 0, fp32_fma = 0;  // thread instructions
  uint64_t fp64_add = 0, fp64_mul = 0, fp64_fma = 0;  // thread instructions
  uint64_t fp16_flops = 0;                            // half arithmetic FLOPs (packed lanes counted twice)
  uint64_t tensor_flops = 0;                          // MMA FLOPs (or integer OPs) performed (sparse: half the shape's)

  // Non-tensor arithmetic of an instruction with `lanes` active lanes.
  void count_math(const OpInfo& op, uint64_t lanes) {
    if (op.flop == FlopKind::kNone) return;
    if (op.op_class == OpClass::kFp32) {
      (op.flop == FlopKind::kAdd ? fp32_add : op.flop == FlopKind::kMul ? fp32_mul : fp32_fma) += lanes;
    } else if (op.op_class == OpClass::kFp64) {
      (op.flop == FlopKind::kAdd ? fp64_add : op.flop == FlopKind::kMul ? fp64_mul : fp64_fma) += lanes;
    } else if (op.op_class == OpClass::kFp16) {
      fp16_flops += lanes * op.packed_lanes * (op.flop == FlopKind::kFma ? 2 : 1);
    }
  }
  // A tensor instruction's FLOPs: a warp-level or warpgroup MMA's per warp instruction, a
  // whole-SM one's (tcgen05.mma) per issuing lane; copies into tensor memory none.
  static uint64_t tensor_flops_of(const OpInfo& op, uint32_t active_mask) {
    if (op.op_class != OpClass::kTensor || op.tensor_copy_bytes != 0) return 0;
    return op.whole_sm ? op.tensor_flops() * static_cast<uint64_t>(std::popcount(active_mask)) : op.tensor_flops();
  }
  // Everything an issued instruction counts (the SM counts the tensor part where it issues it).
  void count(const OpInfo& op, uint32_t active_mask) {
    count_math(op, static_cast<uint64_t>(std::popcount(active_mask)));
    tensor_flops += tensor_flops_of(op, active_mask);
  }

  double fp32() const { return double(fp32_add) + double(fp32_mul) + 2.0 * double(fp32_fma); }
  double fp64() const { return double(fp64_add) + double(fp64_mul) + 2.0 * double(fp64_fma); }
  FlopCounts& operator+=(const FlopCounts& o) {
    fp32_add += o.fp32_add, fp32_mul += o.fp32_mul, fp32_fma += o.fp32_fma;
    fp64_add += o.fp64_add, fp64_mul += o.fp64_mul, fp64_fma += o.fp64_fma;
    fp16_flops += o.fp16_flops, tensor_flops += o.tensor_flops;
    return *this;
  }
};

}  // namespace warpsim
