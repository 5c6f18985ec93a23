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
    case EmuOp::kMma:
      return mma_sync(w, in);
    case EmuOp::kWmmaMma:
      return wmma_mma(w, in);
    default:
      fault(in, w, static_cast<uint32_t>(std::countr_zero(exec)), "not a matrix instruction");
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

// D = A B + C on whole wmma fragments. Products of f16, bf16 and tf32 inputs go through the GPU's
// block FMA (mma_block_sum.h); without one in the config they are summed in k order with fmaf into
// a float accumulator (rounded to f16 at the end for f16 accumulators; assumed); integers are
// exact in 64 bits, then wrap to 32 (or clamp with .satfinite); f64 is an fma chain in double (.rn).
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
  // Floating-point A row-major and B transposed, as floats, so each dot product reads k in a row.
  const char* type = info.a == 'h' ? "f16" : info.a == 'b' ? "bf16" : info.a == 't' ? "tf32" : "";
  const MmaBlockSum sum = mma_block_sum(launch_.mma_sums, type, type, info.d == 'h');
  std::vector<float> af, bt;
  if (*type) {
    af.resize(M * K), bt.resize(N * K);
    for (uint32_t i = 0; i < M * K; ++i) af[i] = static_cast<float>(a[i]);
    for (uint32_t k = 0; k < K; ++k)
      for (uint32_t j = 0; j < N; ++j) bt[j * K + k] = static_cast<float>(b[k * N + j]);
  }
  const MmaBlockSum::Operand a_terms = sum.split(af.data(), af.size(), true), b_terms = sum.split(bt.data(), bt.size(), false);
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
        const float acc = sum.dot(a_terms, i * K, b_terms, j * K, K, static_cast<float>(c0));
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
