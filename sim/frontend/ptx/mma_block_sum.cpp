#include "frontend/ptx/mma_block_sum.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "isa/tensor_ops.h"

namespace warpsim::ptx {
namespace {

bool block_special(float x) { return (std::bit_cast<uint32_t>(x) & 0x7f800000u) == 0x7f800000u; }

// 2^e as a double, for e inside double's normal range (every weight here is).
double power_of_two(int e) { return std::bit_cast<double>(static_cast<uint64_t>(e + 1023) << 52); }

}  // namespace

int mma_input_emin(const char* type) {
  static constexpr struct { const char* name; int emin; } kFormats[] = {
      {"f16", -14}, {"e5m2", -14}, {"e4m3", -6}, {"e3m2", -2}, {"e2m3", 0}, {"e2m1", 0},
  };
  for (const auto& f : kFormats)
    if (std::strcmp(f.name, type) == 0) return f.emin;
  return -126;  // bf16, tf32 (and f32)
}

MmaBlockSum mma_block_sum(const MmaSumSpecs& specs, const char* type_a, const char* type_b, bool f16_out) {
  const TensorPrecision pa = tensor_precision_of_type(type_a), pb = tensor_precision_of_type(type_b);
  const MmaSumSpec spec = pa != TensorPrecision::kNone && pa == pb ? specs[static_cast<int>(pa)] : MmaSumSpec{};
  return MmaBlockSum(spec, mma_input_emin(type_a), mma_input_emin(type_b), f16_out);
}

MmaBlockSum::MmaBlockSum(MmaSumSpec spec, int emin_a, int emin_b, bool f16_out)
    : spec_(spec), emin_a_(emin_a), emin_b_(emin_b) {
  // The aligned sum holds 23 + extra_bits fraction bits below its largest term; a result never
  // has more than that (Hopper's FP8 path: 13). f32: toward zero; f16: to nearest even.
  f32_ = Rounding{std::min(23, 23 + spec.extra_bits), -126, 127, false};
  out_ = f16_out ? Rounding{std::min(10, 23 + spec.extra_bits), -14, 15, true} : f32_;
}

MmaBlockSum::Operand MmaBlockSum::split(const float* values, size_t n, bool is_a) const {
  Operand op;
  op.values = values;
  if (ieee()) return op;
  const int emin = is_a ? emin_a_ : emin_b_;
  // Storage reused from one MMA to the next (an allocation per operand per MMA was a fifth of
  // the block FMA's time): A's and B's each live until the next split of the same side.
  static thread_local std::vector<double> exact[2];
  static thread_local std::vector<int32_t> align[2];
  exact[is_a].resize(n);
  align[is_a].resize(n);
  double* e = exact[is_a].data();
  int32_t* x = align[is_a].data();
  for (size_t i = 0; i < n; ++i) {
    const uint32_t bits = std::bit_cast<uint32_t>(values[i]);
    const int field = static_cast<int>((bits >> 23) & 0xff);
    op.special |= field == 0xff;  // dot() takes the IEEE path for blocks with one
    e[i] = field == 0xff ? 0.0 : values[i];
    x[i] = (bits & 0x7fffffff) && field != 0xff ? std::max(field - 127, emin) : kZero;
  }
  op.exact = e, op.align = x;
  return op;
}

float MmaBlockSum::dot(const float* a, const float* b, uint32_t k, float c) const {
  return dot(split(a, k, true), 0, split(b, k, false), 0, k, c);
}

float MmaBlockSum::dot_blocks(const Operand& a, size_t at_a, const Operand& b, size_t at_b, uint32_t k, float c) const {
  const float* va = a.values + at_a;
  const float* vb = b.values + at_b;
  if (ieee()) {
    for (uint32_t i = 0; i < k; ++i) c = std::fmaf(va[i], vb[i], c);
    return c;
  }
  // Blocks before the last leave their sum in the f32 accumulator; only the last is rounded to
  // an f16 D (KM25's C model; their MATLAB model rounds every block to the output, and their
  // measurements, one block each, cannot tell the two apart).
  for (uint32_t i = 0; i < k; i += spec_.terms) {
    const uint32_t n = std::min(spec_.terms, k - i);
    bool special = block_special(c);
    if (a.special || b.special)
      for (uint32_t j = i; j < i + n; ++j) special |= block_special(va[j]) || block_special(vb[j]);
    if (special) {
      // Infinities and NaNs: the IEEE result (inf - inf and inf x 0 give NaN), as the paper's
      // models treat them before any alignment.
      double sum = c;
      for (uint32_t j = i; j < i + n; ++j) sum += static_cast<double>(va[j]) * vb[j];
      c = static_cast<float>(sum);
      continue;
    }
    c = block(a, at_a + i, b, at_b + i, n, c, i + n < k ? f32_ : out_);
  }
  return c;
}

float MmaBlockSum::block(const Operand& a, size_t at_a, const Operand& b, size_t at_b, uint32_t n, float c, const Rounding& to) const {
  const double* value_a = a.exact + at_a;
  const double* value_b = b.exact + at_b;
  const int32_t* align_a = a.align + at_a;
  const int32_t* align_b = b.align + at_b;
  // The block's largest exponent: a product's is the sum of its inputs' (each at least its
  // format's smallest), the accumulator's its own (at least f32's -126). Zero terms take no part.
  const uint32_t cbits = std::bit_cast<uint32_t>(c);
  const int cfield = static_cast<int>((cbits >> 23) & 0xff);
  // Four terms a step, each with its own maximum and partial sum: the compares and the integer
  // conversions of one step are independent (max and integer addition are exact in any order).
  int top = (cbits & 0x7fffffff) ? std::max(cfield - 127, -126) : 2 * kZero;
  int top1 = top, top2 = top, top3 = top;
  const uint32_t whole = n & ~3u;
  for (uint32_t i = 0; i < whole; i += 4) {
    top = std::max(top, align_a[i] + align_b[i]);
    top1 = std::max(top1, align_a[i + 1] + align_b[i + 1]);
    top2 = std::max(top2, align_a[i + 2] + align_b[i + 2]);
    top3 = std::max(top3, align_a[i + 3] + align_b[i + 3]);
  }
  for (uint32_t i = whole; i < n; ++i) top = std::max(top, align_a[i] + align_b[i]);
  top = std::max(std::max(top, top1), std::max(top2, top3));
  if (top < kZero / 2) return 0.0f;  // no nonzero term
  // Every term truncated toward zero onto the grid 2^grid, then summed exactly. In doubles: a
  // product of two elements is exact, scaling it by a power of two is exact (it stays far inside
  // double's range), and the conversion to an integer truncates toward zero, as the hardware does
  // to each term's magnitude. Each term is below 2^(27 + extra_bits) grid steps.
  const int grid = top - 23 - spec_.extra_bits;
  const double inverse_grid = power_of_two(-grid);
  int64_t sum = static_cast<int64_t>(static_cast<double>(c) * inverse_grid), sum1 = 0, sum2 = 0, sum3 = 0;
  for (uint32_t i = 0; i < whole; i += 4) {
    sum += static_cast<int64_t>(value_a[i] * value_b[i] * inverse_grid);
    sum1 += static_cast<int64_t>(value_a[i + 1] * value_b[i + 1] * inverse_grid);
    sum2 += static_cast<int64_t>(value_a[i + 2] * value_b[i + 2] * inverse_grid);
    sum3 += static_cast<int64_t>(value_a[i + 3] * value_b[i + 3] * inverse_grid);
  }
  for (uint32_t i = whole; i < n; ++i) sum += static_cast<int64_t>(value_a[i] * value_b[i] * inverse_grid);
  sum += sum1 + sum2 + sum3;
  if (sum == 0) return 0.0f;
  if (!to.nearest) {
    // Toward zero into the normal range (nearly every f32 result): the sum (below 2^40) times
    // 2^grid is exact as a double, and clearing the fraction bits the result does not keep
    // truncates its magnitude; what is left converts to float exactly. round_sum does the rest.
    uint64_t bits = std::bit_cast<uint64_t>(static_cast<double>(sum) * power_of_two(grid));
    const int exponent = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
    if (exponent >= to.emin && exponent <= to.emax) {
      bits &= ~((uint64_t{1} << (52 - to.fraction_bits)) - 1);
      return static_cast<float>(std::bit_cast<double>(bits));
    }
  }
  return round_sum(sum < 0, static_cast<uint64_t>(sum < 0 ? -sum : sum), grid, to);
}

// magnitude x 2^grid_exp rounded to the format `to` (toward zero or to nearest even), with
// subnormals; past the largest finite value, infinity.
float MmaBlockSum::round_sum(bool negative_sum, uint64_t magnitude, int grid_exp, const Rounding& to) {
  const int width = 64 - std::countl_zero(magnitude);
  const int exponent = std::max(grid_exp + width - 1, to.emin);
  const int lsb = exponent - to.fraction_bits;  // the result's last bit's weight
  const int drop = lsb - grid_exp;              // bits of the sum below it
  uint64_t kept;
  if (drop <= 0) {
    kept = magnitude << -drop;  // exact: at most fraction_bits + 1 bits
  } else if (drop >= 64) {
    kept = 0;  // the sum (below 2^40) is under half the last place
  } else {
    kept = magnitude >> drop;
    const uint64_t rest = magnitude & ((uint64_t{1} << drop) - 1), half = uint64_t{1} << (drop - 1);
    if (to.nearest && (rest > half || (rest == half && (kept & 1)))) ++kept;
  }
  double value = static_cast<double>(kept) * power_of_two(lsb);  // exact: kept has at most 24 bits
  if (value >= power_of_two(to.emax + 1)) value = INFINITY;
  return static_cast<float>(negative_sum ? -value : value);
}

}  // namespace warpsim::ptx
