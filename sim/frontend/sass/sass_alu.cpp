// Per-lane semantics of SASS's arithmetic. Sources: NVIDIA's CUDA Binary Utilities instruction
// set tables (what each opcode does); the operand conventions (carry predicates, register pairs,
// funnel shifts, the extended compare) as ptxas's own code uses them, checked by running the
// shipped kernels' SASS against their PTX and their CPU references (tests/unit/sass/).
#include "frontend/sass/sass_alu.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "common/half.h"
#include "frontend/ptx/directed_rounding.h"
#include "frontend/ptx/float_formats.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::sass {
namespace {

using ptx::Rounding;

uint32_t lo32(uint64_t v) { return static_cast<uint32_t>(v); }
float f32(uint64_t v) { return std::bit_cast<float>(lo32(v)); }
uint64_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
double f64(uint64_t v) { return std::bit_cast<double>(v); }
uint64_t bits_of(double d) { return std::bit_cast<uint64_t>(d); }

Rounding rounding_of(uint8_t r) {
  switch (r) {
    case 1: return Rounding::kZero;
    case 2: return Rounding::kDown;
    case 3: return Rounding::kUp;
    default: return Rounding::kNearestEven;
  }
}

// An integer source as the adder sees it: -x is its two's complement, ~x its complement, each
// as a 33-bit quantity so that carries come out as the hardware's (a - b carries when a >= b).
uint64_t int_source(uint64_t v, uint8_t mods) {
  const uint64_t x = lo32(v);
  if (mods & kModNeg) return (~x & 0xffffffffu) + 1;
  if (mods & kModNot) return ~x & 0xffffffffu;
  return x;
}
uint64_t int_source64(uint64_t v, uint8_t mods) {
  if (mods & kModNeg) return ~v + 1;
  if (mods & kModNot) return ~v;
  return v;
}

// A float source with -x and |x| (the sign bit: -NaN stays a NaN), and .FTZ.
uint64_t float_source(uint64_t v, uint8_t mods, bool ftz) {
  uint32_t x = lo32(v);
  if (ftz) x = static_cast<uint32_t>(ptx::flush_subnormal32(x));
  if (mods & kModAbs) x &= 0x7fffffffu;
  if (mods & kModNeg) x ^= 0x80000000u;
  return x;
}
uint64_t double_source(uint64_t v, uint8_t mods) {
  if (mods & kModAbs) v &= ~(uint64_t{1} << 63);
  if (mods & kModNeg) v ^= uint64_t{1} << 63;
  return v;
}
// A packed-half source: selectors broadcast one half, then -x and |x| per half.
uint32_t half2_source(uint64_t v, uint8_t mods) {
  uint32_t x = lo32(v);
  if (mods & kModH0) x = (x & 0xffff) | (x << 16);
  if (mods & kModH1) x = (x >> 16) | (x & 0xffff0000u);
  if (mods & kModH1Only) x = (x >> 16) | (x & 0xffff0000u);
  if (mods & kModAbs) x &= 0x7fff7fffu;
  if (mods & kModNeg) x ^= 0x80008000u;
  return x;
}

float finish_float(float r, const SassAlu& a) {
  if (a.flags & kFlagSat) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
  if (a.flags & kFlagFtz) r = std::bit_cast<float>(static_cast<uint32_t>(ptx::flush_subnormal32(std::bit_cast<uint32_t>(r))));
  return r;
}

bool compare_result(Cmp c, int order, bool unordered) {
  // order: -1 less, 0 equal, 1 greater (meaningless when unordered)
  switch (c) {
    case Cmp::kF: return false;
    case Cmp::kT: return true;
    case Cmp::kLt: return !unordered && order < 0;
    case Cmp::kEq: return !unordered && order == 0;
    case Cmp::kLe: return !unordered && order <= 0;
    case Cmp::kGt: return !unordered && order > 0;
    case Cmp::kNe: return !unordered && order != 0;
    case Cmp::kGe: return !unordered && order >= 0;
    case Cmp::kNum: return !unordered;
    case Cmp::kNan: return unordered;
    case Cmp::kLtu: return unordered || order < 0;
    case Cmp::kEqu: return unordered || order == 0;
    case Cmp::kLeu: return unordered || order <= 0;
    case Cmp::kGtu: return unordered || order > 0;
    case Cmp::kNeu: return unordered || order != 0;
    case Cmp::kGeu: return unordered || order >= 0;
    case Cmp::kMin:
    case Cmp::kMax: return false;  // fsetp's own
  }
  return false;
}

bool combine(BoolOp op, bool t, bool c) {
  switch (op) {
    case BoolOp::kAnd: return t && c;
    case BoolOp::kOr: return t || c;
    case BoolOp::kXor: return t != c;
  }
  return false;
}

uint32_t lut3(uint8_t lut, uint32_t a, uint32_t b, uint32_t c) {
  // The table's bit index is (a << 2 | b << 1 | c) per bit position: 0xF0 is a, 0xCC b, 0xAA c.
  uint32_t r = 0;
  if (lut & 0x01) r |= ~a & ~b & ~c;
  if (lut & 0x02) r |= ~a & ~b & c;
  if (lut & 0x04) r |= ~a & b & ~c;
  if (lut & 0x08) r |= ~a & b & c;
  if (lut & 0x10) r |= a & ~b & ~c;
  if (lut & 0x20) r |= a & ~b & c;
  if (lut & 0x40) r |= a & b & ~c;
  if (lut & 0x80) r |= a & b & c;
  return r;
}

uint32_t permute(uint32_t a, uint32_t b, uint32_t selector) {  // PTX prmt's default mode
  const uint64_t bytes = uint64_t{b} << 32 | a;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    const uint32_t s = (selector >> (4 * i)) & 0xf;
    uint32_t byte = (bytes >> (8 * (s & 7))) & 0xff;
    if (s & 8) byte = (byte & 0x80) ? 0xff : 0;  // sign replicate
    r |= byte << (8 * i);
  }
  return r;
}

double mufu(uint8_t fn, double x) {
  switch (fn) {
    case kMufuEx2: return std::exp2(x);
    case kMufuLg2: return std::log2(x);
    case kMufuRcp: return 1.0 / x;
    case kMufuRsq: return 1.0 / std::sqrt(x);
    case kMufuSqrt: return std::sqrt(x);
    case kMufuSin: return std::sin(x);
    case kMufuCos: return std::cos(x);
    case kMufuTanh: return std::tanh(x);
    default: return x;
  }
}

// An integer of `format` read from a source (sign- or zero-extended), as a double for I2F.
bool format_signed(uint8_t f) { return f == kFmtS32 || f == kFmtS64 || f == kFmtS16 || f == kFmtS8; }
uint32_t format_bits(uint8_t f) {
  switch (f) {
    case kFmtF64: case kFmtS64: case kFmtU64: return 64;
    case kFmtF16: case kFmtBf16: case kFmtS16: case kFmtU16: return 16;
    case kFmtE4m3: case kFmtE5m2: case kFmtS8: case kFmtU8: return 8;
    default: return 32;
  }
}

// A float value rounded to an integer of `format`, saturating (NaN gives 0), as F2I does.
uint64_t float_to_int(double x, uint8_t format, Rounding r) {
  if (std::isnan(x)) return 0;
  switch (r) {
    case Rounding::kZero: x = std::trunc(x); break;
    case Rounding::kDown: x = std::floor(x); break;
    case Rounding::kUp: x = std::ceil(x); break;
    default: x = std::nearbyint(x); break;
  }
  const uint32_t bits = format_bits(format);
  if (format_signed(format)) {
    const double lo = -std::ldexp(1.0, static_cast<int>(bits) - 1), hi = std::ldexp(1.0, static_cast<int>(bits) - 1);
    if (x <= lo) return ptx::mask_bits(static_cast<uint64_t>(static_cast<int64_t>(lo)), bits);
    if (x >= hi) return ptx::mask_bits((uint64_t{1} << (bits - 1)) - 1, bits);
    return ptx::mask_bits(static_cast<uint64_t>(static_cast<int64_t>(x)), bits);
  }
  if (x <= 0) return 0;
  if (x >= std::ldexp(1.0, static_cast<int>(bits))) return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return static_cast<uint64_t>(x);
}

// An integer converted to f32 or f64 in rounding mode r (exact in long double for 64-bit inputs).
uint64_t int_to_float(uint64_t v, uint8_t from, uint8_t to, Rounding r) {
  const uint32_t bits = format_bits(from);
  const long double x = format_signed(from) ? static_cast<long double>(ptx::as_signed(v, bits)) : static_cast<long double>(ptx::mask_bits(v, bits));
  if (to == kFmtF64) return bits_of(static_cast<double>(ptx::round_directed(ptx::EmuOp::kAdd, r, 64, static_cast<double>(x), 0.0, 0.0)));
  // To f32: round the exact value (every 32-bit integer is exact in double) in mode r.
  if (bits <= 32) return bits_of(static_cast<float>(ptx::round_directed(ptx::EmuOp::kAdd, r, 32, static_cast<double>(x), 0.0, 0.0)));
  const auto& f = *ptx::find_float_format("f32");
  return ptx::encode_float(static_cast<double>(x), f, r, false);
}

uint64_t to_format(double x, uint8_t format, Rounding r, bool satfinite) {
  const char* name = format == kFmtF16 ? "f16" : format == kFmtBf16 ? "bf16" : format == kFmtE4m3 ? "e4m3" : format == kFmtE5m2 ? "e5m2" : "f32";
  return ptx::encode_float(x, *ptx::find_float_format(name), r, satfinite);
}
double from_format(uint64_t bits, uint8_t format) {
  const char* name = format == kFmtF16 ? "f16" : format == kFmtBf16 ? "bf16" : format == kFmtE4m3 ? "e4m3" : format == kFmtE5m2 ? "e5m2" : "f32";
  return ptx::decode_float(bits, *ptx::find_float_format(name));
}

uint64_t shift_funnel(const SassAlu& a, uint64_t lo, uint64_t shift, uint64_t hi) {
  const bool wide = a.flags & kFlag64, sign = a.flags & kFlagSigned;
  const uint64_t limit = wide ? 64 : 32;
  const uint64_t s = std::min<uint64_t>(lo32(shift), limit);
  const uint64_t value = uint64_t{lo32(hi)} << 32 | lo32(lo);
  uint64_t r;
  if (a.flags & kFlagLeft) {
    r = s >= 64 ? 0 : value << s;
  } else if (sign) {
    const auto v = static_cast<int64_t>(value);
    r = static_cast<uint64_t>(s >= 64 ? (v < 0 ? -1 : 0) : v >> s);
  } else {
    r = s >= 64 ? 0 : value >> s;
  }
  return (a.flags & kFlagHi) ? r >> 32 : lo32(r);
}

void fsetp(const SassAlu& a, double x, double y, const uint64_t* src, uint64_t* result) {
  const bool c = src[2] & 1;
  if (a.cmp == Cmp::kMin || a.cmp == Cmp::kMax) {
    // DSETP.MIN/MAX P, Q, a, b: P whether the min (max) is a, Q whether it is a NaN (ptxas's
    // SASS for fmin of doubles selects a's words where P holds, b's quieted where Q does): as
    // PTX's min/max, a NaN loses to a number, and -0 is below +0.
    const bool a_nan = std::isnan(x), b_nan = std::isnan(y);
    const bool below = x < y || (x == y && std::signbit(x) && !std::signbit(y));
    const bool above = x > y || (x == y && !std::signbit(x) && std::signbit(y));
    const bool same = x == y && std::signbit(x) == std::signbit(y);
    const bool takes_a = !a_nan && (b_nan || same || (a.cmp == Cmp::kMin ? below : above));
    result[0] = combine(a.boolop, takes_a, c);
    result[1] = combine(a.boolop, a_nan && b_nan, c);
    return;
  }
  const bool unordered = std::isnan(x) || std::isnan(y);
  const int order = x < y ? -1 : x > y ? 1 : 0;
  const bool t = compare_result(a.cmp, order, unordered);
  result[0] = combine(a.boolop, t, c);
  result[1] = combine(a.boolop, !t, c);
}

}  // namespace

void evaluate(const SassAlu& a, const uint64_t* s, const uint8_t* m, int n, uint64_t* r) {
  const bool ftz = a.flags & kFlagFtz;
  const Rounding rounding = rounding_of(a.rounding);
  switch (a.op) {
    case SassOp::kNone: return;
    case SassOp::kMov: r[0] = (a.flags & kFlag64) ? s[0] : int_source(s[0], m[0]) & 0xffffffffu; return;
    case SassOp::kIadd3: {
      if (a.flags & kFlagPacked16) {  // VIADD.16x2: each 16-bit half on its own, no carry between
        uint32_t out = 0;
        for (int h = 0; h < 2; ++h) {
          uint32_t part = 0;
          for (int i = 0; i < n && i < 3; ++i) {
            uint32_t v = (lo32(s[i]) >> (16 * h)) & 0xffff;
            if (m[i] & kModNeg) v = (0x10000 - v) & 0xffff;
            if (m[i] & kModNot) v = ~v & 0xffff;
            part += v;
          }
          out |= (part & 0xffff) << (16 * h);
        }
        r[0] = out;
        return;
      }
      uint64_t sum = int_source(s[0], m[0]) + int_source(s[1], m[1]) + int_source(s[2], m[2]);
      if (a.flags & kFlagX) sum += (s[3] & 1) + (n > 4 ? (s[4] & 1) : 0);
      r[0] = lo32(sum);
      r[1] = (sum >> 32) & 1;
      r[2] = (sum >> 33) & 1;
      return;
    }
    case SassOp::kImad: {
      uint64_t v = uint64_t{lo32(int_source(s[0], m[0]))} * lo32(int_source(s[1], m[1])) + int_source(s[2], m[2]);
      if (a.flags & kFlagX) v += s[3] & 1;
      r[0] = lo32(v);
      return;
    }
    case SassOp::kImadHi:
    case SassOp::kImadWide: {
      const uint32_t x = lo32(int_source(s[0], m[0])), y = lo32(int_source(s[1], m[1]));
      const uint64_t product = (a.flags & kFlagUnsigned) ? uint64_t{x} * y
                                                         : static_cast<uint64_t>(int64_t{static_cast<int32_t>(x)} * static_cast<int32_t>(y));
      const uint64_t c = int_source64(s[2], m[2]);
      if (a.op == SassOp::kImadWide) {
        r[0] = product + c;
        r[1] = r[0] < c;  // the carry out of bit 63 (unsigned)
        return;
      }
      // Bits 32-63 of the sum: a carry out of bit 63 does not reach them, so the 64-bit sum
      // (signed or not, the same bits) is enough.
      r[0] = lo32((product + c) >> 32);
      return;
    }
    case SassOp::kLea: {
      const uint64_t shifted = lo32(int_source(s[0], m[0]) << a.shift);
      const uint64_t sum = shifted + int_source(s[1], m[1]) + ((a.flags & kFlagX) && n > 2 ? (s[2] & 1) : 0);
      r[0] = lo32(sum);
      r[1] = (sum >> 32) & 1;
      return;
    }
    case SassOp::kLeaHi: {
      // d = b + the high word of (c:a << shift), c being a's sign with .SX32.
      const uint32_t lo = lo32(int_source(s[0], m[0]));
      const bool sx = a.flags & kFlagSx32;
      const uint32_t hi = sx ? ((lo & 0x80000000u) ? 0xffffffffu : 0) : lo32(s[2]);
      const uint64_t value = uint64_t{hi} << 32 | lo;
      const uint64_t high = lo32((value << a.shift) >> 32);
      const int carry_at = sx ? 2 : 3;
      const uint64_t sum = high + int_source(s[1], m[1]) + ((a.flags & kFlagX) && n > carry_at ? (s[carry_at] & 1) : 0);
      r[0] = lo32(sum);
      r[1] = (sum >> 32) & 1;
      return;
    }
    case SassOp::kLop3: {
      const uint32_t v = lut3(a.lut, lo32(int_source(s[0], m[0])), lo32(int_source(s[1], m[1])), lo32(int_source(s[2], m[2])));
      r[0] = v;
      r[1] = v != 0;
      return;
    }
    case SassOp::kPlop3: {
      const uint32_t x = (s[0] & 1) ? ~0u : 0, y = (s[1] & 1) ? ~0u : 0, z = (s[2] & 1) ? ~0u : 0;
      r[0] = lut3(a.lut, x, y, z) & 1;
      r[1] = lut3(a.lut2, x, y, z) & 1;
      return;
    }
    case SassOp::kShf: r[0] = shift_funnel(a, int_source(s[0], m[0]), s[1], int_source(s[2], m[2])); return;
    case SassOp::kIsetp: {
      const uint32_t x = lo32(int_source(s[0], m[0])), y = lo32(int_source(s[1], m[1]));
      int order;
      if (a.flags & kFlagUnsigned) order = x < y ? -1 : x > y ? 1 : 0;
      else order = static_cast<int32_t>(x) < static_cast<int32_t>(y) ? -1 : static_cast<int32_t>(x) > static_cast<int32_t>(y) ? 1 : 0;
      bool t = compare_result(a.cmp, order, false);
      // .EX: the high words of a 64-bit compare whose low words were compared (the same way,
      // unsigned) just before; that predicate is the last source and decides equal high words.
      if ((a.flags & kFlagEx) && order == 0) t = n > 3 && (s[3] & 1);
      const bool c = s[2] & 1;
      r[0] = combine(a.boolop, t, c);
      r[1] = combine(a.boolop, !t, c);
      return;
    }
    case SassOp::kFsetp:
      fsetp(a, f32(float_source(s[0], m[0], ftz)), f32(float_source(s[1], m[1], ftz)), s, r);
      return;
    case SassOp::kDsetp:
      fsetp(a, f64(double_source(s[0], m[0])), f64(double_source(s[1], m[1])), s, r);
      return;
    case SassOp::kSel: r[0] = (s[2] & 1) ? int_source(s[0], m[0]) : int_source(s[1], m[1]); r[0] = lo32(r[0]); return;
    case SassOp::kFsel: r[0] = (s[2] & 1) ? float_source(s[0], m[0], false) : float_source(s[1], m[1], false); return;
    case SassOp::kPrmt: r[0] = permute(lo32(s[0]), lo32(s[2]), lo32(s[1])); return;
    case SassOp::kFfma:
    case SassOp::kFadd:
    case SassOp::kFmul: {
      const float x = f32(float_source(s[0], m[0], ftz)), y = f32(float_source(s[1], m[1], ftz));
      const float z = a.op == SassOp::kFfma ? f32(float_source(s[2], m[2], ftz)) : 0.0f;
      float v;
      if (rounding == Rounding::kNearestEven) {
        v = a.op == SassOp::kFfma ? std::fmaf(x, y, z) : a.op == SassOp::kFadd ? x + y : x * y;
      } else {
        const ptx::EmuOp op = a.op == SassOp::kFfma ? ptx::EmuOp::kFma : a.op == SassOp::kFadd ? ptx::EmuOp::kAdd : ptx::EmuOp::kMul;
        v = static_cast<float>(ptx::round_directed(op, rounding, 32, x, y, z));
      }
      r[0] = bits_of(finish_float(v, a));
      return;
    }
    case SassOp::kFmnmx: {
      const float x = f32(float_source(s[0], m[0], ftz)), y = f32(float_source(s[1], m[1], ftz));
      float v;
      if (std::isnan(x)) v = y;
      else if (std::isnan(y)) v = x;
      else if (x == 0 && y == 0) v = (s[2] & 1) ? (std::signbit(x) ? x : y) : (std::signbit(x) ? y : x);  // min(-0, +0) = -0
      else v = (s[2] & 1) ? std::min(x, y) : std::max(x, y);
      r[0] = bits_of(v);
      return;
    }
    case SassOp::kDfma:
    case SassOp::kDadd:
    case SassOp::kDmul: {
      const double x = f64(double_source(s[0], m[0])), y = f64(double_source(s[1], m[1]));
      const double z = a.op == SassOp::kDfma ? f64(double_source(s[2], m[2])) : 0.0;
      double v;
      if (rounding == Rounding::kNearestEven) {
        v = a.op == SassOp::kDfma ? std::fma(x, y, z) : a.op == SassOp::kDadd ? x + y : x * y;
      } else {
        const ptx::EmuOp op = a.op == SassOp::kDfma ? ptx::EmuOp::kFma : a.op == SassOp::kDadd ? ptx::EmuOp::kAdd : ptx::EmuOp::kMul;
        v = ptx::round_directed(op, rounding, 64, x, y, z);
      }
      r[0] = bits_of(v);
      return;
    }
    case SassOp::kHfma2:
    case SassOp::kHadd2:
    case SassOp::kHmul2: {
      const uint32_t x = half2_source(s[0], m[0]), y = half2_source(s[1], m[1]);
      const uint32_t z = a.op == SassOp::kHfma2 ? half2_source(s[2], m[2]) : 0;
      float out[2];
      for (int h = 0; h < 2; ++h) {
        const float p = half_to_float(static_cast<uint16_t>(x >> (16 * h))), q = half_to_float(static_cast<uint16_t>(y >> (16 * h)));
        const float t = half_to_float(static_cast<uint16_t>(z >> (16 * h)));
        out[h] = a.op == SassOp::kHfma2 ? ((a.flags & kFlagF32Out) ? std::fmaf(p, q, t) : ptx::fma_rounded_to_odd(p, q, t))
                 : a.op == SassOp::kHadd2 ? p + q : p * q;
        if (a.flags & kFlagSat) out[h] = std::isnan(out[h]) ? 0.0f : std::clamp(out[h], 0.0f, 1.0f);
      }
      if (a.flags & kFlagF32Out) {
        r[0] = bits_of(out[0]);
        return;
      }
      auto half = [](float f) -> uint32_t { return std::isnan(f) ? 0x7fff : float_to_half(f); };
      r[0] = half(out[0]) | half(out[1]) << 16;
      return;
    }
    case SassOp::kMufu: {
      if (a.from == kMufuRcp64h || a.from == kMufuRsq64h) {
        // The high word of a double's reciprocal (square root): the low word reads as zero.
        const double x = f64(uint64_t{lo32(double_source(s[0], m[0]))} << 32);
        const double v = a.from == kMufuRcp64h ? 1.0 / x : 1.0 / std::sqrt(x);
        r[0] = bits_of(v) >> 32;
        return;
      }
      // The unit works on normal numbers: subnormal inputs and results are zeros of their sign
      // (ptxas scales the inputs of the IEEE forms around it, the compares against -126 before
      // an EX2).
      const float x = f32(float_source(s[0], m[0], true));
      r[0] = ptx::flush_subnormal32(bits_of(static_cast<float>(mufu(a.from, x))));
      return;
    }
    case SassOp::kF2f: {
      const double x = a.from == kFmtF64 ? f64(double_source(s[0], m[0])) : a.from == kFmtF32 ? f32(float_source(s[0], m[0], ftz))
                                                                                              : from_format(lo32(s[0]) & 0xffff, a.from);
      if (a.to == kFmtF64) r[0] = bits_of(x);
      else if (a.to == kFmtF32) r[0] = bits_of(finish_float(static_cast<float>(ptx::round_directed(ptx::EmuOp::kAdd, rounding, 32, x, 0.0, 0.0)), a));
      else r[0] = to_format(x, a.to, rounding, false);
      return;
    }
    case SassOp::kF2i: {
      const double x = a.from == kFmtF64 ? f64(double_source(s[0], m[0])) : f32(float_source(s[0], m[0], ftz));
      r[0] = float_to_int(x, a.to, (a.flags & kFlagTrunc) ? Rounding::kZero : rounding);
      return;
    }
    case SassOp::kI2f: r[0] = int_to_float(s[0], a.from, a.to, rounding); return;
    case SassOp::kF2fp: {
      if (a.flags & kFlagUnpack) {  // FP8 x2 (the low 16 bits of b) to f16x2
        uint32_t v = lo32(s[n - 1]);
        if (m[n - 1] & (kModH1Only | kModH1)) v >>= 16;  // .H1: the upper pair
        const uint32_t h0 = static_cast<uint32_t>(to_format(from_format(v & 0xff, a.from), kFmtF16, Rounding::kNearestEven, false));
        const uint32_t h1 = static_cast<uint32_t>(to_format(from_format((v >> 8) & 0xff, a.from), kFmtF16, Rounding::kNearestEven, false));
        r[0] = h0 | h1 << 16;
        return;
      }
      const bool sat = a.flags & kFlagSat;
      const double hi = f32(float_source(s[0], m[0], false)), lo = f32(float_source(s[1], m[1], false));
      const uint32_t width = format_bits(a.to);
      const uint64_t h = to_format(hi, a.to, rounding, sat), l = to_format(lo, a.to, rounding, sat);
      uint64_t v = l | h << width;
      if (width == 8) v |= n > 2 ? (lo32(s[2]) & 0xffff0000u) : 0;  // PACK_AB_MERGE_C: c keeps the upper half
      r[0] = lo32(v);
      return;
    }
    case SassOp::kFrnd: {
      const bool wide = a.from == kFmtF64;
      double x = wide ? f64(double_source(s[0], m[0])) : f32(float_source(s[0], m[0], ftz));
      switch ((a.flags & kFlagTrunc) ? Rounding::kZero : rounding) {
        case Rounding::kZero: x = std::trunc(x); break;
        case Rounding::kDown: x = std::floor(x); break;
        case Rounding::kUp: x = std::ceil(x); break;
        default: x = std::nearbyint(x); break;
      }
      r[0] = wide ? bits_of(x) : bits_of(static_cast<float>(x));
      return;
    }
    case SassOp::kFchk: {
      // Whether a / b by reciprocal and refinement could go wrong: a divisor that is zero,
      // subnormal, infinite or NaN, a dividend that is infinite or NaN, or a quotient near the
      // ends of the exponent range. The GPU's exact test is not documented; the slow path it
      // guards is always right, so this errs toward it.
      const float x = f32(s[0]), y = f32(s[1]);
      auto exponent = [](float f) { return static_cast<int>((std::bit_cast<uint32_t>(f) >> 23) & 0xff); };
      const bool bad_y = !std::isnormal(y), bad_x = !std::isfinite(x) || (x != 0 && !std::isnormal(x));
      const int e = exponent(x) - exponent(y);
      r[0] = bad_y || bad_x || (x != 0 && (e >= 126 || e <= -125));
      return;
    }
    case SassOp::kIabs: {
      const auto x = static_cast<int32_t>(lo32(s[0]));
      r[0] = lo32(static_cast<uint64_t>(x < 0 ? -static_cast<int64_t>(x) : x));
      return;
    }
    case SassOp::kImnmx:
    case SassOp::kViaddmnmx:
    case SassOp::kImnmx3: {
      const bool is_min = s[n - 1] & 1;
      if (a.op == SassOp::kImnmx && (a.flags & kFlagPacked16)) {  // VIMNMX.{S,U}16x2: per 16-bit half
        uint32_t out = 0;
        for (int h = 0; h < 2; ++h) {
          const uint32_t x = (lo32(s[0]) >> (16 * h)) & 0xffff, y = (lo32(s[1]) >> (16 * h)) & 0xffff;
          uint32_t v;
          if (a.flags & kFlagUnsigned) {
            v = is_min ? std::min(x, y) : std::max(x, y);
          } else {
            const auto p = static_cast<int16_t>(x), q = static_cast<int16_t>(y);
            v = static_cast<uint16_t>(is_min ? std::min(p, q) : std::max(p, q));
          }
          out |= v << (16 * h);
        }
        r[0] = out;
        return;
      }
      auto pick = [&](uint32_t x, uint32_t y) -> uint32_t {
        if (a.flags & kFlagUnsigned) return is_min ? std::min(x, y) : std::max(x, y);
        const auto p = static_cast<int32_t>(x), q = static_cast<int32_t>(y);
        return static_cast<uint32_t>(is_min ? std::min(p, q) : std::max(p, q));
      };
      const uint32_t x = lo32(int_source(s[0], m[0])), y = lo32(int_source(s[1], m[1]));
      if (a.op == SassOp::kImnmx) r[0] = pick(x, y);
      else if (a.op == SassOp::kViaddmnmx) r[0] = pick(x + y, lo32(int_source(s[2], m[2])));
      else r[0] = pick(pick(x, y), lo32(int_source(s[2], m[2])));
      return;
    }
    case SassOp::kFlo: {
      const uint32_t x = lo32(int_source(s[0], m[0]));
      const int top = x ? 31 - std::countl_zero(x) : -1;
      r[0] = top < 0 ? 0xffffffffu : (a.flags & kFlagSh) ? static_cast<uint32_t>(31 - top) : static_cast<uint32_t>(top);
      return;
    }
    case SassOp::kPopc: r[0] = static_cast<uint64_t>(std::popcount(lo32(int_source(s[0], m[0])))); return;
    case SassOp::kBrev: r[0] = [](uint32_t x) {
        uint32_t y = 0;
        for (int i = 0; i < 32; ++i) y |= ((x >> i) & 1) << (31 - i);
        return y;
      }(lo32(s[0]));
      return;
    case SassOp::kBmsk: {
      const uint32_t pos = lo32(s[0]) & 31, width = std::min<uint32_t>(lo32(s[1]), 32);
      const uint64_t ones = width >= 32 ? 0xffffffffull : (uint64_t{1} << width) - 1;
      r[0] = lo32(ones << pos);
      return;
    }
    case SassOp::kP2r: {  // sources: the seven predicates' bits (packed by the emulator), the register, the mask
      const uint32_t mask = lo32(s[2]);
      r[0] = (lo32(s[1]) & ~mask) | (lo32(s[0]) & mask);
      return;
    }
    case SassOp::kR2p: {  // the register's bits, masked, for the seven predicates
      r[0] = lo32(s[0]) & lo32(s[1]) & 0x7f;
      return;
    }
    case SassOp::kVabsdiff4: {
      // Per byte |a - b|: packed into the result's bytes, or (.ACC) summed and added to c.
      const uint32_t x = lo32(s[0]), y = lo32(s[1]);
      uint32_t sum = 0, packed = 0;
      for (int i = 0; i < 4; ++i) {
        const int p = static_cast<int>((x >> (8 * i)) & 0xff), q = static_cast<int>((y >> (8 * i)) & 0xff);
        const auto d = static_cast<uint32_t>(std::abs(p - q));
        sum += d;
        packed |= d << (8 * i);
      }
      r[0] = (a.flags & kFlagAcc) ? sum + lo32(s[2]) : packed;
      return;
    }
  }
}

}  // namespace warpsim::sass
