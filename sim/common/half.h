#pragma once
// IEEE 754 binary16 conversions (round to nearest even), for f16 buffers and tensor fragments.
#include <bit>
#include <cmath>
#include <cstdint>

namespace warpsim {

inline float half_to_float(uint16_t h) {
  // Built from the bits (exact for every value): the emulator converts every f16 fragment element
  // of every MMA, and ldexp was a third of an FP16 MMA's cost.
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = static_cast<float>(man) * 0x1p-24f;  // subnormal: man x 2^-24, exact in float
  } else if (exp == 31) {
    v = man ? NAN : INFINITY;
  } else {
    v = std::bit_cast<float>(((exp + 112) << 23) | (man << 13));  // rebias 15 -> 127
  }
  return sign ? -v : v;
}

inline uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  uint32_t exp = (x >> 23) & 0xff, man = x & 0x7fffff;
  // NaN: the canonical 0x7FFF, as the PTX ISA's half-precision results and CUDA 13.0's host
  // __float2half_rn (cuda_fp16.hpp) give it.
  if (exp == 0xff) return man ? 0x7fff : sign | 0x7c00;
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {  // subnormal or zero
    if (e < -10) return sign;
    man |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half_man = man >> shift, rest = man & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half_man & 1))) ++half_man;
    return sign | static_cast<uint16_t>(half_man);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (man >> 13);
  uint32_t rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;  // may carry into the exponent: still right
  return sign | static_cast<uint16_t>(half);
}

}  // namespace warpsim
