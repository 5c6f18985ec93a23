// SASS arithmetic, one lane, against what the host computes natively: the 64-bit arithmetic that
// IADD3/IMAD/LEA carry chains and ISETP.EX compares stand for, the look-up tables, funnel shifts
// and conversions.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "frontend/sass/sass_alu.h"

namespace warpsim::sass {
namespace {

struct Result {
  uint64_t r[kMaxResults]{};
};

Result eval(SassAlu a, std::vector<uint64_t> s, std::vector<uint8_t> m = {}) {
  m.resize(s.size(), 0);
  Result out;
  evaluate(a, s.data(), m.data(), static_cast<int>(s.size()), out.r);
  return out;
}

SassAlu op(SassOp o, uint16_t flags = 0) {
  SassAlu a;
  a.op = o;
  a.flags = flags;
  return a;
}

uint32_t f2u(float f) { return std::bit_cast<uint32_t>(f); }

TEST(SassAlu, AddsWithCarriesAsA64BitSum) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = rng(), y = rng();
    // IADD3 lo, P0, xl, yl, RZ ; IADD3.X hi, xh, yh, RZ, P0, !PT
    const Result lo = eval(op(SassOp::kIadd3), {x & 0xffffffff, y & 0xffffffff, 0});
    const Result hi = eval(op(SassOp::kIadd3, kFlagX), {x >> 32, y >> 32, 0, lo.r[1], 0});
    EXPECT_EQ(hi.r[0] << 32 | lo.r[0], x + y);
    // Subtraction through a negated source: a - b carries exactly when a >= b (no borrow).
    const Result sub = eval(op(SassOp::kIadd3), {x & 0xffffffff, y & 0xffffffff, 0}, {0, kModNeg, 0});
    EXPECT_EQ(sub.r[0], static_cast<uint32_t>(x - y));
    EXPECT_EQ(sub.r[1], (x & 0xffffffff) >= (y & 0xffffffff) ? 1u : 0u);
  }
}

TEST(SassAlu, MultipliesWideAndHigh) {
  std::mt19937_64 rng(9);
  for (int i = 0; i < 1000; ++i) {
    const uint32_t a = static_cast<uint32_t>(rng()), b = static_cast<uint32_t>(rng());
    const uint64_t c = rng();
    EXPECT_EQ(eval(op(SassOp::kImadWide, kFlagUnsigned), {a, b, c}).r[0], uint64_t{a} * b + c);
    // The carry out of the 64-bit sum, bit 64 of the exact 128-bit a * b + c.
    const uint64_t product = uint64_t{a} * b;
    const uint64_t low_carry = ((product & 0xffffffff) + (c & 0xffffffff)) >> 32;
    const uint64_t carry = (low_carry + (product >> 32) + (c >> 32)) >> 32;
    EXPECT_EQ(eval(op(SassOp::kImadWide, kFlagUnsigned), {a, b, c}).r[1], carry);
    EXPECT_EQ(eval(op(SassOp::kImadWide), {a, b, c}).r[0],
              static_cast<uint64_t>(int64_t{static_cast<int32_t>(a)} * static_cast<int32_t>(b)) + c);
    // The high word of the 96-bit a * b + c, from 32-bit pieces.
    const uint64_t p = uint64_t{a} * b, lo = (p & 0xffffffff) + (c & 0xffffffff);
    const uint64_t high = (p >> 32) + (c >> 32) + (lo >> 32);
    EXPECT_EQ(eval(op(SassOp::kImadHi, kFlagUnsigned), {a, b, c}).r[0], static_cast<uint32_t>(high));
    EXPECT_EQ(eval(op(SassOp::kImad), {a, b, c & 0xffffffff}).r[0], static_cast<uint32_t>(a * b + c));
  }
}

// ptxas's unsigned division: a reciprocal estimate refined by IMAD.HI against a register pair,
// the quotient corrected twice (the sequence at the top of diverge_paths' SASS). The result must
// be the exact quotient for every divisor.
TEST(SassAlu, PtxasUnsignedDivisionSequenceIsExact) {
  std::mt19937 rng(3);
  for (int i = 0; i < 2000; ++i) {
    const uint32_t d = rng() % 1000000 + 1, n = rng();
    SassAlu i2f = op(SassOp::kI2f);
    i2f.from = kFmtU32, i2f.to = kFmtF32, i2f.rounding = 3;  // I2F.U32.RP
    const uint64_t fd = eval(i2f, {d}).r[0];
    SassAlu rcp = op(SassOp::kMufu);
    rcp.from = kMufuRcp;
    const uint64_t r = eval(rcp, {fd}).r[0];
    const uint64_t r2 = eval(op(SassOp::kIadd3), {r, 0xffffffe, 0}).r[0];
    SassAlu f2i = op(SassOp::kF2i, kFlagTrunc);
    f2i.from = kFmtF32, f2i.to = kFmtU32;
    const uint64_t q0 = eval(f2i, {r2}).r[0];
    const uint64_t e = eval(op(SassOp::kImad), {eval(op(SassOp::kIadd3), {0, q0, 0}, {0, kModNeg, 0}).r[0], d, 0}).r[0];
    const uint64_t q1 = eval(op(SassOp::kImadHi, kFlagUnsigned), {q0, e, q0 << 32}).r[0];  // the pair {0, q0}
    uint64_t q = eval(op(SassOp::kImadHi, kFlagUnsigned), {q1, n, 0}).r[0];
    uint64_t rem = static_cast<uint32_t>(n - q * d);
    if (rem >= d) rem -= d, ++q;
    if (rem >= d) rem -= d, ++q;
    EXPECT_EQ(q, n / d) << n << " / " << d;
  }
}

TEST(SassAlu, LeaFormsA64BitAddress) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t base = rng(), index = rng() >> 20;
    SassAlu lo = op(SassOp::kLea), hi = op(SassOp::kLeaHi, kFlagX);
    lo.shift = hi.shift = 2;
    const Result l = eval(lo, {index & 0xffffffff, base & 0xffffffff});
    const Result h = eval(hi, {index & 0xffffffff, base >> 32, index >> 32, l.r[1]});
    EXPECT_EQ(h.r[0] << 32 | l.r[0], base + (index << 2));
    // .SX32: the index is a signed 32-bit value.
    const auto sindex = static_cast<int32_t>(rng());
    SassAlu sx = op(SassOp::kLeaHi, kFlagX | kFlagSx32);
    sx.shift = 3;
    lo.shift = 3;
    const Result l2 = eval(lo, {static_cast<uint32_t>(sindex), base & 0xffffffff});
    const Result h2 = eval(sx, {static_cast<uint32_t>(sindex), base >> 32, l2.r[1]});
    EXPECT_EQ(h2.r[0] << 32 | l2.r[0], base + static_cast<uint64_t>(int64_t{sindex} * 8));
  }
}

TEST(SassAlu, LookUpTablesComputeAnyFunctionOfThree) {
  const uint32_t a = 0xf0f0ff00, b = 0xcc33cc33, c = 0xaaaa5555;
  auto lop = [&](uint8_t lut) {
    SassAlu x = op(SassOp::kLop3);
    x.lut = lut;
    return static_cast<uint32_t>(eval(x, {a, b, c}).r[0]);
  };
  EXPECT_EQ(lop(0xc0), a & b);
  EXPECT_EQ(lop(0xfc), a | b);
  EXPECT_EQ(lop(0x3c), a ^ b);
  EXPECT_EQ(lop(0x96), a ^ b ^ c);
  EXPECT_EQ(lop(0xe8), (a & b) | (a & c) | (b & c));  // majority
  EXPECT_EQ(lop(0x0f), ~a);
  SassAlu p = op(SassOp::kPlop3);
  p.lut = 0x80, p.lut2 = 0xfe;  // and, or
  EXPECT_EQ(eval(p, {1, 1, 0}).r[0], 0u);
  EXPECT_EQ(eval(p, {1, 1, 0}).r[1], 1u);
}

TEST(SassAlu, FunnelShifts) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 500; ++i) {
    const uint64_t v = rng();
    const uint32_t s = static_cast<uint32_t>(rng() % 64);
    const uint64_t lo = v & 0xffffffff, hi = v >> 32;
    EXPECT_EQ(eval(op(SassOp::kShf, kFlagLeft | kFlagHi | kFlag64), {lo, s, hi}).r[0], static_cast<uint32_t>((v << s) >> 32));
    EXPECT_EQ(eval(op(SassOp::kShf, kFlag64), {lo, s, hi}).r[0], static_cast<uint32_t>(v >> s));
    EXPECT_EQ(eval(op(SassOp::kShf, kFlagHi | kFlag64 | kFlagSigned), {lo, s, hi}).r[0],
              static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(v) >> s) >> 32));
    // 32-bit shifts as SHF writes them: the value in one word, the other RZ; PTX's clamp at 32.
    const auto x = static_cast<uint32_t>(v), t = static_cast<uint32_t>(rng() % 40);
    EXPECT_EQ(eval(op(SassOp::kShf, kFlagHi), {0, t, x}).r[0], t >= 32 ? 0u : x >> t);
    EXPECT_EQ(eval(op(SassOp::kShf, kFlagLeft), {x, t, 0}).r[0], t >= 32 ? 0u : x << t);
    EXPECT_EQ(eval(op(SassOp::kShf, kFlagHi | kFlagSigned), {0, t, x}).r[0],
              static_cast<uint32_t>(static_cast<int32_t>(x) >> std::min<uint32_t>(t, 31)));
  }
}

// A 64-bit compare as ptxas splits it: ISETP.cmp.U32 on the low words, then ISETP.cmp.EX on the
// high words with the low result as its last source.
TEST(SassAlu, ExtendedComparesAre64BitCompares) {
  std::mt19937_64 rng(13);
  for (int i = 0; i < 2000; ++i) {
    uint64_t x = rng(), y = i % 3 == 0 ? (x & ~uint64_t{0xffffffff}) | (rng() & 0xffffffff) : rng();
    if (i % 7 == 0) y = x;
    for (Cmp c : {Cmp::kLt, Cmp::kLe, Cmp::kGt, Cmp::kGe, Cmp::kEq, Cmp::kNe}) {
      for (bool sign : {false, true}) {
        SassAlu low = op(SassOp::kIsetp, kFlagUnsigned), high = op(SassOp::kIsetp, kFlagEx | (sign ? 0 : kFlagUnsigned));
        low.cmp = high.cmp = c;
        const uint64_t p = eval(low, {x & 0xffffffff, y & 0xffffffff, 1}).r[0];
        const uint64_t r = eval(high, {x >> 32, y >> 32, 1, p}).r[0];
        const auto sx = static_cast<int64_t>(x), sy = static_cast<int64_t>(y);
        bool want = false;
        switch (c) {
          case Cmp::kLt: want = sign ? sx < sy : x < y; break;
          case Cmp::kLe: want = sign ? sx <= sy : x <= y; break;
          case Cmp::kGt: want = sign ? sx > sy : x > y; break;
          case Cmp::kGe: want = sign ? sx >= sy : x >= y; break;
          case Cmp::kEq: want = x == y; break;
          default: want = x != y; break;
        }
        EXPECT_EQ(r, want ? 1u : 0u) << x << " " << y << " " << static_cast<int>(c) << " " << sign;
      }
    }
  }
}

TEST(SassAlu, FloatComparesKnowUnorderedOperands) {
  SassAlu a = op(SassOp::kFsetp);
  a.cmp = Cmp::kGeu;  // true for NaN
  EXPECT_EQ(eval(a, {f2u(NAN), f2u(1.0f), 1}).r[0], 1u);
  a.cmp = Cmp::kGe;
  EXPECT_EQ(eval(a, {f2u(NAN), f2u(1.0f), 1}).r[0], 0u);
  EXPECT_EQ(eval(a, {f2u(2.0f), f2u(1.0f), 1}).r[0], 1u);
  EXPECT_EQ(eval(a, {f2u(2.0f), f2u(1.0f), 1}).r[1], 0u);  // the second result: not the compare
  // |x| and -x on a source.
  a.cmp = Cmp::kLt;
  EXPECT_EQ(eval(a, {f2u(-3.0f), f2u(2.0f), 1}, {kModAbs, 0, 0}).r[0], 0u);
  a.boolop = BoolOp::kAnd;
  EXPECT_EQ(eval(a, {f2u(-3.0f), f2u(2.0f), 0}).r[0], 0u);  // and-ed with a false predicate
}

// DSETP.MIN/MAX P, Q, a, b: P whether a is the min (max), Q whether both are NaN; as PTX's
// min/max, a NaN loses to a number and -0 is below +0.
TEST(SassAlu, MinMaxPredicatesPickAsPtxMinMaxDoes) {
  auto d = [](double v) { return std::bit_cast<uint64_t>(v); };
  SassAlu a = op(SassOp::kDsetp);
  a.cmp = Cmp::kMin;
  EXPECT_EQ(eval(a, {d(1.0), d(2.0), 1}).r[0], 1u);
  EXPECT_EQ(eval(a, {d(3.0), d(2.0), 1}).r[0], 0u);
  EXPECT_EQ(eval(a, {d(NAN), d(2.0), 1}).r[0], 0u);
  EXPECT_EQ(eval(a, {d(1.0), d(NAN), 1}).r[0], 1u);
  EXPECT_EQ(eval(a, {d(-0.0), d(0.0), 1}).r[0], 1u);
  EXPECT_EQ(eval(a, {d(0.0), d(-0.0), 1}).r[0], 0u);
  EXPECT_EQ(eval(a, {d(1.0), d(NAN), 1}).r[1], 0u);
  EXPECT_EQ(eval(a, {d(NAN), d(NAN), 1}).r[1], 1u);
  a.cmp = Cmp::kMax;
  EXPECT_EQ(eval(a, {d(3.0), d(2.0), 1}).r[0], 1u);
  EXPECT_EQ(eval(a, {d(1.0), d(2.0), 1}).r[0], 0u);
  EXPECT_EQ(eval(a, {d(0.0), d(-0.0), 1}).r[0], 1u);
  EXPECT_EQ(eval(a, {d(NAN), d(2.0), 1}).r[0], 0u);
}

TEST(SassAlu, FloatArithmeticAndSelection) {
  EXPECT_EQ(eval(op(SassOp::kFfma), {f2u(1.5f), f2u(2.0f), f2u(0.25f)}).r[0], f2u(3.25f));
  EXPECT_EQ(eval(op(SassOp::kFadd), {f2u(1.0f), f2u(0.5f)}, {kModNeg, 0}).r[0], f2u(-0.5f));
  EXPECT_EQ(eval(op(SassOp::kFmul, kFlagSat), {f2u(3.0f), f2u(2.0f)}).r[0], f2u(1.0f));
  EXPECT_EQ(eval(op(SassOp::kFmnmx), {f2u(1.0f), f2u(NAN), 1}).r[0], f2u(1.0f));  // the non-NaN one
  EXPECT_EQ(eval(op(SassOp::kFmnmx), {f2u(1.0f), f2u(-2.0f), 0}).r[0], f2u(1.0f));  // !PT: max
  EXPECT_EQ(eval(op(SassOp::kFsel), {f2u(1.5f), f2u(2.0f), 1}, {kModNeg, 0, 0}).r[0], f2u(-1.5f));  // FSEL -x: the sign flips
  EXPECT_EQ(eval(op(SassOp::kSel), {5, 7, 1}, {kModNeg, 0, 0}).r[0], static_cast<uint32_t>(-5));
  SassAlu rz = op(SassOp::kFadd);
  rz.rounding = 1;  // .RZ
  EXPECT_EQ(eval(rz, {f2u(1.0f), f2u(0x1p-25f)}).r[0], f2u(1.0f));
  rz.rounding = 3;  // .RP
  EXPECT_EQ(eval(rz, {f2u(1.0f), f2u(0x1p-25f)}).r[0], f2u(1.0f + 0x1p-23f));
  const double d = 1.0 / 3.0;
  EXPECT_EQ(eval(op(SassOp::kDfma), {std::bit_cast<uint64_t>(d), std::bit_cast<uint64_t>(3.0), std::bit_cast<uint64_t>(-1.0)}).r[0],
            std::bit_cast<uint64_t>(std::fma(d, 3.0, -1.0)));
}

TEST(SassAlu, Conversions) {
  SassAlu f2i = op(SassOp::kF2i);
  f2i.from = kFmtF32, f2i.to = kFmtS32;
  EXPECT_EQ(eval(f2i, {f2u(2.5f)}).r[0], 2u);  // nearest even
  EXPECT_EQ(eval(f2i, {f2u(3e10f)}).r[0], 0x7fffffffu);  // saturates
  EXPECT_EQ(eval(f2i, {f2u(NAN)}).r[0], 0u);
  f2i.flags = kFlagTrunc;
  EXPECT_EQ(eval(f2i, {f2u(-2.7f)}).r[0], static_cast<uint32_t>(-2));
  SassAlu i2f = op(SassOp::kI2f);
  i2f.from = kFmtU32, i2f.to = kFmtF32, i2f.rounding = 3;
  EXPECT_EQ(eval(i2f, {0xffffffffu}).r[0], f2u(4294967296.0f));
  i2f.rounding = 1;
  EXPECT_EQ(eval(i2f, {0xffffffffu}).r[0], f2u(4294967040.0f));
  i2f.from = kFmtS64, i2f.to = kFmtF64, i2f.rounding = 0;
  EXPECT_EQ(eval(i2f, {static_cast<uint64_t>(-5)}).r[0], std::bit_cast<uint64_t>(-5.0));
  // F2FP: the first source in the high half; MERGE_C keeps c's high half; UNPACK_B's .H1.
  SassAlu pack = op(SassOp::kF2fp, kFlagPack);
  pack.to = kFmtF16, pack.from = kFmtF32;
  EXPECT_EQ(eval(pack, {f2u(1.0f), f2u(-2.0f)}).r[0], 0x3c00c000u);
  SassAlu fp8 = op(SassOp::kF2fp, kFlagPack | kFlagSat);
  fp8.to = kFmtE4m3;
  EXPECT_EQ(eval(fp8, {f2u(1.0f), f2u(1000.0f), 0xabcd0000u}).r[0], 0xabcd387eu);  // 1.0 = 0x38, 448 (satfinite) = 0x7e
  SassAlu unpack = op(SassOp::kF2fp, kFlagUnpack);
  unpack.to = kFmtF16, unpack.from = kFmtE4m3;
  EXPECT_EQ(eval(unpack, {0x38c00000u}, {kModH1Only}).r[0], 0x3c00c000u);  // e4m3 0x38 = 1.0, 0xc0 = -2.0
}

TEST(SassAlu, PackedHalvesAndSixteenBitLanes) {
  // HFMA2.MMA Rd, -RZ, RZ, imm: how ptxas moves a 32-bit constant.
  EXPECT_EQ(eval(op(SassOp::kHfma2), {0, 0, 0x3f800000u}, {kModNeg, 0, 0}).r[0], 0x3f800000u);
  EXPECT_EQ(eval(op(SassOp::kHadd2, kFlagF32Out), {0, 0x00003c00u}, {kModNeg, kModH0}).r[0], f2u(1.0f));
  EXPECT_EQ(eval(op(SassOp::kIadd3, kFlagPacked16), {0x0001ffffu, 0x00010001u, 0}).r[0], 0x00020000u);  // no carry between halves
  EXPECT_EQ(eval(op(SassOp::kIadd3, kFlagPacked16), {0x00050005u, 0x00010002u, 0}, {0, kModNeg, 0}).r[0], 0x00040003u);
  EXPECT_EQ(eval(op(SassOp::kImnmx, kFlagPacked16), {0x8000ffffu, 0x00010001u, 1}).r[0], 0x8000ffffu);  // signed min per half
  EXPECT_EQ(eval(op(SassOp::kImnmx, kFlagPacked16 | kFlagUnsigned), {0x8000ffffu, 0x00010001u, 1}).r[0], 0x00010001u);
}

TEST(SassAlu, PredicatesInAndOutOfARegister) {
  EXPECT_EQ(eval(op(SassOp::kP2r), {0b1011, 0xffff0000u, 0x7f}).r[0], 0xffff000bu);
  EXPECT_EQ(eval(op(SassOp::kP2r), {0b1011, 0, 0x2}).r[0], 0x2u);
  EXPECT_EQ(eval(op(SassOp::kR2p), {0xff, 0x5}).r[0], 0x5u);
  SassAlu flo = op(SassOp::kFlo);
  EXPECT_EQ(eval(flo, {0x00100000u}).r[0], 20u);
  EXPECT_EQ(eval(flo, {0}).r[0], 0xffffffffu);
  flo.flags = kFlagSh;
  EXPECT_EQ(eval(flo, {0x00100000u}).r[0], 11u);
  EXPECT_EQ(eval(op(SassOp::kPrmt), {0x44332211u, 0x4210, 0x88776655u}).r[0], 0x55332211u);  // byte 3 from b's byte 0
  EXPECT_EQ(eval(op(SassOp::kBmsk), {4, 3}).r[0], 0x70u);
}

}  // namespace
}  // namespace warpsim::sass
