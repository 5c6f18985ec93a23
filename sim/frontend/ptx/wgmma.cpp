// Hopper's warpgroup MMA, functionally (PTX ISA, "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate"): wgmma.mma_async.sync.aligned.m64nNkK with A and B in shared memory
// through matrix descriptors (or A in registers), K-major or (16-bit types, imm-trans-a/b = 1)
// MN-major, D in registers.
//
// The four warps of a warpgroup each execute the instruction; warp q (= warp index mod 4)
// computes rows 16q..16q+15 of the 64-row product, so each warp's step is complete on its own.
// The MMA is done when the instruction executes: a program may read D only after
// wgmma.wait_group, and may not write A or B in between, so computing early is one valid order.
//
// Descriptor (Matrix Descriptor Format; wgmma_layout.h): bits 0-13 start address >> 4, 16-29
// leading-dimension byte offset >> 4, 32-45 stride-dimension byte offset >> 4, 49-51 base
// offset, 62-63 swizzle (0 none, 1 128-byte, 2 64-byte, 3 32-byte). K-major element (row, byte b
// of its K extent):
//   no swizzle: 8 x 16-byte core matrices: start + (row / 8) SBO + (b / 16) LBO + (row % 8) 16 + b % 16
//   swizzle W:  rows of W bytes in 8-row atoms: a = start + (row / 8) SBO + (row % 8) W + b, then
//               address bits 4.. (the 16-byte chunk) XOR bits 7.. (the row in the atom), over
//               3, 2 or 1 bits for W = 128, 64, 32.
// MN-major element (index i along M or N, kk along K; T = 16 bytes / element size):
//   no swizzle: start + (i % T) size + (i / T) SBO + (kk % 8) 16 + (kk / 8) LBO
//   swizzle W:  start + (i % T) size + ((i / T) % (W / 16)) 16 + (i / (T W / 16)) LBO + (kk % 8) W
//               + (kk / 8) SBO, then the same XOR. (The PTX ISA's canonical layouts, "Shared
//               Memory Matrix Layout": ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) and, swizzled,
//               ((T,W/16,m),(8,k)):((1,T,LBO),(W/16 T,SBO)).)
// D fragment (the m64nNk16 layout for 32-bit accumulators): register i of lane l holds row
// 16q + l / 4 + 8 ((i / 2) % 2), column 8 (i / 4) + 2 (l % 4) + i % 2; f16 accumulators pack
// those elements two to a register.
// Floating-point products go through the GPU's block FMA (mma_block_sum.h), as for mma.sync;
// without one in the config, they are summed in k order with fmaf into a float, an f16 D rounded
// once at the end (assumed). Integer products exactly, wrapping or clamped (.satfinite) to s32.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "common/format.h"
#include "common/half.h"
#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/value_bits.h"
#include "frontend/ptx/wgmma_layout.h"

namespace warpsim::ptx {

std::vector<float> CtaEmulator::smem_operand(const MatrixDescriptor& d, bool mn_major, const std::string& type, uint32_t row0,
                                             uint32_t rows, uint32_t k, double scale, const WarpState& w, uint32_t lane, const EmuInst& in,
                                             bool packed_fp4, uint64_t cta) {
  const uint32_t bytes = matrix_element_bytes(type), bits = matrix_element_bits(type);
  auto shared_at = [&](uint64_t address, uint32_t size) {
    return cta ? memory_at(MemSpace::kSharedCluster, cta << kClusterRankShift | address, size, w, lane, in)
               : memory_at(MemSpace::kShared, address, size, w, lane, in);
  };
  std::vector<float> out(size_t{rows} * k);
  if (packed_fp4) {
    // kind::mxf4/mxf4nvf4: 32 E2M1 values per 16-byte chunk of a K-major row, element 2j in the low
    // nibble of byte j (assumed, as CUTLASS's packed float_e2m1_t arrays; the PTX ISA shows the
    // layout in a figure); the chunk moves whole under the swizzles.
    if (mn_major) fault(in, w, lane, "FP4 operands are K-major only");
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < k; c += 32) {
        uint8_t chunk[16];
        std::memcpy(chunk, shared_at(matrix_element_address(d, row0 + r, c / 2), 16), 16);
        for (uint32_t j = 0; j < 32 && c + j < k; ++j) {
          const uint32_t nibble = (chunk[j / 2] >> (4 * (j % 2))) & 0xf;
          out[size_t{r} * k + c + j] = static_cast<float>(scale * matrix_element_value(type, nibble));
        }
      }
    return out;
  }
  if (bits < 8) {
    // FP4/FP6 (tcgen05 kind::f8f6f4, K-major only): each 16-byte chunk of a row holds 16 elements
    // packed from its lowest bit, then padding (PTX ISA: the .b4x16_p64 / .b6x16_p32 layouts TMA
    // writes). The chunk moves whole under the swizzles, so its address is the 8-bit element's.
    if (mn_major) fault(in, w, lane, "FP4 and FP6 operands are K-major only");
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t c = 0; c < k; c += 16) {
        uint8_t chunk[16];
        std::memcpy(chunk, shared_at(matrix_element_address(d, row0 + r, c), 16), 16);
        for (uint32_t j = 0; j < 16 && c + j < k; ++j) {
          const uint32_t at = j * bits;
          const uint32_t two = chunk[at / 8] | (at / 8 + 1 < 16 ? chunk[at / 8 + 1] << 8 : 0);
          out[size_t{r} * k + c + j] = static_cast<float>(scale * matrix_element_value(type, (two >> (at % 8)) & ((1u << bits) - 1)));
        }
      }
    return out;
  }
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < k; ++c) {
      const uint64_t at = mn_major ? mn_major_element_address(d, row0 + r, c, bytes) : matrix_element_address(d, row0 + r, c * bytes);
      uint64_t v = 0;
      std::memcpy(&v, shared_at(at, bytes), bytes);
      out[size_t{r} * k + c] = static_cast<float>(scale * matrix_element_value(type, v));
    }
  return out;
}

void CtaEmulator::wgmma(WarpState& w, const EmuInst& in, uint32_t exec) {
  const auto& ops = in.operands;
  const uint32_t n = in.wgmma_n, k = in.mma_k, q = w.index % 4;
  const std::string& ta = in.mma_a;
  const std::string& tb = in.mma_b;
  const uint32_t lane0 = static_cast<uint32_t>(std::countr_zero(exec ? exec : 1u));
  // Operands: D, A (descriptor or registers), B descriptor, scale-d, then (floating-point types)
  // imm-scale-a, imm-scale-b [, imm-trans-a, imm-trans-b] (16-bit types; 1 reads that operand
  // MN-major).
  // A register pair (SASS's descriptor in URa:URa+1) is a descriptor; A's fragment is four registers.
  const bool a_in_registers = ops.at(1).kind == EmuOperand::Kind::kVector && ops[1].regs.size() > 2;
  const bool a_mn_major = !a_in_registers && ops.size() > 6 && ops[6].bits == 1;
  const bool b_mn_major = ops.size() > 6 && ops.back().bits == 1;
  const bool accumulate = (read(w, ops.at(3), lane0) & 1) != 0;
  const double scale_a = ops.size() > 4 && static_cast<int64_t>(ops[4].bits) < 0 ? -1.0 : 1.0;  // imm-scale-a/b: 1 or -1 (negate)
  const double scale_b = ops.size() > 5 && static_cast<int64_t>(ops[5].bits) < 0 ? -1.0 : 1.0;
  auto descriptor = [&](const EmuOperand& o) {
    const MatrixDescriptor d = decode_matrix_descriptor(read(w, o, lane0));
    if (d.base_offset != 0) fault(in, w, lane0, "a matrix descriptor with a base offset (" + std::to_string(d.base_offset) + ") is not modelled");
    return d;
  };
  // A: this warp's 16 rows; B: all N columns, each K-major (b[col * k + c]).
  std::vector<float> a(16 * k);
  if (a_in_registers) {
    // The mma.sync A fragment of a 16 x k slice (16- and 8-bit types, four registers; checked
    // when lowered), placed as mma_sync_form.h places m16n8k16 (16-bit) and m16n8k32 (8-bit) A.
    const auto& regs = ops[1].regs;
    MmaSyncForm slice;
    slice.m = 16, slice.n = 8, slice.k = k;
    slice.a = ta == "f16" || ta == "bf16" ? MmaElem::kF16 : MmaElem::kS8;  // only the width matters here
    const uint32_t bits = mma_elem_bits(slice.a), per = 32 / bits;
    for (uint32_t l = 0; l < 32; ++l)
      for (uint32_t i = 0; i < slice.a_elements(); ++i) {
        const MatrixPlace p = mma_a_place(slice, l, i);
        const uint64_t element = (w.regs.get(regs[i / per], l) >> (bits * (i % per))) & ((1u << bits) - 1);
        a[p.row * k + p.col] = static_cast<float>(scale_a * matrix_element_value(ta, element));
      }
  } else {
    a = smem_operand(descriptor(ops.at(1)), a_mn_major, ta, 16 * q, 16, k, scale_a, w, lane0, in);
  }
  const std::vector<float> b = smem_operand(descriptor(ops.at(2)), b_mn_major, tb, 0, n, k, scale_b, w, lane0, in);
  // Accumulator element e (n / 2 per lane) at row g + 8 ((e / 2) % 2), column 8 (e / 4) + 2t + e % 2;
  // an f16 D holds two per register (e / 2, the lower-numbered in the low half).
  const auto& fd = ops.at(0).regs;
  const bool d16 = in.wgmma_d == MmaElem::kF16;
  const MmaBlockSum sum = mma_block_sum(launch_.mma_sums, ta.c_str(), tb.c_str(), d16);
  const MmaBlockSum::Operand a_terms = sum.split(a.data(), a.size(), true), b_terms = sum.split(b.data(), b.size(), false);
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t g = l / 4, t = l % 4;
    uint32_t packed = 0;
    for (uint32_t e = 0; e < n / 2; ++e) {
      const uint32_t row = g + 8 * ((e / 2) % 2), col = 8 * (e / 4) + 2 * t + e % 2;
      const float* ar = &a[row * k];
      const float* bc = &b[col * k];
      if (in.wgmma_d == MmaElem::kS32) {
        // Integer inputs are exact in float; their sum is kept exact, then wraps or (.satfinite) clamps.
        int64_t sum = accumulate ? static_cast<int32_t>(static_cast<uint32_t>(w.regs.get(fd[e], l))) : 0;
        for (uint32_t c = 0; c < k; ++c) sum += static_cast<int64_t>(ar[c]) * static_cast<int64_t>(bc[c]);
        if (in.satfinite) sum = std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
        write(w, fd[e], l, static_cast<uint32_t>(static_cast<uint64_t>(sum)));
        continue;
      }
      float acc = 0.0f;
      if (accumulate) {
        const uint64_t bits = w.regs.get(fd[d16 ? e / 2 : e], l);
        acc = d16 ? half_to_float(static_cast<uint16_t>(bits >> (16 * (e % 2)))) : std::bit_cast<float>(static_cast<uint32_t>(bits));
      }
      acc = sum.dot(a_terms, row * k, b_terms, col * k, k, acc);
      if (!d16) {
        write(w, fd[e], l, std::bit_cast<uint32_t>(acc));
      } else {
        packed |= uint32_t{float_to_half(acc)} << (16 * (e % 2));
        if (e % 2) write(w, fd[e / 2], l, std::exchange(packed, 0u));
      }
    }
  }
}

}  // namespace warpsim::ptx
