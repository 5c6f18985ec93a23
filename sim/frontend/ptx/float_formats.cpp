#include "frontend/ptx/float_formats.h"

#include <cmath>
#include <limits>

namespace warpsim::ptx {

const FloatFormat* find_float_format(std::string_view name) {
  // Field widths and biases: IEEE 754 (f32, f16), bfloat16 (the top half of f32), and the OCP
  // Microscaling Formats specification v1.0 (E5M2 with IEEE infinities and NaNs; E4M3 without
  // infinities; FP6 E3M2/E2M3 and FP4 E2M1 with neither).
  static const FloatFormat kF32{8, 23, 127, true, true, false}, kF16{5, 10, 15, true, true, false},
      kBf16{8, 7, 127, true, true, false}, kE5m2{5, 2, 15, true, true, false}, kE4m3{4, 3, 7, false, true, true},
      kE3m2{3, 2, 3, false, false, false}, kE2m3{2, 3, 1, false, false, false}, kE2m1{2, 1, 1, false, false, false};
  if (name == "f32") return &kF32;
  if (name == "f16") return &kF16;
  if (name == "bf16") return &kBf16;
  if (name == "e5m2") return &kE5m2;
  if (name == "e4m3") return &kE4m3;
  if (name == "e3m2") return &kE3m2;
  if (name == "e2m3") return &kE2m3;
  if (name == "e2m1") return &kE2m1;
  return nullptr;
}

namespace {
int max_exponent(const FloatFormat& f) { return static_cast<int>((1u << f.exponent_bits) - (f.infinities ? 2 : 1)) - f.bias; }
uint64_t all_ones(uint32_t bits) { return (uint64_t{1} << bits) - 1; }
}  // namespace

double max_finite(const FloatFormat& f) {
  const int top_mantissa_step = f.only_all_ones_nan ? 1 : 0;  // E4M3's largest mantissa is 110
  return std::ldexp(2.0 - std::ldexp(1.0, top_mantissa_step - static_cast<int>(f.mantissa_bits)), max_exponent(f));
}

uint64_t encode_float(double x, const FloatFormat& f, Rounding r, bool satfinite, RandomBits random) {
  const uint32_t e_bits = f.exponent_bits, m_bits = f.mantissa_bits;
  const uint64_t sign_bit = uint64_t{1} << (e_bits + m_bits);
  const uint64_t nan = all_ones(e_bits + m_bits);  // canonical: positive, every exponent and mantissa bit set
  const uint64_t infinity = all_ones(e_bits) << m_bits;
  const double largest = max_finite(f);
  auto magnitude = [&](double a) -> uint64_t {  // a finite, representable non-negative value
    if (a == 0) return 0;
    const int emin = 1 - f.bias;
    const int e = std::max(std::ilogb(a), emin);
    const auto n = static_cast<uint64_t>(std::ldexp(a, static_cast<int>(m_bits) - e));
    if (n < (uint64_t{1} << m_bits)) return n;  // subnormal
    return (static_cast<uint64_t>(e + f.bias) << m_bits) | (n - (uint64_t{1} << m_bits));
  };
  if (std::isnan(x)) return f.nans ? nan : magnitude(largest);
  const bool negative = std::signbit(x);
  const uint64_t sign = negative ? sign_bit : 0;
  const double a = std::fabs(x);
  // Rounding away from zero overflows to infinity; toward zero to the largest finite value.
  auto overflow = [&](bool rounds_away) -> uint64_t {
    if (satfinite || !rounds_away) return sign | magnitude(largest);
    if (f.infinities) return sign | infinity;
    return f.nans ? sign | nan : sign | magnitude(largest);  // E4M3: S.1111.111, the sign kept (as CUDA's __nv_cvt_float_to_fp8)
  };
  // An infinity converts to infinity whatever the rounding mode (IEEE 754: the conversion is exact;
  // CUDA 13.0's host __float2half_rz does the same), or to the largest finite value with .satfinite.
  if (std::isinf(a)) return overflow(true);
  const int emin = 1 - f.bias;
  const int e = a == 0 ? emin : std::max(std::ilogb(a), emin);
  const double m = std::ldexp(a, static_cast<int>(m_bits) - e);  // exact: a power-of-two scaling
  const double low = std::floor(m), fraction = m - low;
  // Stochastic rounding goes away from zero when the random bits added to the discarded bits
  // (the fraction's top `count` bits; exact in a double) carry out.
  const bool carry = r == Rounding::kStochastic &&
                     static_cast<uint64_t>(std::ldexp(fraction, static_cast<int>(random.count))) + random.value >= (uint64_t{1} << random.count);
  const bool away = r == Rounding::kNearestEven || r == Rounding::kNearestAway || (r == Rounding::kUp && !negative) ||
                    (r == Rounding::kDown && negative) || carry;
  double n = low;
  switch (r) {
    case Rounding::kNearestEven: n = fraction > 0.5 || (fraction == 0.5 && std::fmod(low, 2.0) != 0) ? low + 1 : low; break;
    case Rounding::kNearestAway: n = fraction >= 0.5 ? low + 1 : low; break;
    case Rounding::kZero: break;
    case Rounding::kDown: n = negative && fraction > 0 ? low + 1 : low; break;
    case Rounding::kUp: n = !negative && fraction > 0 ? low + 1 : low; break;
    case Rounding::kStochastic: n = carry ? low + 1 : low; break;
  }
  const double value = std::ldexp(n, e - static_cast<int>(m_bits));
  if (value > largest) return overflow(away);
  return sign | magnitude(value);
}

double decode_float(uint64_t bits, const FloatFormat& f) {
  const uint32_t e_bits = f.exponent_bits, m_bits = f.mantissa_bits;
  const bool negative = (bits >> (e_bits + m_bits)) & 1;
  const uint64_t exponent = (bits >> m_bits) & all_ones(e_bits), mantissa = bits & all_ones(m_bits);
  double v;
  if (f.infinities && exponent == all_ones(e_bits)) {
    v = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (f.only_all_ones_nan && exponent == all_ones(e_bits) && mantissa == all_ones(m_bits)) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - static_cast<int>(m_bits));
  } else {
    v = std::ldexp(static_cast<double>(mantissa | (uint64_t{1} << m_bits)), static_cast<int>(exponent) - f.bias - static_cast<int>(m_bits));
  }
  return negative ? -v : v;
}

// UE8M0, the MX formats' scale factor: a biased 8-bit exponent, 2^(e - 127), with 0xFF for NaN
// and neither zero nor a sign. As CUDA 13.0's cuda_fp8.h documents __nv_cvt_float_to_e8m0 (and
// its host code computes it): the magnitude rounds to a power of two toward zero (.rz) or up
// (.rp); results below 2^-127 clip to it; results above 2^127 give NaN, or 2^127 with
// .satfinite (infinity included); NaN gives NaN.
uint64_t ue8m0_bits(double x, bool up, bool satfinite) {
  if (std::isnan(x)) return 0xff;
  x = std::fabs(x);
  int code = 0;
  if (std::isinf(x)) {
    code = 255;
  } else if (x > 0) {
    int e = 0;
    const double m = std::frexp(x, &e);  // x = m 2^e, m in [0.5, 1): floor(log2 x) = e - 1
    code = (up && m != 0.5 ? e : e - 1) + 127;
  }
  if (code <= 0) return 0;
  return code >= 255 ? (satfinite ? 0xfe : 0xff) : static_cast<uint64_t>(code);
}

// A UE8M0 exponent as bf16 bits (cuda_fp8.hpp's __internal_e8m0_to_bf16): 2^-127 is bf16's
// subnormal 0x0040, NaN the canonical 0x7FFF.
uint64_t bf16_of_ue8m0(uint64_t code) { return code == 0xff ? 0x7fff : code == 0 ? 0x0040 : code << 7; }

}  // namespace warpsim::ptx
