#include "frontend/ptx/value_bits.h"

#include <bit>
#include <cmath>
#include <limits>

namespace warpsim::ptx {

namespace {

// The OCP microscaling formats E2M1 (FP4), E3M2 and E2M3 (FP6): sign, exponent and mantissa,
// subnormals at exponent 0, no infinities or NaNs (OCP MX specification v1.0).
double minifloat_value(uint64_t bits, uint32_t exponent_bits, uint32_t mantissa_bits) {
  const uint32_t width = 1 + exponent_bits + mantissa_bits, bias = (1u << (exponent_bits - 1)) - 1;
  const uint32_t m = static_cast<uint32_t>(bits & ((1u << mantissa_bits) - 1));
  const uint32_t e = static_cast<uint32_t>((bits >> mantissa_bits) & ((1u << exponent_bits) - 1));
  const double sign = (bits >> (width - 1)) & 1 ? -1.0 : 1.0, scale = 1u << mantissa_bits;
  return sign * (e == 0 ? std::ldexp(m / scale, 1 - static_cast<int>(bias)) : std::ldexp(1.0 + m / scale, static_cast<int>(e) - static_cast<int>(bias)));
}

}  // namespace

double matrix_element_value(const std::string& type, uint64_t bits) {
  if (type == "e2m1") return minifloat_value(bits, 2, 1);
  if (type == "e3m2") return minifloat_value(bits, 3, 2);
  if (type == "e2m3") return minifloat_value(bits, 2, 3);
  if (type == "f16") return half_to_float(static_cast<uint16_t>(bits));
  if (type == "bf16") return std::bit_cast<float>(static_cast<uint32_t>(bits & 0xffff) << 16);
  if (type == "tf32") return std::bit_cast<float>(static_cast<uint32_t>(bits) & 0xffffe000u);
  if (type == "s8") return static_cast<int8_t>(bits & 0xff);
  if (type == "u8") return static_cast<double>(bits & 0xff);
  if (type == "e5m2") return half_to_float(static_cast<uint16_t>((bits & 0xff) << 8));
  const uint32_t byte = static_cast<uint32_t>(bits & 0xff), e = (byte >> 3) & 0xf, m = byte & 7;  // e4m3
  if (e == 15 && m == 7) return std::numeric_limits<double>::quiet_NaN();
  const double sign = (byte & 0x80) ? -1.0 : 1.0;
  return sign * (e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, static_cast<int>(e) - 7));
}

ValueType value_type(const std::string& t) {
  if (t == "pred") return ValueType{'p', 1, 1};
  if (t == "bf16") return ValueType{'h', 16, 1};
  if (t == "bf16x2") return ValueType{'h', 16, 2};
  if (t == "f16x2") return ValueType{'f', 16, 2};
  if (t == "s16x2" || t == "u16x2") return ValueType{t[0], 16, 2};
  if (t == "ue8m0x2") return ValueType{'b', 8, 2};  // two UE8M0 exponents (cvt only)
  size_t x = t.find('x');
  return ValueType{t[0], static_cast<uint32_t>(std::stoul(t.substr(1, x == std::string::npos ? std::string::npos : x - 1))), 1};
}

CmpOp cmp_op(const std::string& name) {
  static const std::pair<const char*, CmpOp> kNames[] = {
      {"eq", CmpOp::kEq},   {"ne", CmpOp::kNe},   {"lt", CmpOp::kLt},   {"le", CmpOp::kLe},   {"gt", CmpOp::kGt},
      {"ge", CmpOp::kGe},   {"equ", CmpOp::kEqu}, {"neu", CmpOp::kNeu}, {"ltu", CmpOp::kLtu}, {"leu", CmpOp::kLeu},
      {"gtu", CmpOp::kGtu}, {"geu", CmpOp::kGeu}, {"num", CmpOp::kNum}, {"nan", CmpOp::kNan}, {"lo", CmpOp::kLo},
      {"ls", CmpOp::kLs},   {"hi", CmpOp::kHi},   {"hs", CmpOp::kHs}};
  for (const auto& [n, op] : kNames) {
    if (name == n) return op;
  }
  return CmpOp::kNone;
}

bool compare(CmpOp cmp, ValueType t, uint64_t a, uint64_t b) {
  if (t.kind == 'f' || t.kind == 'h') {
    const double x = as_float(a, t.bits, t.kind == 'h'), y = as_float(b, t.bits, t.kind == 'h');
    const bool nan = std::isnan(x) || std::isnan(y);
    switch (cmp) {
      case CmpOp::kEq: return !nan && x == y;
      case CmpOp::kNe: return !nan && x != y;
      case CmpOp::kLt: return !nan && x < y;
      case CmpOp::kLe: return !nan && x <= y;
      case CmpOp::kGt: return !nan && x > y;
      case CmpOp::kGe: return !nan && x >= y;
      case CmpOp::kEqu: return nan || x == y;
      case CmpOp::kNeu: return nan || x != y;
      case CmpOp::kLtu: return nan || x < y;
      case CmpOp::kLeu: return nan || x <= y;
      case CmpOp::kGtu: return nan || x > y;
      case CmpOp::kGeu: return nan || x >= y;
      case CmpOp::kNum: return !nan;
      case CmpOp::kNan: return nan;
      default: return false;
    }
  }
  const bool is_signed = t.kind == 's';
  const int64_t sx = as_signed(a, t.bits), sy = as_signed(b, t.bits);
  const uint64_t ux = mask_bits(a, t.bits), uy = mask_bits(b, t.bits);
  switch (cmp) {
    case CmpOp::kEq: return ux == uy;
    case CmpOp::kNe: return ux != uy;
    case CmpOp::kLt: return is_signed ? sx < sy : ux < uy;
    case CmpOp::kLe: return is_signed ? sx <= sy : ux <= uy;
    case CmpOp::kGt: return is_signed ? sx > sy : ux > uy;
    case CmpOp::kGe: return is_signed ? sx >= sy : ux >= uy;
    case CmpOp::kLo: return ux < uy;
    case CmpOp::kLs: return ux <= uy;
    case CmpOp::kHi: return ux > uy;
    case CmpOp::kHs: return ux >= uy;
    default: return false;
  }
}

uint32_t compare_halves(CmpOp cmp, ValueType t, uint64_t a, uint64_t b, bool flush) {
  uint32_t result = 0;
  for (uint32_t h = 0; h < 2; ++h) {
    uint64_t x = (a >> (16 * h)) & 0xffff, y = (b >> (16 * h)) & 0xffff;
    if (flush) x = flush_subnormal16(x), y = flush_subnormal16(y);
    result |= static_cast<uint32_t>(compare(cmp, t, x, y)) << h;
  }
  return result;
}

}  // namespace warpsim::ptx
