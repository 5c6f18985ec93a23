#pragma once
// How a tensor core adds products into its accumulator: not IEEE arithmetic, and not the same on
// every generation. Khattak and Mikaitis ("Accurate Models of NVIDIA Tensor Cores", arXiv
// 2512.07004, 2025; parameters from their MATLAB models, github.com/north-numerical-computing/
// MATLAB-tensor-core, which they refined against test vectors run on V100, A100, H100 and B200;
// docs/tensor-numerics.md) describe it as a
// "block FMA" of `terms` products, applied along k in order, each block's result feeding the next
// as its accumulator:
//   1. every product is exact; its exponent is the sum of its inputs' exponents (a subnormal input
//      counts at its format's smallest exponent), not the product's normalised exponent;
//   2. the block's largest exponent E (over the products and the accumulator c) fixes a grid of
//      2^(E - 23 - extra_bits); each term is truncated toward zero onto it (no guard, round or
//      sticky bits), and the truncated terms are summed exactly;
//   3. the sum is rounded once: an f32 result toward zero, to 23 + min(0, extra_bits) fraction bits
//      (Hopper's FP8 path keeps 13, as DeepSeek-V3's report found: "around 14 bits"), an f16
//      result (the last block of an f16 D) to nearest even; both with subnormals, overflow giving
//      infinity.
// The same block FMA serves mma.sync, wmma, wgmma and tcgen05.mma here (the measurements were of
// mma/wmma; that the asynchronous instructions share the datapath is assumed). Not modelled: the
// paper's minimum product exponent for alignment (-133; it affects only products below 2^-133)
// and B200's interleaving of two 16-term FP8 vectors into one 32-term block (the same products
// meet in one block for every FP8 instruction, whose k is 32).
#include <array>
#include <bit>
#include <cstdint>

#include "config/gpu_spec.h"

namespace warpsim::ptx {

class MmaBlockSum {
 public:
  // `spec.terms == 0`: each product added to a float accumulator with one rounding, in k order
  // (fmaf; IEEE arithmetic, for configs that give no block_sum). `emin_a`/`emin_b`: the smallest
  // normal exponent of A's and B's input formats (-14 for f16, -126 for bf16 and tf32, -6 for
  // e4m3, ...); `f16_out`: D is f16 (its values come back as floats).
  MmaBlockSum(MmaSumSpec spec, int emin_a, int emin_b, bool f16_out);

  // An operand's elements prepared once per MMA (each feeds many dot products): as doubles, in
  // which every product of two elements is exact, and their alignment exponents. A zero's is
  // kZero: a product with one stays below -4096, far under any real product's (at least
  // 2 x -149), so it never sets the block's exponent.
  static constexpr int32_t kZero = -8192;
  struct Operand {
    const float* values = nullptr;  // the elements as given (IEEE arithmetic and infinities/NaNs use them)
    const double* exact = nullptr;    // the elements as doubles
    const int32_t* align = nullptr;   // the unbiased exponent, at least the format's smallest
    bool special = false;             // some element is an infinity or NaN
  };
  // Prepares n elements of A (`is_a`) or B, laid out so that each dot product reads k in a row.
  // The result points into per-thread storage that the next split of the same side reuses.
  Operand split(const float* values, size_t n, bool is_a) const;

  // c + sum of a[i] b[i] for i < k (a and b from `at_a`, `at_b` of their operands), as the tensor
  // core computes it. c is a value of the D format (an f16 value for an f16 D).
  float dot(const Operand& a, size_t at_a, const Operand& b, size_t at_b, uint32_t k, float c) const {
    // One block of finite values (most MMAs: k at most the block size) goes straight to it;
    // inline, as the emulator calls this for every element of every MMA's D.
    const bool finite_c = (std::bit_cast<uint32_t>(c) & 0x7f800000u) != 0x7f800000u;
    if (k <= spec_.terms && !a.special && !b.special && finite_c) return block(a, at_a, b, at_b, k, c, out_);
    return dot_blocks(a, at_a, b, at_b, k, c);
  }
  // The same on unsplit vectors (tests, one-off products).
  float dot(const float* a, const float* b, uint32_t k, float c) const;

  bool ieee() const { return spec_.terms == 0; }

 private:
  struct Rounding {
    int fraction_bits, emin, emax;
    bool nearest;  // to nearest even; false: toward zero
  };
  float dot_blocks(const Operand& a, size_t at_a, const Operand& b, size_t at_b, uint32_t k, float c) const;
  float block(const Operand& a, size_t at_a, const Operand& b, size_t at_b, uint32_t n, float c, const Rounding& to) const;
  static float round_sum(bool negative, uint64_t magnitude, int grid_exp, const Rounding& to);

  MmaSumSpec spec_;
  int emin_a_, emin_b_;
  Rounding f32_, out_;  // an accumulator between blocks; the result
};

// The smallest normal exponent of an MMA input format named as the PTX ISA names it ("f16",
// "bf16", "tf32", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1"); -126 for anything else.
int mma_input_emin(const char* type);

using MmaSumSpecs = std::array<MmaSumSpec, kNumTensorPrecisions>;  // by input precision (TensorSpec::block_sum)

// The block sum for A and B of these formats (PTX names): the config's spec for their precision,
// or IEEE arithmetic where it gives none or A and B differ in precision (e4m3 x e2m1).
MmaBlockSum mma_block_sum(const MmaSumSpecs& specs, const char* type_a, const char* type_b, bool f16_out);

}  // namespace warpsim::ptx
