// Compiled with -frounding-math (sim/CMakeLists.txt), so that the compiler neither folds nor
// moves these operations across the rounding-mode changes around them.
#include "frontend/ptx/directed_rounding.h"

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>

namespace warpsim::ptx {

namespace {
int host_mode(Rounding r) {
  switch (r) {
    case Rounding::kZero: return FE_TOWARDZERO;
    case Rounding::kDown: return FE_DOWNWARD;
    case Rounding::kUp: return FE_UPWARD;
    default: return FE_TONEAREST;
  }
}
}  // namespace

double round_directed(EmuOp op, Rounding mode, uint32_t bits, double a, double b, double c) {
  const int saved = std::fegetround();
  std::fesetround(host_mode(mode));
  volatile double x = 0;
  switch (op) {
    case EmuOp::kAdd: x = a + b; break;
    case EmuOp::kSub: x = a - b; break;
    case EmuOp::kMul: x = a * b; break;
    case EmuOp::kDiv: x = a / b; break;
    case EmuOp::kRcp: x = 1.0 / a; break;
    case EmuOp::kSqrt: x = std::sqrt(a); break;
    case EmuOp::kFma:
    case EmuOp::kMad:
      // One rounding of the exact a * b + c: fmaf's in f32 (its operands are floats), fma's in f64.
      x = bits == 32 ? static_cast<double>(std::fmaf(static_cast<float>(a), static_cast<float>(b), static_cast<float>(c))) : std::fma(a, b, c);
      break;
    default: x = NAN; break;
  }
  volatile double result = bits == 32 ? static_cast<double>(static_cast<float>(x)) : x;
  std::fesetround(saved);
  return result;
}

float fma_rounded_to_odd(float a, float b, float c) {
  // Rounding to odd keeps a sticky bit for every discarded one: the inexact result takes the odd
  // one of its two neighbours. 24-bit significands multiply exactly in double; Knuth's TwoSum
  // gives the sum's rounding error exactly (s + e = p + c), so the sign of e says which way the
  // exact value lies from s.
  const double p = static_cast<double>(a) * static_cast<double>(b), cd = c;
  const double s = p + cd, v = s - p, e = (p - (s - v)) + (cd - v);
  if (!std::isfinite(s)) return static_cast<float>(s);
  double odd = s;
  if (e != 0 && (std::bit_cast<uint64_t>(s) & 1) == 0) odd = std::nextafter(s, e > 0 ? INFINITY : -INFINITY);
  float f = static_cast<float>(odd);
  if (static_cast<double>(f) != odd && (std::bit_cast<uint32_t>(f) & 1) == 0) f = std::nextafter(f, odd > f ? INFINITY : -INFINITY);
  return f;
}

}  // namespace warpsim::ptx
