// mma.sync: D = A B + C over one warp's fragments (mma_sync_form.h places each element). The
// whole warp's fragments are read before any D register is written, so D may name C's registers.
//
// How each kind accumulates (the PTX ISA gives the result's rounding, not the hardware's order):
// - floating-point inputs of 8 to 32 bits: products are exact in float, summed into C in k order
//   with one rounding each (fmaf); an f16 D is that float rounded once to f16 (assumed);
// - f64: each product added with one rounding (fma, the .rn the ISA specifies) in k order (assumed);
// - s8/u8 and s4/u4: exact; the s32 result wraps, or with .satfinite is clamped to the s32 range.
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

void CtaEmulator::mma_sync(WarpState& w, const EmuInst& in) {
  const MmaSyncForm& f = in.mma_sync;
  const auto& ops = in.operands;
  const auto& fd = ops.at(0).regs;
  const auto& fa = ops.at(1).regs;
  const auto& fb = ops.at(2).regs;
  const auto& fc = ops.at(3).regs;
  // Element i of a fragment of `e`s: its register and the bits within it.
  auto element = [&](const std::vector<int32_t>& frag, MmaElem e, uint32_t l, uint32_t i) {
    const uint32_t bits = mma_elem_bits(e);
    if (bits >= 32) return mma_elem_value(e, w.regs.get(frag.at(i), l));
    const uint32_t per = 32 / bits;
    return mma_elem_value(e, w.regs.get(frag.at(i / per), l) >> (bits * (i % per)));
  };
  // A (rows x K), B (K x cols) and C (rows x cols), row-major; only what the fragments cover is
  // read (each form places every element once: ptx_mma_sync_test.cpp), but all of it is zeroed.
  const uint32_t rows = f.rows(), cols = f.cols(), K = f.k;
  std::array<double, 1024> a, b, c;
  std::fill_n(a.begin(), rows * K, 0.0), std::fill_n(b.begin(), K * cols, 0.0), std::fill_n(c.begin(), rows * cols, 0.0);
  for (uint32_t l = 0; l < 32; ++l) {
    for (uint32_t i = 0; i < f.a_elements(); ++i) {
      const MatrixPlace p = mma_a_place(f, l, i);
      a[p.row * K + p.col] = element(fa, f.a, l, i);
    }
    for (uint32_t i = 0; i < f.b_elements(); ++i) {
      const MatrixPlace p = mma_b_place(f, l, i);
      b[p.row * cols + p.col] = element(fb, f.b, l, i);
    }
    for (uint32_t i = 0; i < f.c_elements(); ++i) {
      const MatrixPlace p = mma_c_place(f, f.c, l, i);
      c[p.row * cols + p.col] = element(fc, f.c, l, i);
    }
  }
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t packed = 0;  // an f16 D: two elements per register, the lower-numbered in the low half
    for (uint32_t i = 0; i < f.c_elements(); ++i) {
      const MatrixPlace p = mma_c_place(f, f.d, l, i);
      const double* row = &a[p.row * K];
      const double* col = &b[p.col];
      const double start = c[p.row * cols + p.col];
      uint64_t bits;
      if (f.d == MmaElem::kS32) {
        int64_t sum = static_cast<int64_t>(start);
        for (uint32_t k = 0; k < K; ++k) sum += static_cast<int64_t>(row[k]) * static_cast<int64_t>(col[k * cols]);
        if (f.satfinite) sum = std::clamp<int64_t>(sum, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
        bits = static_cast<uint32_t>(static_cast<uint64_t>(sum));
      } else if (f.d == MmaElem::kF64) {
        double acc = start;
        for (uint32_t k = 0; k < K; ++k) acc = std::fma(row[k], col[k * cols], acc);
        bits = std::bit_cast<uint64_t>(acc);
      } else {
        float acc = static_cast<float>(start);
        for (uint32_t k = 0; k < K; ++k) acc = std::fmaf(static_cast<float>(row[k]), static_cast<float>(col[k * cols]), acc);
        if (f.d == MmaElem::kF16) {
          packed |= uint32_t{float_to_half(acc)} << (16 * (i % 2));
          if (i % 2) write(w, fd.at(i / 2), l, std::exchange(packed, 0u));
          continue;
        }
        bits = std::bit_cast<uint32_t>(acc);
      }
      write(w, fd.at(i), l, bits);
    }
  }
}

}  // namespace warpsim::ptx
