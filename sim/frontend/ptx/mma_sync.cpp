// mma.sync: D = A B + C over one warp's fragments (mma_sync_form.h places each element). The
// whole warp's fragments are read before any D register is written, so D may name C's registers.
//
// How each kind accumulates (the PTX ISA gives the result's rounding, not the hardware's order):
// - floating-point inputs of 8 to 19 bits: the GPU's block FMA (mma_block_sum.h) where its config
//   gives one for the precision; otherwise products are summed into C in k order with one
//   rounding each (fmaf), an f16 D that float rounded once to f16 (assumed);
// - f64: each product added with one rounding (fma, the .rn the ISA specifies) in k order (assumed);
// - s8/u8 and s4/u4: exact; the s32 result wraps, or with .satfinite is clamped to the s32 range.
// A TF32 operand's 13 low mantissa bits are dropped (truncated: the ISA leaves unspecified how the
// hardware treats an FP32 value passed as TF32).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "common/half.h"
#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/mma_sync_form.h"

namespace warpsim::ptx {

// mma.sp: A's stored elements (rows x K / 2, row-major) put at the places the metadata names in a
// zeroed rows x K matrix (mma_sync_form.h). A nibble the ISA leaves undefined stops the run, naming
// the thread, bits, row and chunk: a GPU would silently compute something unspecified.
void CtaEmulator::expand_sparse_a(const WarpState& w, const EmuInst& in, const double* stored, double* a) {
  const MmaSyncForm& f = in.mma_sync->form;
  const uint32_t K = f.k, half = f.a_cols(), chunk = f.chunk(), per_chunk = chunk / 2;
  const auto selector = static_cast<uint32_t>(in.operands.at(5).bits);
  const int32_t metadata = in.operands.at(4).reg;
  std::fill(a, a + f.rows() * K, 0.0);
  for (uint32_t row = 0; row < f.rows(); ++row)
    for (uint32_t c = 0; c < K / chunk; ++c) {
      const MetadataPlace at = sparse_metadata_place(f, selector, row, c);
      const auto nibble = static_cast<uint32_t>(w.regs.get(metadata, at.lane) >> at.shift) & 0xf;
      for (uint32_t s = 0; s < per_chunk; ++s) {
        const int pos = sparse_position(f, nibble, s);
        if (pos < 0) {
          fault(in, w, at.lane,
                "sparse MMA metadata nibble 0x" + std::string(1, "0123456789abcdef"[nibble]) + " (bits " + std::to_string(at.shift) + ".." +
                    std::to_string(at.shift + 3) + ") for row " + std::to_string(row) + ", chunk " + std::to_string(c) +
                    " of A is undefined: " +
                    (f.a == MmaElem::kTf32 ? "tf32 takes 0x4 or 0xe"
                     : f.ordered           ? "::ordered_metadata takes two different indices, the lower first"
                                           : "the two indices must differ") +
                    " (PTX ISA, sparse matrix storage)");
        }
        a[row * K + c * chunk + static_cast<uint32_t>(pos)] = stored[row * half + c * per_chunk + s];
      }
    }
}

namespace {

// One fragment's elements into a matrix: each register read once per lane, its elements taken
// from the low bits up and put at their places `at` (lane l's i-th element at at[l x elements + i]).
// A 64-bit element is one 64-bit register (PTX's f64) or, where the fragment lists twice the
// registers, a pair of 32-bit ones, low word first (SASS's DMMA).
template <typename T, typename Convert>
void gather_fragment(const RegisterFile& regs, const std::vector<int32_t>& frag, uint32_t bits, uint32_t elements, const uint16_t* at, T* out,
                     Convert convert) {
  if (bits == 64 && frag.size() == 2 * size_t{elements}) {
    for (uint32_t r = 0; r < elements; ++r) {
      const uint32_t *lo = regs.lanes32(frag[2 * r]), *hi = regs.lanes32(frag[2 * r + 1]);
      for (uint32_t l = 0; l < 32; ++l) out[at[l * elements + r]] = convert(uint64_t{hi[l]} << 32 | lo[l]);
    }
    return;
  }
  const uint32_t per = bits >= 32 ? 1 : 32 / bits;
  for (uint32_t r = 0; r * per < elements; ++r) {
    const int32_t reg = frag[r];
    const uint32_t first = r * per, take = std::min(per, elements - first);
    auto place_lane = [&](uint32_t l, uint64_t v) {
      const uint16_t* place = at + l * elements + first;
      for (uint32_t j = 0; j < take; ++j) out[place[j]] = convert(per == 1 ? v : v >> (bits * j));
    };
    if (regs.slot(reg) & 1) {  // a 64-bit register (f64 fragments)
      for (uint32_t l = 0; l < 32; ++l) place_lane(l, regs.get(reg, l));
    } else {
      const uint32_t* lanes = regs.lanes32(reg);
      for (uint32_t l = 0; l < 32; ++l) place_lane(l, lanes[l]);
    }
  }
}

// An element's value as a float (exact for every input of 8 to 32 bits), the kind a constant so
// that mma_elem_value's switch folds away (a function object, so that the gather inlines it).
template <MmaElem kKind>
struct ElementFloat {
  float operator()(uint64_t v) const { return static_cast<float>(mma_elem_value(kKind, v)); }
};

// The same for floating-point elements of 8 to 32 bits, exact as floats; the common kinds with
// their conversion inlined.
void gather_floats(const RegisterFile& regs, const std::vector<int32_t>& frag, MmaElem e, uint32_t elements, const uint16_t* at, float* out) {
  switch (e) {
    case MmaElem::kF16: return gather_fragment(regs, frag, 16, elements, at, out, ElementFloat<MmaElem::kF16>{});
    case MmaElem::kBf16: return gather_fragment(regs, frag, 16, elements, at, out, ElementFloat<MmaElem::kBf16>{});
    case MmaElem::kF32: return gather_fragment(regs, frag, 32, elements, at, out, ElementFloat<MmaElem::kF32>{});
    default:
      return gather_fragment(regs, frag, mma_elem_bits(e), elements, at, out,
                             [e](uint64_t v) { return static_cast<float>(mma_elem_value(e, v)); });
  }
}

void gather_values(const RegisterFile& regs, const std::vector<int32_t>& frag, MmaElem e, uint32_t elements, const uint16_t* at, double* out) {
  gather_fragment(regs, frag, mma_elem_bits(e), elements, at, out, [e](uint64_t v) { return mma_elem_value(e, v); });
}

const char* block_sum_type(MmaElem e) {
  return e == MmaElem::kF16 ? "f16" : e == MmaElem::kBf16 ? "bf16" : e == MmaElem::kTf32 ? "tf32" : e == MmaElem::kE4m3 ? "e4m3" : e == MmaElem::kE5m2 ? "e5m2" : "";
}

}  // namespace

void CtaEmulator::mma_sync(WarpState& w, const EmuInst& in) {
  const MmaLayout& layout = *in.mma_sync;
  const MmaSyncForm& f = layout.form;
  const auto& ops = in.operands;
  const auto& fd = ops.at(0).regs;
  // A (rows x K), B (K x cols) and C (rows x cols), row-major, filled from every lane's fragments.
  // Only what they wrote is read: each form fills A and B whole, and D's places are C's
  // (MmaSyncLayout.EveryFormPlacesEachElementOnce), so nothing needs zeroing first.
  const uint32_t cols = f.cols(), K = f.k, accumulators = f.c_elements();
  if (f.d == MmaElem::kS32 || f.d == MmaElem::kF64) return mma_sync_exact(w, in);
  // Floating-point inputs of 8 to 32 bits are exact in float: gathered as floats, B transposed so
  // that each D element reads a row of A and a column of B contiguously.
  std::array<float, 2048> af;  // 16 x 128 at most
  std::array<float, 1024> bt, cf;
  if (f.sparse) {
    std::array<double, 1024> stored;
    std::array<double, 2048> a;
    gather_values(w.regs, ops.at(1).regs, f.a, f.a_elements(), layout.a.data(), stored.data());
    expand_sparse_a(w, in, stored.data(), a.data());
    for (uint32_t i = 0; i < f.rows() * K; ++i) af[i] = static_cast<float>(a[i]);
  } else {
    gather_floats(w.regs, ops.at(1).regs, f.a, f.a_elements(), layout.a.data(), af.data());
  }
  gather_floats(w.regs, ops.at(2).regs, f.b, f.b_elements(), layout.b_t.data(), bt.data());
  gather_floats(w.regs, ops.at(3).regs, f.c, accumulators, layout.c.data(), cf.data());
  // With IEEE arithmetic (no block_sum for the precision), FP16 and FP8 products are added
  // directly: they are exact normal floats (at most 22 significant bits, exponents far
  // inside float's range), so adding the float product rounds once, as fmaf does, without fmaf's
  // library call on hosts built without FMA instructions. BF16 and TF32 keep fmaf: their products
  // can leave float's range.
  const bool exact_products = (f.a == MmaElem::kF16 || f.a == MmaElem::kE4m3 || f.a == MmaElem::kE5m2) &&
                              (f.b == MmaElem::kF16 || f.b == MmaElem::kE4m3 || f.b == MmaElem::kE5m2);
  // FP8 on a GPU that runs warp-level FP8 MMAs as FP16 ones: f16 holds every e4m3 and e5m2
  // value, so the conversion is exact, and K is added in k16 MMAs, each a block of its own.
  const bool fp8 = f.a == MmaElem::kE4m3 || f.a == MmaElem::kE5m2;
  const bool via_fp16 = fp8 && launch_.warp_fp8_via_fp16;
  const MmaBlockSum sum = mma_block_sum(launch_.mma_sums, via_fp16 ? "f16" : block_sum_type(f.a), via_fp16 ? "f16" : block_sum_type(f.b),
                                        f.d == MmaElem::kF16);
  const uint32_t chunk = via_fp16 ? 16 : K;
  const MmaBlockSum::Operand a_terms = sum.split(af.data(), f.rows() * K, true), b_terms = sum.split(bt.data(), cols * K, false);
  for (uint32_t l = 0, n = 0; l < 32; ++l) {
    uint32_t packed = 0;  // an f16 D: two elements per register, the lower-numbered in the low half
    for (uint32_t i = 0; i < accumulators; ++i, ++n) {
      const uint32_t at = layout.d[n], row = at / cols, col = at % cols;
      float acc = cf[at];
      if (sum.ieee() && exact_products) {
        const float* arf = &af[row * K];
        const float* bcf = &bt[col * K];
        for (uint32_t k = 0; k < K; ++k) acc += arf[k] * bcf[k];
      } else {
        for (uint32_t k0 = 0; k0 < K; k0 += chunk) acc = sum.dot(a_terms, row * K + k0, b_terms, col * K + k0, std::min(chunk, K - k0), acc);
      }
      if (f.d == MmaElem::kF16) {
        packed |= uint32_t{float_to_half(acc)} << (16 * (i % 2));
        if (i % 2) write(w, fd.at(i / 2), l, std::exchange(packed, 0u));
        continue;
      }
      write(w, fd.at(i), l, std::bit_cast<uint32_t>(acc));
    }
  }
}

// Integer and FP64 MMAs: every product exact in the accumulator's arithmetic (integers), or
// added with one rounding each (f64).
void CtaEmulator::mma_sync_exact(WarpState& w, const EmuInst& in) {
  const MmaLayout& layout = *in.mma_sync;
  const MmaSyncForm& f = layout.form;
  const auto& ops = in.operands;
  const auto& fd = ops.at(0).regs;
  const uint32_t cols = f.cols(), K = f.k, accumulators = f.c_elements();
  std::array<double, 2048> a;  // 16 x 128: sparse s4 m16n8k128's A as its zeros restored
  std::array<double, 1024> b, c;
  if (f.sparse) {
    std::array<double, 1024> stored;  // 16 x 64: s4 m16n8k128's stored half
    gather_values(w.regs, ops.at(1).regs, f.a, f.a_elements(), layout.a.data(), stored.data());
    expand_sparse_a(w, in, stored.data(), a.data());
  } else {
    gather_values(w.regs, ops.at(1).regs, f.a, f.a_elements(), layout.a.data(), a.data());
  }
  gather_values(w.regs, ops.at(2).regs, f.b, f.b_elements(), layout.b.data(), b.data());
  gather_values(w.regs, ops.at(3).regs, f.c, accumulators, layout.c.data(), c.data());
  for (uint32_t l = 0, n = 0; l < 32; ++l) {
    for (uint32_t i = 0; i < accumulators; ++i, ++n) {
      const uint32_t at = layout.d[n], row = at / cols, col = at % cols;
      const double* ar = &a[row * K];
      const double* bc = &b[col];
      uint64_t bits;
      if (f.d == MmaElem::kS32) {
        int64_t sum = static_cast<int64_t>(c[at]);
        for (uint32_t k = 0; k < K; ++k) sum += static_cast<int64_t>(ar[k]) * static_cast<int64_t>(bc[k * cols]);
        if (f.satfinite) sum = std::clamp<int64_t>(sum, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
        bits = static_cast<uint32_t>(static_cast<uint64_t>(sum));
      } else {
        double acc = c[at];
        for (uint32_t k = 0; k < K; ++k) acc = std::fma(ar[k], bc[k * cols], acc);
        bits = std::bit_cast<uint64_t>(acc);
      }
      if (fd.size() == 2 * size_t{accumulators} && f.d == MmaElem::kF64) {  // pairs of 32-bit registers (SASS)
        write(w, fd.at(2 * i), l, bits & 0xffffffffu);
        write(w, fd.at(2 * i + 1), l, bits >> 32);
        continue;
      }
      write(w, fd.at(i), l, bits);
    }
  }
}

}  // namespace warpsim::ptx
