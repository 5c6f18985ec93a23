// cvt: between integer and floating-point types with the PTX ISA's rounding modes, saturation and
// NaN rules, and the packed forms that feed and drain FP8, FP6 and FP4 tensor-core operands.
#include <algorithm>
#include <cmath>

#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/float_formats.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {
namespace {

const FloatFormat& format_of(const Type& t) {
  return *find_float_format(t.kind == 'h' ? "bf16" : t.bits == 16 ? "f16" : "f32");
}

double round_integral(double x, Rounding r) {
  switch (r) {
    case Rounding::kZero: return std::trunc(x);
    case Rounding::kDown: return std::floor(x);
    case Rounding::kUp: return std::ceil(x);
    case Rounding::kNearestAway: return std::round(x);
    case Rounding::kNearestEven: break;
    case Rounding::kStochastic: break;  // refused when lowered: .rs only packs f32 into f16x2/bf16x2
  }
  return std::nearbyint(x);  // the default floating-point environment rounds to nearest even
}

}  // namespace

void CtaEmulator::convert(WarpState& w, const EmuInst& in, uint32_t exec) {
  const auto& ops = in.operands;
  const int32_t dst = ops.at(0).kind == EmuOperand::Kind::kReg ? ops[0].reg : -1;
  if (in.tf32) {  // cvt.rna.tf32.f32: keep 10 mantissa bits, rounding half away from zero
    for_lanes(exec, [&](uint32_t l) {
      auto x = static_cast<uint32_t>(read(w, ops.at(1), l));
      if ((x & 0x7f800000u) != 0x7f800000u) x = (x + 0x1000u) & 0xffffe000u;  // Inf and NaN pass through
      write(w, dst, l, x);
    });
    return;
  }
  if (in.cvt_packed) {
    convert_packed(w, in, exec);
    return;
  }
  if (in.cvt_pack_bits) {
    convert_pack_integers(w, in, exec);
    return;
  }
  const Type d = in.type, src = in.source_type;
  const bool src_float = src.kind == 'f' || src.kind == 'h', dst_float = d.kind == 'f' || d.kind == 'h';
  const FloatFormat& to = format_of(d);  // once per instruction, not per lane
  const bool ftz_src = in.ftz && src.kind == 'f' && src.bits == 32, ftz_dst = in.ftz && d.kind == 'f' && d.bits == 32;
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t v = read_flushed(w, ops.at(1), l, ftz_src);
    uint64_t r;
    if (src_float && dst_float) {
      double x = as_float(v, src.bits, src.kind == 'h');
      if (in.integer_rounding) x = round_integral(x, in.rounding);
      x = modified(in, x);
      // Widening is exact; narrowing rounds with the instruction's mode.
      if (d.bits == 64 || (!in.satfinite && (d.bits > src.bits || (d.bits == src.bits && d.kind == src.kind)))) {
        r = from_float(x, d.bits, d.kind == 'h');
      } else {
        r = encode_float(x, to, in.rounding, in.satfinite);
        if (in.relu && !std::isnan(x) && std::signbit(decode_float(r, to))) r = 0;
      }
    } else if (src_float) {
      // Float to integer clamps to the destination's range; NaN gives 0, or the top bit for an
      // f64 source and a 64-bit destination (PTX ISA, cvt).
      const double x = as_float(v, src.bits, src.kind == 'h');
      if (std::isnan(x)) {
        r = src.bits == 64 && d.bits == 64 ? uint64_t{1} << 63 : 0;
      } else {
        r = saturated(round_integral(x, in.rounding), d);
      }
    } else if (dst_float) {
      const double x = modified(in, src.kind == 's' ? static_cast<double>(as_signed(v, src.bits)) : static_cast<double>(mask_bits(v, src.bits)));
      r = d.bits == 64 ? from_float(x, 64) : encode_float(x, to, in.rounding, false);
    } else {
      const double exact = src.kind == 's' ? static_cast<double>(as_signed(v, src.bits)) : static_cast<double>(mask_bits(v, src.bits));
      r = src.kind == 's' ? static_cast<uint64_t>(as_signed(v, src.bits)) : mask_bits(v, src.bits);
      if (in.saturate) r = saturated(exact, d);  // cvt.sat between integers clamps to the destination's range
    }
    if (ftz_dst) r = flush_subnormal32(r);
    write(w, dst, l, r);
  });
}

// The packed forms (supported_forms.cpp checks which): two f32 into one register, the first
// source in the high half; f16x2/bf16x2 into two narrow values; two narrow values into
// f16x2/bf16x2. Each element is rounded on its own, .relu taking negatives to +0. UE8M0 (no
// FloatFormat) the same way, through ue8m0_bits and bf16_of_ue8m0.
void CtaEmulator::convert_packed(WarpState& w, const EmuInst& in, uint32_t exec) {
  const auto& ops = in.operands;
  const int32_t dst = ops.at(0).kind == EmuOperand::Kind::kReg ? ops[0].reg : -1;
  const bool from_f32 = in.cvt_from_bits == 32;
  auto encode = [&](double x, RandomBits random) {
    if (!in.cvt_to_format) return ue8m0_bits(x, in.rounding == Rounding::kUp, in.satfinite);
    if (in.relu && !std::isnan(x) && x < 0) x = 0;
    return encode_float(x, *in.cvt_to_format, in.rounding, in.satfinite, random);
  };
  // .rs: rbits's high half rounds a, its low half b, as many of each half's low bits as a normal
  // result drops of f32's mantissa: 16 for bf16, 13 for f16 (PTX ISA, cvt).
  const bool stochastic = in.rounding == Rounding::kStochastic;
  const uint32_t random_count = stochastic ? 23 - in.cvt_to_format->mantissa_bits : 0;
  const uint32_t from_bits = in.cvt_from_bits;
  const uint64_t from_mask = (uint64_t{1} << from_bits) - 1;
  for_lanes(exec, [&](uint32_t l) {
    if (!in.cvt_from_format) {  // two UE8M0 exponents into bf16x2
      const uint64_t a = read(w, ops.at(1), l);
      write(w, dst, l, bf16_of_ue8m0((a >> 8) & 0xff) << 16 | bf16_of_ue8m0(a & 0xff));
      return;
    }
    double hi, lo;
    if (from_f32) {
      hi = as_float(read(w, ops.at(1), l), 32);
      lo = as_float(read(w, ops.at(2), l), 32);
    } else {
      const uint64_t a = read(w, ops.at(1), l);
      hi = decode_float((a >> from_bits) & from_mask, *in.cvt_from_format);
      lo = decode_float(a & from_mask, *in.cvt_from_format);
    }
    RandomBits random_hi, random_lo;
    if (stochastic) {
      const auto bits = static_cast<uint32_t>(read(w, ops.at(3), l));
      const uint32_t mask = (1u << random_count) - 1;
      random_hi = {(bits >> 16) & mask, random_count}, random_lo = {bits & mask, random_count};
    }
    write(w, dst, l, encode(hi, random_hi) << in.cvt_to_bits | encode(lo, random_lo));
  });
}

// cvt.pack.sat (PTX ISA, "cvt.pack"): a and b, signed 32-bit, each saturated to the convert type;
// b's bits go lowest, a's above them, and for the types narrower than 16 bits c's low bits fill
// the rest of d.
void CtaEmulator::convert_pack_integers(WarpState& w, const EmuInst& in, uint32_t exec) {
  const auto& ops = in.operands;
  const int32_t dst = ops.at(0).kind == EmuOperand::Kind::kReg ? ops[0].reg : -1;
  const uint32_t size = in.cvt_pack_bits;
  const int64_t lo = in.cvt_pack_signed ? -(int64_t{1} << (size - 1)) : 0;
  const int64_t hi = in.cvt_pack_signed ? (int64_t{1} << (size - 1)) - 1 : (int64_t{1} << size) - 1;
  const uint64_t mask = (uint64_t{1} << size) - 1;
  for_lanes(exec, [&](uint32_t l) {
    const auto saturated_bits = [&](const EmuOperand& op) {
      return static_cast<uint64_t>(std::clamp<int64_t>(as_signed(read(w, op, l), 32), lo, hi)) & mask;
    };
    uint64_t d = saturated_bits(ops.at(2)) | saturated_bits(ops.at(1)) << size;
    if (size < 16) d |= read(w, ops.at(3), l) << (2 * size);
    write(w, dst, l, d & 0xffffffffu);
  });
}

}  // namespace warpsim::ptx
