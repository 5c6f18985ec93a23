// Registers hold raw bits; an instruction's type says how to read them. These helpers convert
// between the bits and the values the emulator computes with.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "common/half.h"
#include "frontend/ptx/program.h"

namespace warpsim::ptx {

using Type = ValueType;

inline uint64_t mask_bits(uint64_t v, uint32_t bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }
// .ftz (PTX ISA, "Floating Point Instructions"): an f32 subnormal, exponent bits 0 and fraction
// not 0, becomes the zero of its sign; other values pass unchanged.
inline uint64_t flush_subnormal32(uint64_t bits) { return (bits & 0x7f800000u) == 0 ? bits & 0x80000000u : bits & 0xffffffffu; }
// The same for an IEEE half (exponent bits 14-10): .ftz on f16 and f16x2 arithmetic.
inline uint64_t flush_subnormal16(uint64_t bits) { return (bits & 0x7c00u) == 0 ? bits & 0x8000u : bits & 0xffffu; }
// Inline: called per lane in the emulator's arithmetic.
inline int64_t as_signed(uint64_t v, uint32_t bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t m = 1ull << (bits - 1);
  v = mask_bits(v, bits);
  return static_cast<int64_t>((v ^ m) - m);
}
// 16-bit floats are IEEE half, or bfloat16 when `brain` (the top half of an f32).
inline double as_float(uint64_t v, uint32_t bits, bool brain = false) {
  if (bits == 64) return std::bit_cast<double>(v);
  if (bits == 16) return brain ? std::bit_cast<float>(static_cast<uint32_t>(v & 0xffff) << 16) : half_to_float(static_cast<uint16_t>(v));
  return std::bit_cast<float>(static_cast<uint32_t>(v));
}
inline uint64_t from_float(double d, uint32_t bits, bool brain = false) {
  if (bits == 64) return std::bit_cast<uint64_t>(d);
  if (bits == 16) {
    if (!brain) return float_to_half(static_cast<float>(d));
    uint32_t x = std::bit_cast<uint32_t>(static_cast<float>(d));
    x += 0x7fff + ((x >> 16) & 1);  // round to nearest even
    return x >> 16;
  }
  return std::bit_cast<uint32_t>(static_cast<float>(d));
}

// Fixed-size copies compile to single moves; a memcpy of a run-time size is a library call, and
// loads and stores are the emulator's commonest instructions.
inline uint64_t load_bits(const uint8_t* p, uint32_t size) {
  switch (size) {
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case 8: { uint64_t v; std::memcpy(&v, p, 8); return v; }
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 1: return *p;
    default: { uint64_t v = 0; std::memcpy(&v, p, std::min<uint32_t>(size, 8)); return v; }
  }
}

inline void store_bits(uint8_t* p, uint64_t v, uint32_t size) {
  switch (size) {
    case 4: { auto x = static_cast<uint32_t>(v); std::memcpy(p, &x, 4); return; }
    case 8: std::memcpy(p, &v, 8); return;
    case 2: { auto x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); return; }
    case 1: *p = static_cast<uint8_t>(v); return;
    default: std::memcpy(p, &v, std::min<uint32_t>(size, 8));
  }
}

// A tensor-core operand element of PTX type `type` (f16, bf16, tf32, e4m3, e5m2, s8, u8) from
// its bits. TF32 ignores its 13 low mantissa bits (PTX ISA); e5m2 is the top byte of an FP16;
// e4m3 has bias 7, no infinities, and S.1111.111 is NaN.
double matrix_element_value(const std::string& type, uint64_t bits);
// Bytes an element takes in shared memory's layouts: FP4 and FP6 (e2m1, e3m2, e2m3) count as one,
// since tcgen05's kind::f8f6f4 keeps 16 of them in each 16-byte chunk (matrix_element_bits).
inline uint32_t matrix_element_bytes(const std::string& type) {
  return type == "tf32" ? 4 : (type == "f16" || type == "bf16") ? 2 : 1;
}
inline uint32_t matrix_element_bits(const std::string& type) {
  return type == "e2m1" ? 4 : (type == "e3m2" || type == "e2m3") ? 6 : 8 * matrix_element_bytes(type);
}

// A PTX type name (f32, bf16, f16x2, s8, u64, pred, ...) as a ValueType.
ValueType value_type(const std::string& name);

// The comparison a setp/set modifier names (eq, lt, ltu, lo, ...); kNone for anything else.
CmpOp cmp_op(const std::string& name);
// setp/set comparison `cmp` of a and b read as type t (false for one the type lacks: lo on floats,
// ltu on integers). For a packed type (f16x2, bf16x2) it compares the low halves.
bool compare(CmpOp cmp, ValueType t, uint64_t a, uint64_t b);
// setp/set's optional BoolOp (and, or, xor) applied to a comparison's result and predicate c.
inline bool combine_predicate(std::string_view op, bool t, bool c) { return op == "and" ? t && c : op == "or" ? t || c : t != c; }
// Both halves of a packed f16x2/bf16x2 comparison (PTX ISA, "Half Precision Comparison
// Instructions"): bit h of the result is half h's, each half flushed first when `flush` (.ftz).
uint32_t compare_halves(CmpOp cmp, ValueType t, uint64_t a, uint64_t b, bool flush);

// An arrival on an mbarrier as Ampere keeps it in shared memory (its SASS: mbarrier.init stores
// {0x40000000 - n, 0x80000000 - n} for n expected arrivals; cp.async.mbarrier.arrive adds minus
// the warp's lane count to the high word, ARRIVES.LDGSTSBAR.64 and ATOMS.ARRIVE.64 arrive;
// test_wait compares the high word's bit 31 with the arrive's token): the high word counts up
// by `arrivals`, and when its bit 31 flips the phase is complete and the next phase's count,
// the low word plus 0x40000000, is loaded below that bit. ptxas's SASS for
// traces/kernels/async_barrier.cu is where this layout was read; it is not documented.
inline uint64_t ampere_mbarrier_arrive(uint64_t word, uint64_t arrivals) {
  const auto low = static_cast<uint32_t>(word), high = static_cast<uint32_t>(word >> 32);
  uint32_t next = high + static_cast<uint32_t>(arrivals);
  if ((next ^ high) & 0x80000000u) next = (next & 0x80000000u) | ((low + 0x40000000u) & 0x7fffffffu);
  return uint64_t{next} << 32 | low;
}
inline constexpr std::string_view kAmpereArrive = "arrive.sm80";  // atom_op for the above

// An atomic's or a reduction's new value: op (add, min, max, exch, and, or, xor, inc, dec; PTX
// ISA "atom"; kAmpereArrive) applied to the old value and the operand, in the element type (f16
// and bf16 sums rounded back to 16 bits). cas is the caller's.
inline uint64_t combine_bits(std::string_view op, ValueType type, uint64_t old, uint64_t v) {
  if (type.kind == 'f' || type.kind == 'h') {
    const bool brain = type.kind == 'h';
    const double x = as_float(old, type.bits, brain), y = as_float(v, type.bits, brain);
    if (op == "add") return from_float(x + y, type.bits, brain);
    if (op == "min") return from_float(std::fmin(x, y), type.bits, brain);
    if (op == "max") return from_float(std::fmax(x, y), type.bits, brain);
    return op == "exch" ? v : old;
  }
  const bool sg = type.kind == 's';
  const int64_t so = as_signed(old, type.bits), sv = as_signed(v, type.bits);
  const uint64_t uo = mask_bits(old, type.bits), uv = mask_bits(v, type.bits);
  if (op == "add") return uo + uv;
  if (op == "min") return sg ? static_cast<uint64_t>(std::min(so, sv)) : std::min(uo, uv);
  if (op == "max") return sg ? static_cast<uint64_t>(std::max(so, sv)) : std::max(uo, uv);
  if (op == "exch") return uv;
  if (op == "and") return uo & uv;
  if (op == "or") return uo | uv;
  if (op == "xor") return uo ^ uv;
  if (op == "inc") return uo >= uv ? 0 : uo + 1;
  if (op == "dec") return (uo == 0 || uo > uv) ? uv : uo - 1;
  if (op == kAmpereArrive) return ampere_mbarrier_arrive(old, uv);
  return old;
}

}  // namespace warpsim::ptx
