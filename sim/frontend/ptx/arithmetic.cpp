// Per-lane arithmetic and logic: FP16/BF16 (packed or not), FP32/FP64 and integer operations,
// each lane computed from its own registers.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>

#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/directed_rounding.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {

// The commonest 32-bit operations on registers and immediates, without the general path's
// per-lane dispatch. Results are the general path's: a float add, subtract, multiply or fma
// rounds once either way (double rounding through double is innocuous for these, 53 >= 2*24+2).
bool CtaEmulator::arithmetic_fast32(WarpState& w, const EmuInst& in, uint32_t exec) {
  const Type t = in.type;
  if (t.bits != 32 || t.packed != 1 || in.wide || in.hi || in.carry_in || in.carry_out || in.saturate) return false;
  if (in.rounding != Rounding::kNearestEven) return false;  // .rz/.rm/.rp: directed_rounding.cpp
  const bool is_float = t.kind == 'f';
  if (!is_float && t.kind != 's' && t.kind != 'u' && t.kind != 'b') return false;
  const EmuOp code = in.code;
  size_t sources = 0;
  switch (code) {
    case EmuOp::kAdd: case EmuOp::kSub: case EmuOp::kMul: sources = 2; break;
    case EmuOp::kFma: case EmuOp::kMad: sources = 3; break;
    case EmuOp::kAnd: case EmuOp::kOr: case EmuOp::kXor: sources = is_float ? 0 : 2; break;
    default: break;
  }
  const auto& ops = in.operands;
  if (sources == 0 || ops.size() < sources + 1 || ops[0].kind != EmuOperand::Kind::kReg) return false;
  const int32_t d = ops[0].reg;
  if (launch_.program->storage_bits[static_cast<size_t>(d)] != 32) return false;
  for (size_t i = 1; i <= sources; ++i) {
    const EmuOperand& o = ops[i];
    if (!((o.kind == EmuOperand::Kind::kReg && !o.negated) || o.kind == EmuOperand::Kind::kImm)) return false;
  }
  RegisterFile& regs = w.regs;
  uint32_t* out = regs.lanes32(d);  // the destination is 32-bit (checked above)
  const bool ftz = is_float && in.ftz;
  auto value = [&](const EmuOperand& o, uint32_t l) {
    const auto v = static_cast<uint32_t>(o.kind == EmuOperand::Kind::kReg ? regs.get(o.reg, l) : o.bits);
    return ftz ? static_cast<uint32_t>(flush_subnormal32(v)) : v;
  };
  const EmuOperand &x_op = ops[1], &y_op = ops[2], &z_op = ops[sources == 3 ? 3 : 2];
  for_lanes(exec, [&](uint32_t l) {
    const uint32_t a = value(x_op, l), b = value(y_op, l);
    uint32_t r = 0;
    if (is_float) {
      const float x = std::bit_cast<float>(a), y = std::bit_cast<float>(b);
      float z = 0;
      switch (code) {
        case EmuOp::kAdd: z = x + y; break;
        case EmuOp::kSub: z = x - y; break;
        case EmuOp::kMul: z = x * y; break;
        default: z = std::fmaf(x, y, std::bit_cast<float>(value(z_op, l))); break;
      }
      r = std::bit_cast<uint32_t>(z);
      if (ftz) r = static_cast<uint32_t>(flush_subnormal32(r));
    } else {
      switch (code) {
        case EmuOp::kAdd: r = a + b; break;
        case EmuOp::kSub: r = a - b; break;
        case EmuOp::kMul: r = a * b; break;
        case EmuOp::kMad: case EmuOp::kFma: r = a * b + value(z_op, l); break;
        case EmuOp::kAnd: r = a & b; break;
        case EmuOp::kOr: r = a | b; break;
        default: r = a ^ b; break;
      }
    }
    out[l] = r;
  });
  return true;
}

void CtaEmulator::arithmetic(WarpState& w, const EmuInst& in, uint32_t exec) {
  if (arithmetic_fast32(w, in, exec)) return;
  const auto& ops = in.operands;
  const Type type = in.type;
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  auto dst_reg = [&](size_t i = 0) { return ops.at(i).kind == EmuOperand::Kind::kReg ? ops[i].reg : -1; };
  // Arithmetic and logic, one lane at a time.
  const EmuOp code = in.code;
  const int32_t d = dst_reg();
  const bool ftz32 = in.ftz && type.kind == 'f' && type.bits == 32;
  lanes([&](uint32_t l) {
    auto arg = [&](size_t i) { return read_flushed(w, ops[i], l, ftz32); };
    uint64_t r = 0;
    if (type.bits == 16 && (type.kind == 'f' || type.kind == 'h')) {
      // Half precision, one or two packed elements, each computed in float and rounded back.
      const bool brain = type.kind == 'h';
      const bool ftz16 = in.ftz && !brain;  // .ftz exists on f16 forms only
      for (uint32_t e = 0; e < type.packed; ++e) {
        auto f = [&](size_t i) {
          const uint64_t element = (arg(i) >> (16 * e)) & 0xffff;
          return static_cast<float>(as_float(ftz16 ? flush_subnormal16(element) : element, 16, brain));
        };
        float x = 0;
        switch (code) {
          case EmuOp::kAdd: x = f(1) + f(2); break;
          case EmuOp::kSub: x = f(1) - f(2); break;
          case EmuOp::kMul: x = f(1) * f(2); break;
          case EmuOp::kFma: case EmuOp::kMad: x = fma_rounded_to_odd(f(1), f(2), f(3)); break;
          case EmuOp::kMin:
          case EmuOp::kMax: x = static_cast<float>(min_max(in, f(1), f(2), ops.size() > 3 ? f(3) : NAN, ops.size() > 3)); break;
          case EmuOp::kAbs: x = std::fabs(f(1)); break;
          case EmuOp::kNeg: x = -f(1); break;
          case EmuOp::kEx2: x = std::exp2(f(1)); break;
          case EmuOp::kRcp: x = 1.0f / f(1); break;
          case EmuOp::kSqrt: x = std::sqrt(f(1)); break;
          case EmuOp::kTanh: x = std::tanh(f(1)); break;
          default: fault(in, w, l, "the emulator has no half-precision form of this instruction");
        }
        x = static_cast<float>(modified(in, x));
        const uint64_t element = std::isnan(x) ? 0x7fffull : from_float(x, 16, brain);  // NaN results are canonical
        r |= (ftz16 ? flush_subnormal16(element) : element) << (16 * e);
      }
    } else if (type.kind == 'f' && in.rounding != Rounding::kNearestEven && in.rounding != Rounding::kNearestAway &&
               (code == EmuOp::kAdd || code == EmuOp::kSub || code == EmuOp::kMul || code == EmuOp::kDiv || code == EmuOp::kFma ||
                code == EmuOp::kMad || code == EmuOp::kSqrt || code == EmuOp::kRcp)) {
      auto f = [&](size_t i) { return i < ops.size() ? as_float(arg(i), type.bits) : 0.0; };
      r = from_float(modified(in, round_directed(code, in.rounding, type.bits, f(1), f(2), f(3))), type.bits);
      if (ftz32) r = flush_subnormal32(r);
    } else if (type.kind == 'f') {
      auto f = [&](size_t i) { return as_float(arg(i), type.bits); };
      double x = 0;
      switch (code) {
        case EmuOp::kAdd: x = f(1) + f(2); break;
        case EmuOp::kSub: x = f(1) - f(2); break;
        case EmuOp::kMul: x = f(1) * f(2); break;
        case EmuOp::kDiv: x = f(1) / f(2); break;
        case EmuOp::kFma:
        case EmuOp::kMad:
          x = type.bits == 64 ? std::fma(f(1), f(2), f(3))
                              : static_cast<double>(std::fmaf(static_cast<float>(f(1)), static_cast<float>(f(2)), static_cast<float>(f(3))));
          break;
        case EmuOp::kMin:
        case EmuOp::kMax: x = min_max(in, f(1), f(2), ops.size() > 3 ? f(3) : NAN, ops.size() > 3); break;
        case EmuOp::kAbs: x = std::fabs(f(1)); break;
        case EmuOp::kNeg: x = -f(1); break;
        case EmuOp::kSqrt: x = std::sqrt(f(1)); break;
        case EmuOp::kRsqrt: x = 1.0 / std::sqrt(f(1)); break;
        case EmuOp::kRcp: x = 1.0 / f(1); break;
        case EmuOp::kEx2: x = std::exp2(f(1)); break;
        case EmuOp::kLg2: x = std::log2(f(1)); break;
        case EmuOp::kSin: x = std::sin(f(1)); break;
        case EmuOp::kCos: x = std::cos(f(1)); break;
        case EmuOp::kTanh: x = std::tanh(f(1)); break;
        case EmuOp::kCopysign: x = std::copysign(f(2), f(1)); break;  // copysign d, a, b: b's magnitude, a's sign
        default: fault(in, w, l, "the emulator has no float form of this instruction");
      }
      if (type.bits == 32) x = static_cast<float>(x);  // round each operation to single precision
      r = from_float(modified(in, x), type.bits);
      if (ftz32) r = flush_subnormal32(r);
    } else if (type.packed == 2) {
      // .s16x2/.u16x2: add, sub, min and max (.relu on signed) on each half alone
      for (uint32_t e = 0; e < 2; ++e) {
        auto half = [&](size_t i) {
          const uint64_t v = (arg(i) >> (16 * e)) & 0xffff;
          return type.kind == 's' ? as_signed(v, 16) : static_cast<int64_t>(v);
        };
        int64_t v = 0;
        switch (code) {
          case EmuOp::kAdd: v = half(1) + half(2); break;
          case EmuOp::kSub: v = half(1) - half(2); break;
          case EmuOp::kMin: v = std::min(half(1), half(2)); break;
          case EmuOp::kMax: v = std::max(half(1), half(2)); break;
          default: fault(in, w, l, "the emulator has no packed 16-bit integer form of this instruction");
        }
        if (in.relu && v < 0) v = 0;
        r |= (static_cast<uint64_t>(v) & 0xffff) << (16 * e);
      }
    } else {
      const uint32_t bits = type.bits;
      const bool sg = type.kind == 's';
      auto u = [&](size_t i) { return mask_bits(arg(i), bits); };
      auto si = [&](size_t i) { return as_signed(arg(i), bits); };
      if (in.saturate && sg && bits == 32 && (code == EmuOp::kAdd || code == EmuOp::kSub || code == EmuOp::kMad)) {
        // add.sat.s32, sub.sat.s32, mad.hi.sat.s32: computed exactly, then clamped to 32 bits
        const int64_t exact = code == EmuOp::kAdd ? si(1) + si(2) : code == EmuOp::kSub ? si(1) - si(2) : ((si(1) * si(2)) >> 32) + si(3);
        write(w, d, l, static_cast<uint64_t>(std::clamp<int64_t>(exact, INT32_MIN, INT32_MAX)));
        return;
      }
      if (in.carry_in || in.carry_out) {
        r = with_carry(w, in, l, u(1), u(2), code == EmuOp::kMad ? u(3) : 0);
        write(w, d, l, r);
        return;
      }
      switch (code) {
        case EmuOp::kAdd: r = u(1) + u(2); break;
        case EmuOp::kSub: r = u(1) - u(2); break;
        case EmuOp::kMul:
        case EmuOp::kMad:
          if (in.wide) {
            r = sg ? static_cast<uint64_t>(si(1) * si(2)) : u(1) * u(2);
          } else if (in.hi) {
            __int128_t p = sg ? static_cast<__int128_t>(si(1)) * si(2) : static_cast<__int128_t>(static_cast<__uint128_t>(u(1)) * u(2));
            r = static_cast<uint64_t>(p >> bits);
          } else {
            r = u(1) * u(2);
          }
          if (code == EmuOp::kMad) r += in.wide ? arg(3) : u(3);
          break;
        // The PTX ISA leaves x / 0 machine-specific; the most negative value / -1 wraps to itself
        // (remainder 0), as in two's complement, where the host's division would trap.
        case EmuOp::kDiv: r = u(2) == 0 ? ~0ull : sg && si(2) == -1 ? 0 - u(1) : sg ? static_cast<uint64_t>(si(1) / si(2)) : u(1) / u(2); break;
        case EmuOp::kRem: r = u(2) == 0 ? u(1) : sg && si(2) == -1 ? 0 : sg ? static_cast<uint64_t>(si(1) % si(2)) : u(1) % u(2); break;
        case EmuOp::kMin: r = sg ? static_cast<uint64_t>(std::min(si(1), si(2))) : std::min(u(1), u(2)); break;
        case EmuOp::kMax: r = sg ? static_cast<uint64_t>(std::max(si(1), si(2))) : std::max(u(1), u(2)); break;
        case EmuOp::kAbs: r = si(1) < 0 ? 0 - u(1) : u(1); break;  // in unsigned: abs and neg of the most negative value wrap to it
        case EmuOp::kNeg: r = 0 - u(1); break;
        case EmuOp::kAnd: r = u(1) & u(2); break;
        case EmuOp::kOr: r = u(1) | u(2); break;
        case EmuOp::kXor: r = u(1) ^ u(2); break;
        case EmuOp::kNot: r = ~u(1); break;
        case EmuOp::kShl: r = u(2) >= bits ? 0 : u(1) << u(2); break;
        case EmuOp::kShr: {
          uint64_t n = std::min<uint64_t>(u(2), bits);
          r = sg ? static_cast<uint64_t>(si(1) >> std::min<uint64_t>(n, 63)) : (n >= bits ? 0 : u(1) >> n);
          break;
        }
        case EmuOp::kBfe: {  // bfe d, a, pos, len: a field of a, sign-extended for .s types
          uint64_t pos = arg(2) & 0xff, len = arg(3) & 0xff;
          uint64_t field = (len == 0 || pos >= bits) ? 0 : (u(1) >> pos) & (len >= 64 ? ~0ull : (1ull << len) - 1);
          if (sg && len > 0 && len < 64 && pos < bits && (field >> (std::min<uint64_t>(len, bits - pos) - 1) & 1)) field |= ~0ull << std::min<uint64_t>(len, bits - pos);
          r = field;
          break;
        }
        case EmuOp::kBfi: {  // bfi d, a, b, pos, len: b with a's low len bits put at pos
          uint64_t pos = arg(3) & 0xff, len = arg(4) & 0xff;
          uint64_t mask = (len >= 64 ? ~0ull : (1ull << len) - 1);
          r = pos >= bits ? u(2) : (u(2) & ~(mask << pos)) | ((u(1) & mask) << pos);
          break;
        }
        case EmuOp::kPopc: r = static_cast<uint64_t>(std::popcount(u(1))); break;
        case EmuOp::kClz: r = static_cast<uint64_t>(std::countl_zero(u(1)) - (64 - static_cast<int>(bits))); break;
        case EmuOp::kBrev: {
          uint64_t v = u(1), o = 0;
          for (uint32_t i = 0; i < bits; ++i) o |= ((v >> i) & 1) << (bits - 1 - i);
          r = o;
          break;
        }
        case EmuOp::kSad:  // sad d, a, b, c: c + |a - b|
          r = u(3) + ((sg ? si(1) > si(2) : u(1) > u(2)) ? u(1) - u(2) : u(2) - u(1));  // in unsigned: no overflow
          break;
        case EmuOp::kDp4a:
        case EmuOp::kDp2a: {
          // dp4a.atype.btype d, a, b, c: c plus the dot product of a's and b's four bytes; dp2a.{lo,hi}:
          // of a's two 16-bit halves and b's low or high two bytes. Signedness from each type.
          const bool sa = in.source_type.kind == 's', sb = type.kind == 's';
          auto part = [](uint64_t x, uint32_t i, uint32_t width, bool s) {
            const uint64_t v = (x >> (i * width)) & ((uint64_t{1} << width) - 1);
            return s ? as_signed(v, width) : static_cast<int64_t>(v);
          };
          int64_t sum = as_signed(arg(3), 32);
          const uint32_t first = in.qualifier ? 2 : 0;  // dp2a.hi
          for (uint32_t i = 0; i < (code == EmuOp::kDp4a ? 4u : 2u); ++i) {
            sum += code == EmuOp::kDp4a ? part(u(1), i, 8, sa) * part(u(2), i, 8, sb) : part(u(1), i, 16, sa) * part(u(2), first + i, 8, sb);
          }
          r = static_cast<uint64_t>(sum);
          break;
        }
        case EmuOp::kFns: {  // fns.b32 d, mask, base, offset: the PTX ISA's semantics, step by step
          const uint64_t mask = u(1), base = arg(2) & 31;
          const int64_t offset = as_signed(arg(3), 32);
          r = 0xffffffffull;
          if (offset == 0) {
            if (mask >> base & 1) r = base;
          } else {
            int64_t count = (offset < 0 ? -offset : offset) - 1;
            for (int64_t pos = static_cast<int64_t>(base); pos >= 0 && pos < 32; pos += offset > 0 ? 1 : -1) {
              if (!(mask >> pos & 1)) continue;
              if (count-- == 0) {
                r = static_cast<uint64_t>(pos);
                break;
              }
            }
          }
          break;
        }
        case EmuOp::kBmsk: {  // bmsk.{clamp,wrap}.b32 d, a, b: b bits set from bit a (PTX ISA semantics)
          const uint64_t a = mask_bits(arg(1), 32), b = mask_bits(arg(2), 32), a1 = a & 31, b1 = b & 31;
          const bool clamp = in.qualifier;
          const uint64_t mask0 = clamp && a >= 32 ? 0 : 0xffffffffull << a1;
          const uint64_t mask1 = a1 + b1 >= 32 || (clamp && (a >= 32 || b >= 32)) ? 0 : b1 == 0 ? ~0ull : 0xffffffffull << (a1 + b1);
          r = mask0 & ~mask1 & 0xffffffffull;
          break;
        }
        case EmuOp::kSzext: {  // szext.{clamp,wrap}.{s32,u32} d, a, b: a's low b bits, sign- or zero-extended
          const uint64_t a = u(1), b = mask_bits(arg(2), 32), b1 = b & 31;
          const bool too_large = b >= 32 && in.qualifier;  // .clamp
          const uint64_t mask = too_large ? 0 : (0xffffffffull << b1) & 0xffffffffull;
          const bool sign = b1 != 0 && !too_large && sg && (a >> ((b1 - 1) & 31) & 1);
          r = (a & ~mask & 0xffffffffull) | (sign ? mask : 0);
          break;
        }
        case EmuOp::kLop3: {  // lop3.b32 d, a, b, c, immLut: bit i of d is bit (a_i b_i c_i) of immLut
          const uint64_t a = u(1), b = u(2), c = u(3), lut = arg(4) & 0xff;
          r = 0;
          for (uint32_t i = 0; i < 32; ++i) r |= ((lut >> ((a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1))) & 1) << i;
          break;
        }
        case EmuOp::kShf: {  // shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: a funnel shift of b:a (b the high word)
          const uint64_t both = u(2) << 32 | u(1), n = in.qualifier & 2 ? arg(3) & 31 : std::min<uint64_t>(mask_bits(arg(3), 32), 32);
          r = in.qualifier & 1 ? (both << n) >> 32 : both >> n;
          break;
        }
        case EmuOp::kBfind: {  // the most significant non-sign bit's position (.shiftamt: 31 or 63 minus it); none: 0xffffffff
          uint64_t v = u(1);
          if (sg && si(1) < 0) v = mask_bits(~v, bits);
          const int top = v == 0 ? -1 : 63 - std::countl_zero(v);
          r = top < 0 ? 0xffffffffull : in.qualifier ? bits - 1 - static_cast<uint32_t>(top) : static_cast<uint64_t>(top);
          break;
        }
        default: fault(in, w, l, "the emulator has no integer form of this instruction");
      }
      if (in.relu && sg && as_signed(r, bits) < 0) r = 0;  // max.relu.s32, min.relu.s32
      if (type.kind == 'p') r &= 1;
    }
    write(w, d, l, r);
  });
}

// prmt.b32{.mode} d, a, b, c: byte i of d is one of the eight bytes of {b, a}, chosen by c's
// nibble i (its top bit replicating the byte's sign) or, with a mode, by the PTX ISA's table for
// c's two low bits.
void CtaEmulator::permute_bytes(WarpState& w, const EmuInst& in, uint32_t exec) {
  // Source byte of d.b0..d.b3 for selectors 0-3, per mode: f4e, b4e, rc8, ecl, ecr, rc16.
  static constexpr uint8_t kModes[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}};
  const int mode = static_cast<int>(in.qualifier) - 1;  // -1: the default form
  const auto& ops = in.operands;
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t bytes = mask_bits(read(w, ops.at(1), l), 32) | (mask_bits(read(w, ops.at(2), l), 32) << 32);
    const uint64_t sel = read(w, ops.at(3), l);
    uint64_t r = 0;
    for (uint32_t i = 0; i < 4; ++i) {
      uint64_t byte;
      if (mode < 0) {
        const uint32_t s = (sel >> (4 * i)) & 0xf;
        byte = (bytes >> (8 * (s & 7))) & 0xff;
        if (s & 8) byte = (byte & 0x80) ? 0xff : 0;  // sign replication
      } else {
        byte = (bytes >> (8 * kModes[mode][sel & 3][i])) & 0xff;
      }
      r |= byte << (8 * i);
    }
    write(w, ops[0].kind == EmuOperand::Kind::kReg ? ops[0].reg : -1, l, r);
  });
}

// vop2/vop4 d, a, b, c (the SIMD video instructions, default selections and mask): the operation
// on each 16-bit half or byte of a and b (signed or not by .atype/.btype), optionally clamped
// (.sat) to the element range of .dtype. The default mask selects every element, so d is the
// elements themselves (c fills unselected ones); .add instead adds them all to c (PTX ISA).
void CtaEmulator::simd_video(WarpState& w, const EmuInst& in, uint32_t exec) {
  const auto& ops = in.operands;
  enum Op { kAdd, kSub, kAvrg, kAbsdiff, kMin, kMax, kSet };
  enum Cmp { kEq, kNe, kLt, kLe, kGt, kGe };
  const uint32_t width = in.base.back() == '2' ? 16 : 8, count = 32 / width;
  const auto op = static_cast<Op>(in.qualifier & 7);
  const auto cmp = static_cast<Cmp>(in.qualifier >> 3 & 7);
  // vset has no destination type: vset4.atype.btype.cmp; the others vop4.dtype.atype.btype.
  const bool set = op == kSet;
  const size_t first = set ? 0 : 1;
  const bool d_signed = !set && !in.types.empty() && in.types[0] == "s32", a_signed = in.types.size() > first && in.types[first] == "s32",
             b_signed = in.types.size() > first + 1 && in.types[first + 1] == "s32", accumulate = in.qualifier & 64;
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t a = read(w, ops.at(1), l), b = read(w, ops.at(2), l), c = read(w, ops.at(3), l);
    uint64_t d = accumulate ? c : 0;
    for (uint32_t i = 0; i < count; ++i) {
      auto element = [&](uint64_t x, bool s) {
        const uint64_t v = (x >> (i * width)) & ((uint64_t{1} << width) - 1);
        return s ? as_signed(v, width) : static_cast<int64_t>(v);
      };
      const int64_t va = element(a, a_signed), vb = element(b, b_signed);
      int64_t t = 0;
      switch (op) {
        case kAdd: t = va + vb; break;
        case kSub: t = va - vb; break;
        case kAvrg: t = va + vb >= 0 ? (va + vb + 1) >> 1 : (va + vb) >> 1; break;
        case kAbsdiff: t = va > vb ? va - vb : vb - va; break;
        case kMin: t = std::min(va, vb); break;
        case kMax: t = std::max(va, vb); break;
        case kSet:
          t = cmp == kEq ? va == vb : cmp == kNe ? va != vb : cmp == kLt ? va < vb : cmp == kLe ? va <= vb : cmp == kGt ? va > vb : va >= vb;
          break;
      }
      if (in.saturate) {
        const int64_t low = d_signed ? -(int64_t{1} << (width - 1)) : 0;
        const int64_t high = d_signed ? (int64_t{1} << (width - 1)) - 1 : (int64_t{1} << width) - 1;
        t = std::clamp(t, low, high);
      }
      if (accumulate) {
        d += static_cast<uint64_t>(t);
      } else {
        d |= (static_cast<uint64_t>(t) & ((uint64_t{1} << width) - 1)) << (i * width);
      }
    }
    write(w, ops[0].kind == EmuOperand::Kind::kReg ? ops[0].reg : -1, l, d);
  });
}

// min/max of two (or, on sm_100, three) floats with the .NaN and .xorsign.abs variants: plain
// min/max return the other operand when one is NaN, .NaN returns NaN.
double CtaEmulator::min_max(const EmuInst& in, double a, double b, double c, bool three) {
  const bool is_max = in.code == EmuOp::kMax;
  auto pick = [&](double x, double y) { return is_max ? std::fmax(x, y) : std::fmin(x, y); };
  if (in.nan_min_max && (std::isnan(a) || std::isnan(b) || (three && std::isnan(c)))) return NAN;
  if (in.xorsign_abs) {
    const bool negative = std::signbit(a) != std::signbit(b);
    const double m = pick(std::fabs(a), std::fabs(b));
    return negative ? -m : m;
  }
  return three ? pick(pick(a, b), c) : pick(a, b);
}

// .relu clamps a negative result to 0 and .sat a float result to [0, 1] (NaN to 0); a NaN stays
// NaN under .relu.
double CtaEmulator::modified(const EmuInst& in, double x) {
  if (in.relu && x < 0) x = 0;
  if (in.saturate) x = std::isnan(x) ? 0 : std::clamp(x, 0.0, 1.0);
  return x;
}

uint64_t CtaEmulator::saturated(double x, const ValueType& t) {
  const uint32_t bits = std::min<uint32_t>(t.bits, 64);
  if (t.kind == 's') {
    const double low = -std::ldexp(1.0, static_cast<int>(bits) - 1), high = std::ldexp(1.0, static_cast<int>(bits) - 1);
    if (x <= low) return mask_bits(uint64_t{1} << (bits - 1), bits);  // the most negative value
    if (x >= high) return mask_bits((uint64_t{1} << (bits - 1)) - 1, bits);
    return mask_bits(static_cast<uint64_t>(static_cast<int64_t>(x)), bits);
  }
  const double high = std::ldexp(1.0, static_cast<int>(bits));
  if (x <= 0) return 0;
  if (x >= high) return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return static_cast<uint64_t>(x);
}

// add.cc, addc, sub.cc, subc, mad.cc and madc: extended-precision arithmetic through the
// condition code's carry flag (a borrow for subtraction), one flag per lane.
uint64_t CtaEmulator::with_carry(WarpState& w, const EmuInst& in, uint32_t lane, uint64_t a, uint64_t b, uint64_t c) {
  const uint32_t bits = in.type.bits;
  const uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  const __uint128_t carry = in.carry_in ? (w.carry >> lane) & 1 : 0;
  __uint128_t full = 0;
  bool out = false;
  if (in.code == EmuOp::kSub) {
    full = static_cast<__uint128_t>(a) - b - carry;
    out = static_cast<__uint128_t>(a) < b + carry;
  } else {
    uint64_t addend = b;
    if (in.code == EmuOp::kMad) {  // mad.lo/.hi: the low or high half of the product, plus c
      const bool sg = in.type.kind == 's';
      const __uint128_t p = sg ? static_cast<__uint128_t>(static_cast<__int128_t>(as_signed(a, bits)) * as_signed(b, bits)) : static_cast<__uint128_t>(a) * b;
      addend = static_cast<uint64_t>((in.hi ? p >> bits : p)) & mask;
      a = c;
    }
    full = static_cast<__uint128_t>(a) + addend + carry;
    out = (full >> bits) & 1;
  }
  if (in.carry_out) w.carry = out ? w.carry | 1u << lane : w.carry & ~(1u << lane);
  return static_cast<uint64_t>(full) & mask;
}

}  // namespace warpsim::ptx
