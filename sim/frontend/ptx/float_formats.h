#pragma once
// Floating-point formats from FP32 down to FP4, and rounding a value into one with the rules of
// the PTX ISA's cvt: the rounding modes, overflow to infinity or the largest finite value,
// .satfinite, and NaN (canonical where the format has one, the largest value where it has none).
#include <cstdint>
#include <string_view>

namespace warpsim::ptx {

struct FloatFormat {
  uint32_t exponent_bits = 8, mantissa_bits = 23;
  int bias = 127;
  bool infinities = true;       // IEEE-style: an all-ones exponent is infinity (zero mantissa) or NaN
  bool nans = true;             // has NaN encodings at all
  bool only_all_ones_nan = false;  // OCP E4M3: S.1111.111 is the one NaN; the rest of that exponent is finite
};

// f32, f16, bf16, e5m2, e4m3 (OCP FP8), e3m2, e2m3 (FP6), e2m1 (FP4); null for other names.
const FloatFormat* find_float_format(std::string_view name);

// kStochastic: cvt .rs, toward zero or away from it by the carry out of adding random bits to
// the discarded ones (RandomBits; PTX ISA, cvt).
enum class Rounding : uint8_t { kNearestEven, kNearestAway, kZero, kDown, kUp, kStochastic };

// The random bits of a .rs conversion: `count` of them, in `value`'s low bits.
struct RandomBits {
  uint32_t value = 0, count = 0;
};

double max_finite(const FloatFormat& f);
// The bits of x in format f (sign, exponent, mantissa; FP6 and FP4 in the low 6 or 4 bits).
// `random`: kStochastic's bits, added to the `count` discarded bits just below the result's last
// place (all of them for a normal f16 or bf16 result from f32: 13 and 16).
uint64_t encode_float(double x, const FloatFormat& f, Rounding r, bool satfinite, RandomBits random = {});
double decode_float(uint64_t bits, const FloatFormat& f);

// UE8M0 (the MX scale factor: a biased exponent, no sign, no zero): x's magnitude rounded to a
// power of two toward zero or `up`; and a UE8M0 code as bf16 bits.
uint64_t ue8m0_bits(double x, bool up, bool satfinite);
uint64_t bf16_of_ue8m0(uint64_t code);

}  // namespace warpsim::ptx
