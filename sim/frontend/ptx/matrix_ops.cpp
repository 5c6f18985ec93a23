// Warp-wide matrix instructions: wmma fragments, ldmatrix, movmatrix and mma.sync. They read and write
// fragments across all 32 lanes at once, unlike the per-lane instructions in cta_emulator.cpp.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "common/half.h"
#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/value_bits.h"
#include "frontend/ptx/wmma_fragment.h"

namespace warpsim::ptx {

void CtaEmulator::matrix_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  const auto& ops = in.operands;
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  auto reg = [&](int32_t r, uint32_t l) { return w.regs.get(r, l); };
  switch (in.code) {
    case EmuOp::kWmmaLoad:
    case EmuOp::kWmmaStore: {
      // Fragment slot s = (lane * R + r) * E + h holds element s mod (rows * cols), row-major
      // (wmma_fragment.h); memory is read or written in the load's layout with stride ldm.
      const bool load = in.code == EmuOp::kWmmaLoad;
      const EmuOperand& addr = load ? ops.at(1) : ops.at(0);
      const auto& frag = (load ? ops.at(0) : ops.at(1)).regs;
      const FragmentShape shape = fragment_shape(in.wmma, in.matrix);
      const uint32_t size = wmma_element_bytes(shape.kind), per_reg = wmma_elements_per_register(shape.kind);
      const auto R = static_cast<uint32_t>(frag.size()), elements = shape.rows * shape.cols;
      const uint64_t element_mask = size >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * size)) - 1;
      lanes([&](uint32_t l) {
        const uint64_t base = address(w, addr, l);
        const uint64_t stride = ops.size() > 2 ? read(w, ops[2], l) : (in.column_major ? shape.rows : shape.cols);
        out.addresses.push_back(base);
        for (uint32_t r = 0; r < R; ++r) {
          uint64_t packed = load ? 0 : reg(frag[r], l);
          for (uint32_t h = 0; h < per_reg; ++h) {
            const uint32_t e = ((l * R + r) * per_reg + h) % elements, row = e / shape.cols, col = e % shape.cols;
            const uint64_t a = base + (in.column_major ? uint64_t{col} * stride + row : uint64_t{row} * stride + col) * size;
            uint8_t* p = memory_at(in.space, a, size, w, l, in);
            if (in.space == MemSpace::kShared) check_shared(w, l, a, size, !load, false, in);
            if (in.space == MemSpace::kGlobal && checks_global_) check_global(w, l, a, size, load, !load, in);
            if (load) {
              packed |= load_bits(p, size) << (8 * size * h);
            } else {
              store_bits(p, (packed >> (8 * size * h)) & element_mask, size);
            }
          }
          if (load) write(w, frag[r], l, packed);
        }
      });
      return;
    }
    case EmuOp::kLdmatrix: {
      // ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16: lanes 8i..8i+7 give the row addresses
      // of matrix i; lane l receives, in its i-th register, row l/4, columns 2(l%4) and 2(l%4)+1
      // of matrix i (with .trans: column l/4 of rows 2(l%4) and 2(l%4)+1), 16 bits each.
      const EmuOperand& addr = ops.at(1);
      std::array<uint64_t, 32> row_address{};
      for (uint32_t l = 0; l < 32; ++l) row_address[l] = address(w, addr, l);
      lanes([&](uint32_t l) { out.addresses.push_back(row_address[l % (8 * in.matrices)]); });
      const auto& d = ops.at(0).regs;
      lanes([&](uint32_t l) {
        for (uint32_t m = 0; m < in.matrices; ++m) {
          uint64_t packed = 0;
          for (uint32_t h = 0; h < 2; ++h) {
            uint32_t row = l / 4, col = 2 * (l % 4) + h;
            if (in.transpose) std::swap(row, col);
            uint64_t a = row_address[8 * m + row] + 2 * col;
            uint16_t v;
            std::memcpy(&v, memory_at(MemSpace::kShared, a, 2, w, l, in), 2);
            check_shared(w, l, a, 2, false, false, in);
            packed |= uint64_t{v} << (16 * h);
          }
          write(w, d.at(m), l, packed);
        }
      });
      return;
    }
    case EmuOp::kStmatrix: {
      // stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 [p], {r...}: ldmatrix's inverse, the
      // same lanes giving row addresses and holding the same elements.
      const EmuOperand& addr = ops.at(0);
      std::array<uint64_t, 32> row_address{};
      for (uint32_t l = 0; l < 32; ++l) row_address[l] = address(w, addr, l);
      lanes([&](uint32_t l) { out.addresses.push_back(row_address[l % (8 * in.matrices)]); });
      const auto& s = ops.at(1).regs;
      lanes([&](uint32_t l) {
        for (uint32_t m = 0; m < in.matrices; ++m) {
          const uint64_t packed = reg(s.at(m), l);
          for (uint32_t h = 0; h < 2; ++h) {
            uint32_t row = l / 4, col = 2 * (l % 4) + h;
            if (in.transpose) std::swap(row, col);
            const uint64_t a = row_address[8 * m + row] + 2 * col;
            const auto v = static_cast<uint16_t>(packed >> (16 * h));
            std::memcpy(memory_at(MemSpace::kShared, a, 2, w, l, in), &v, 2);
            check_shared(w, l, a, 2, true, false, in);
          }
        }
      });
      return;
    }
    case EmuOp::kMovmatrix: {
      // movmatrix.sync.aligned.m8n8.trans.b16 d, a: lane l holds row l/4, columns 2(l%4) and
      // 2(l%4)+1 of an 8x8 matrix (ldmatrix's layout) and receives the same places of its
      // transpose. Every lane's source is read: .aligned demands the whole warp execute it.
      std::array<uint16_t, 64> m{};
      for (uint32_t l = 0; l < 32; ++l) {
        const uint64_t v = reg(ops.at(1).reg, l);
        m[(l / 4) * 8 + 2 * (l % 4)] = static_cast<uint16_t>(v), m[(l / 4) * 8 + 2 * (l % 4) + 1] = static_cast<uint16_t>(v >> 16);
      }
      lanes([&](uint32_t l) {
        const uint32_t r = l / 4, c = 2 * (l % 4);
        write(w, ops.at(0).reg, l, uint64_t{m[c * 8 + r]} | uint64_t{m[(c + 1) * 8 + r]} << 16);
      });
      return;
    }
    case EmuOp::kMma: {
      if (in.mma_k == 32) return mma_m16n8k32(w, in);
      // PTX ISA fragment layouts for mma.m16n8k16 / m16n8k8 (.f16/.bf16 inputs, .f32 accumulators),
      // with group = lane / 4 and t = lane % 4:
      //   A element i of a lane: row = group + 8 * ((i / 2) % 2), col = 2t + i % 2 + 8 * (i / 4)
      //   B element i:           row = 2t + i % 2 + 8 * (i / 2),  col = group
      //   C/D element i:         row = group + 8 * (i / 2),       col = 2t + i % 2
      // Two 16-bit elements share a register, the lower-numbered in the low half; so do f16
      // accumulators (C/D element i in register i / 2). An f16 accumulation is computed in float
      // and rounded once to f16 (assumed: the PTX ISA does not say how the hardware accumulates).
      const uint32_t K = in.mma_k;
      float a[16][16] = {}, b[16][8] = {}, c[16][8] = {};
      auto to_float = [&](uint16_t h) { return in.bf16 ? std::bit_cast<float>(uint32_t{h} << 16) : half_to_float(h); };
      const auto& fa = ops.at(1).regs;
      const auto& fb = ops.at(2).regs;
      const auto& fc = ops.at(3).regs;
      // TF32 m16n8k8 holds one element per register: A element i at row group + 8 (i % 2), col
      // t + 4 (i / 2); B element i at row t + 4i, col group. The 13 low mantissa bits of a TF32
      // operand are not used by the hardware (PTX ISA); the emulator truncates them (assumed: the
      // ISA leaves the rounding of an FP32 value passed as TF32 unspecified).
      auto tf32 = [&](uint64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) & 0xffffe000u); };
      for (uint32_t l = 0; l < 32 && in.tf32; ++l) {
        const uint32_t g = l / 4, t = l % 4;
        for (uint32_t i = 0; i < 4; ++i) a[g + 8 * (i % 2)][t + 4 * (i / 2)] = tf32(reg(fa.at(i), l));
        for (uint32_t i = 0; i < 2; ++i) b[t + 4 * i][g] = tf32(reg(fb.at(i), l));
        for (uint32_t i = 0; i < 4; ++i) c[g + 8 * (i / 2)][2 * t + i % 2] = std::bit_cast<float>(static_cast<uint32_t>(reg(fc.at(i), l)));
      }
      for (uint32_t l = 0; l < 32 && !in.tf32; ++l) {
        const uint32_t g = l / 4, t = l % 4;
        for (uint32_t i = 0; i < K / 2; ++i) {  // 8 A elements for k16, 4 for k8
          uint16_t h = static_cast<uint16_t>(reg(fa.at(i / 2), l) >> (16 * (i % 2)));
          a[g + 8 * ((i / 2) % 2)][2 * t + i % 2 + 8 * (i / 4)] = to_float(h);
        }
        for (uint32_t i = 0; i < K / 4; ++i) {  // 4 B elements for k16, 2 for k8
          uint16_t h = static_cast<uint16_t>(reg(fb.at(i / 2), l) >> (16 * (i % 2)));
          b[2 * t + i % 2 + 8 * (i / 2)][g] = to_float(h);
        }
        for (uint32_t i = 0; i < 4; ++i) {
          c[g + 8 * (i / 2)][2 * t + i % 2] = in.mma_c16 ? half_to_float(static_cast<uint16_t>(reg(fc.at(i / 2), l) >> (16 * (i % 2))))
                                                         : std::bit_cast<float>(static_cast<uint32_t>(reg(fc.at(i), l)));
        }
      }
      const auto& fd = ops.at(0).regs;
      for (uint32_t l = 0; l < 32; ++l) {
        const uint32_t g = l / 4, t = l % 4;
        uint32_t packed = 0;
        for (uint32_t i = 0; i < 4; ++i) {
          uint32_t row = g + 8 * (i / 2), col = 2 * t + i % 2;
          float acc = c[row][col];
          for (uint32_t k = 0; k < K; ++k) acc = std::fmaf(a[row][k], b[k][col], acc);
          if (in.mma_d16) {
            packed |= uint32_t{float_to_half(acc)} << (16 * (i % 2));
            if (i % 2) write(w, fd.at(i / 2), l, std::exchange(packed, 0u));
          } else {
            write(w, fd.at(i), l, std::bit_cast<uint32_t>(acc));
          }
        }
      }
      return;
    }
    case EmuOp::kWmmaMma:
      return wmma_mma(w, in);
    default:
      fault(in, w, static_cast<uint32_t>(std::countr_zero(exec)), "not a matrix instruction");
  }
}

// mma.sync.m16n8k32 with 8-bit inputs, fragment layouts per the PTX ISA (group = lane / 4,
// t = lane % 4; four elements per register, the lowest-numbered in the low byte):
//   A element i (0..15): row = group + 8 if 4 <= i % 8, col = 4t + i % 4 + 16 * (i / 8)
//   B element i (0..7):  row = 4t + i % 4 + 16 * (i / 4), col = group
//   C/D element i:       row = group + 8 * (i / 2), col = 2t + i % 2
// Integers accumulate exactly in 32 bits (wrapping); FP8 products are exact in float and are
// summed in k order with fmaf (the hardware's internal precision is not specified).
void CtaEmulator::mma_m16n8k32(WarpState& w, const EmuInst& in) {
  const auto& ops = in.operands;
  const auto& fa = ops.at(1).regs;
  const auto& fb = ops.at(2).regs;
  const auto& fc = ops.at(3).regs;
  const auto& fd = ops.at(0).regs;
  auto element = [](const std::string& type, uint32_t byte) { return matrix_element_value(type, byte); };
  auto reg = [&](int32_t r, uint32_t l) { return w.regs.get(r, l); };
  double a[16][32] = {}, b[32][8] = {};
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t g = l / 4, t = l % 4;
    for (uint32_t i = 0; i < 16; ++i) {
      uint32_t byte = static_cast<uint32_t>(reg(fa.at(i / 4), l) >> (8 * (i % 4))) & 0xff;
      a[g + ((i % 8) >= 4 ? 8 : 0)][4 * t + i % 4 + 16 * (i / 8)] = element(in.mma_a, byte);
    }
    for (uint32_t i = 0; i < 8; ++i) {
      uint32_t byte = static_cast<uint32_t>(reg(fb.at(i / 4), l) >> (8 * (i % 4))) & 0xff;
      b[4 * t + i % 4 + 16 * (i / 4)][g] = element(in.mma_b, byte);
    }
  }
  const bool integer = in.mma_a == "s8" || in.mma_a == "u8";
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t g = l / 4, t = l % 4;
    for (uint32_t i = 0; i < 4; ++i) {
      const uint32_t row = g + 8 * (i / 2), col = 2 * t + i % 2;
      const uint32_t c = static_cast<uint32_t>(reg(fc.at(i), l));
      if (integer) {
        uint32_t acc = c;
        for (uint32_t k = 0; k < 32; ++k) acc += static_cast<uint32_t>(static_cast<int32_t>(a[row][k] * b[k][col]));
        write(w, fd.at(i), l, acc);
      } else {
        float acc = std::bit_cast<float>(c);
        for (uint32_t k = 0; k < 32; ++k) acc = std::fmaf(static_cast<float>(a[row][k]), static_cast<float>(b[k][col]), acc);
        write(w, fd.at(i), l, std::bit_cast<uint32_t>(acc));
      }
    }
  }
}

namespace {

double wmma_value(char kind, uint64_t bits) {
  switch (kind) {
    case 'h': return half_to_float(static_cast<uint16_t>(bits));
    case 'b': return std::bit_cast<float>(static_cast<uint32_t>(bits & 0xffff) << 16);
    // The 13 low mantissa bits of a TF32 operand are not used (PTX ISA); truncated, as in mma.sync.
    case 't': return std::bit_cast<float>(static_cast<uint32_t>(bits) & 0xffffe000u);
    case 's': return static_cast<int8_t>(bits);
    case 'u': return static_cast<uint8_t>(bits);
    case 'd': return std::bit_cast<double>(bits);
    case 'i': return static_cast<int32_t>(bits);
    default: return std::bit_cast<float>(static_cast<uint32_t>(bits));
  }
}

}  // namespace

// D = A B + C on whole wmma fragments. Products of f16, bf16 and tf32 inputs are exact in float
// and are summed in k order with fmaf into a float accumulator (rounded to f16 at the end for f16
// accumulators; the hardware's internal order and precision are not specified, so this is
// assumed); integers are exact in 64 bits, then wrap to 32 (or clamp with .satfinite); f64 is an
// fma chain in double (.rn).
void CtaEmulator::wmma_mma(WarpState& w, const EmuInst& in) {
  const auto& ops = in.operands;
  const WmmaInfo& info = in.wmma;
  auto reg = [&](int32_t r, uint32_t l) { return w.regs.get(r, l); };
  auto gather = [&](const std::vector<int32_t>& frag, char matrix) {
    const FragmentShape f = fragment_shape(info, matrix);
    const uint32_t per_reg = wmma_elements_per_register(f.kind), bits = 8 * wmma_element_bytes(f.kind);
    const auto R = static_cast<uint32_t>(frag.size()), elements = f.rows * f.cols;
    std::vector<double> m(elements);
    for (uint32_t s = 0; s < elements; ++s) {  // the first copy of each element
      const uint32_t l = s / per_reg / R, r = s / per_reg % R, h = s % per_reg;
      m[s] = wmma_value(f.kind, reg(frag[r], l) >> (bits * h));
    }
    return m;
  };
  const std::vector<double> a = gather(ops.at(1).regs, 'a'), b = gather(ops.at(2).regs, 'b'), c = gather(ops.at(3).regs, 'c');
  const uint32_t M = info.m, N = info.n, K = info.k;
  std::vector<uint64_t> d(M * N);
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      const double c0 = c[i * N + j];
      uint64_t result;
      if (info.a == 's' || info.a == 'u') {
        int64_t acc = static_cast<int64_t>(c0);
        for (uint32_t k = 0; k < K; ++k) acc += static_cast<int64_t>(a[i * K + k]) * static_cast<int64_t>(b[k * N + j]);
        if (info.satfinite) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        result = static_cast<uint32_t>(acc);
      } else if (info.a == 'd') {
        double acc = c0;
        for (uint32_t k = 0; k < K; ++k) acc = std::fma(a[i * K + k], b[k * N + j], acc);
        result = std::bit_cast<uint64_t>(acc);
      } else {
        float acc = static_cast<float>(c0);
        for (uint32_t k = 0; k < K; ++k) acc = std::fmaf(static_cast<float>(a[i * K + k]), static_cast<float>(b[k * N + j]), acc);
        result = info.d == 'h' ? float_to_half(acc) : std::bit_cast<uint32_t>(acc);
      }
      d[i * N + j] = result;
    }
  }
  const auto& fd = ops.at(0).regs;
  const uint32_t per_reg = wmma_elements_per_register(info.d), bits = 8 * wmma_element_bytes(info.d);
  const auto R = static_cast<uint32_t>(fd.size());
  for (uint32_t l = 0; l < 32; ++l) {
    for (uint32_t r = 0; r < R; ++r) {
      uint64_t packed = 0;
      for (uint32_t h = 0; h < per_reg; ++h) packed |= d[((l * R + r) * per_reg + h) % (M * N)] << (bits * h);
      write(w, fd[r], l, packed);
    }
  }
}

}  // namespace warpsim::ptx
