#include "frontend/ptx/value_bits.h"

#include <bit>
#include <cmath>
#include <limits>

namespace warpsim::ptx {

double matrix_element_value(const std::string& type, uint64_t bits) {
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

bool compare(const std::string& cmp, ValueType t, uint64_t a, uint64_t b) {
  if (t.kind == 'f') {
    double x = as_float(a, t.bits), y = as_float(b, t.bits);
    bool nan = std::isnan(x) || std::isnan(y);
    if (cmp == "eq") return !nan && x == y;
    if (cmp == "ne") return !nan && x != y;
    if (cmp == "lt") return !nan && x < y;
    if (cmp == "le") return !nan && x <= y;
    if (cmp == "gt") return !nan && x > y;
    if (cmp == "ge") return !nan && x >= y;
    if (cmp == "equ") return nan || x == y;
    if (cmp == "neu") return nan || x != y;
    if (cmp == "ltu") return nan || x < y;
    if (cmp == "leu") return nan || x <= y;
    if (cmp == "gtu") return nan || x > y;
    if (cmp == "geu") return nan || x >= y;
    if (cmp == "num") return !nan;
    if (cmp == "nan") return nan;
    return false;
  }
  bool is_signed = t.kind == 's';
  int64_t sx = as_signed(a, t.bits), sy = as_signed(b, t.bits);
  uint64_t ux = mask_bits(a, t.bits), uy = mask_bits(b, t.bits);
  if (cmp == "eq") return ux == uy;
  if (cmp == "ne") return ux != uy;
  if (cmp == "lt") return is_signed ? sx < sy : ux < uy;
  if (cmp == "le") return is_signed ? sx <= sy : ux <= uy;
  if (cmp == "gt") return is_signed ? sx > sy : ux > uy;
  if (cmp == "ge") return is_signed ? sx >= sy : ux >= uy;
  if (cmp == "lo") return ux < uy;
  if (cmp == "ls") return ux <= uy;
  if (cmp == "hi") return ux > uy;
  if (cmp == "hs") return ux >= uy;
  return false;
}

}  // namespace warpsim::ptx
