#pragma once
// What SASS's own arithmetic, logic, compare and conversion instructions compute, one lane at a
// time: IADD3 with its carries, IMAD's wide and high forms, LEA, LOP3/PLOP3 look-up tables,
// funnel shifts, ISETP/FSETP/DSETP with their predicate combination and 64-bit extension, MUFU,
// the F2F/F2I/I2F/F2FP conversions and the rest. Instructions that mean what a PTX instruction
// means (loads, stores, atomics, shuffles, barriers, MMAs) are lowered to that instruction
// instead (lower_sass.cpp); control flow belongs to the convergence model (sass_step.cpp).
//
// The emulator reads each source (a register, a register pair, a predicate or an immediate) into
// a 64-bit value and hands them here with their operand modifiers; evaluate() returns up to
// three results (registers, pairs or predicates) in the instruction's destination order.
#include <array>
#include <cstdint>

namespace warpsim::sass {

enum class SassOp : uint8_t {
  kNone,
  kMov,        // MOV, IMAD.MOV, UMOV, ULDC and constants: d = a
  kIadd3,      // IADD3[.X]: d = a + b + c (+ carry-in predicates); carry-outs to up to two predicates
  kImad,       // IMAD[.X/.U32/.IADD/.SHL]: d = a * b + c (low 32 bits) (+ carry-in)
  kImadHi,     // IMAD.HI[.U32]: d = (a * b + c:c+1) >> 32
  kImadWide,   // IMAD.WIDE[.U32]: d:d+1 = a * b + c:c+1
  kLea,        // LEA: d = (a << s) + b, carry-out predicate
  kLeaHi,      // LEA.HI[.X][.SX32]: d = b + high 32 bits of (c:a << s) (+ carry-in)
  kLop3,       // LOP3.LUT: any function of three words by its 8-bit table; optional predicate (d != 0)
  kPlop3,      // PLOP3.LUT: two predicates, each a function of three by its table
  kShf,        // SHF.{L,R}.{U32,S32,U64,S64}[.HI]: funnel shift of c:a
  kIsetp,      // ISETP.cmp[.U32].bool[.EX]
  kFsetp,      // FSETP.cmp[.FTZ].bool
  kDsetp,      // DSETP.cmp.bool on register pairs
  kSel,        // SEL, USEL: p ? a : b
  kFsel,       // FSEL: the same of floats (-x flips the sign bit)
  kPrmt,       // PRMT: byte permute (PTX prmt's modes)
  kFfma, kFadd, kFmul,  // f32, with .RZ/.RM/.RP, .FTZ, .SAT
  kFmnmx,      // FMNMX: p ? min(a, b) : max(a, b)
  kDfma, kDadd, kDmul,  // f64 on register pairs
  kHfma2, kHadd2, kHmul2,  // packed f16 (.F32: one f32 result); HFMA2.MMA is HFMA2
  kMufu,       // MUFU.{EX2, LG2, RCP, RSQ, SQRT, SIN, COS, TANH, RCP64H, RSQ64H}
  kF2f,        // F2F: f32 <-> f64, f16
  kF2i,        // F2I: float to integer (rounding, .U32/.S64...)
  kI2f,        // I2F, I2FP: integer to float
  kF2fp,       // F2FP: two f32 into packed f16/bf16/FP8, or FP8 unpacked to f16x2
  kFrnd,       // FRND: round to an integral value
  kFchk,       // FCHK: whether a / b needs the slow path
  kIabs,
  kImnmx,      // IMNMX, VIMNMX: p ? min : max
  kViaddmnmx,  // VIADDMNMX: min/max(a + b, c)
  kImnmx3,     // VIMNMX3: min/max of three
  kFlo,        // FLO[.SH]: the highest set bit (or its distance from bit 31)
  kPopc, kBrev,
  kBmsk,       // BMSK: b ones from bit a
  kP2r,        // P2R: the predicates into a register's bits (under a mask)
  kR2p,        // R2P: a register's bits into the predicates (under a mask)
  kVabsdiff4,  // VABSDIFF4.U8[.ACC]: sum of |a_i - b_i| over bytes
};

// Modifiers of a source operand (the emulator applies none of them itself).
enum SourceMod : uint8_t {
  kModNeg = 1,    // -x (arithmetic negation; a float's sign)
  kModAbs = 2,    // |x|
  kModNot = 4,    // ~x, or !P on a predicate
  kModH0 = 8,     // .H0_H0: the low half in both halves of a packed pair
  kModH1 = 16,    // .H1_H1: the high half in both
  kModH1Only = 32,  // .H1: the high half (a scalar half source)
};

// Comparisons of ISETP, FSETP, DSETP (SASS spells the unordered ones with a U).
// kMin/kMax: DSETP.MIN/MAX, the predicates of a min or max (fsetp in sass_alu.cpp).
enum class Cmp : uint8_t { kF, kLt, kEq, kLe, kGt, kNe, kGe, kNum, kNan, kLtu, kEqu, kLeu, kGtu, kNeu, kGeu, kT, kMin, kMax };
enum class BoolOp : uint8_t { kAnd, kOr, kXor };

struct SassAlu {
  SassOp op = SassOp::kNone;
  Cmp cmp = Cmp::kF;
  BoolOp boolop = BoolOp::kAnd;
  uint8_t lut = 0, lut2 = 0;  // LOP3, PLOP3
  uint8_t shift = 0;          // LEA's shift; P2R/R2P's mask is a source
  uint8_t rounding = 0;       // 0 nearest even, 1 toward zero, 2 down, 3 up
  uint8_t from = 0, to = 0;   // conversion formats (FormatCode)
  uint16_t flags = 0;         // Flag bits below
};

enum Flag : uint16_t {
  kFlagUnsigned = 1,   // .U32 (compares, IMAD.HI/WIDE, IMNMX)
  kFlagX = 2,          // .X: carry-in
  kFlagHi = 4,         // SHF .HI; LEA.HI
  kFlagLeft = 8,       // SHF .L
  kFlag64 = 16,        // SHF .U64/.S64; LEA.HI .SX32 is kFlagSx32
  kFlagSigned = 32,    // SHF .S32/.S64
  kFlagFtz = 64,
  kFlagSat = 128,
  kFlagEx = 256,       // ISETP .EX
  kFlagF32Out = 512,   // HADD2.F32 / HFMA2.F32: one f32 result
  kFlagSx32 = 1024,    // LEA.HI .SX32
  kFlagSh = 2048,      // FLO .SH
  kFlagAcc = 4096,     // VABSDIFF4 .ACC
  kFlagTrunc = 8192,   // F2I .NTZ/.TRUNC, FRND .TRUNC
  kFlagPack = 16384,   // F2FP .PACK_AB
  kFlagUnpack = 32768, // F2FP .UNPACK_B
  kFlagPacked16 = kFlagSh,  // VIADD.16x2, VIMNMX.{S,U}16x2: two 16-bit lanes (FLO never has it)
};

// Numeric formats of conversions and MUFU's function (in SassAlu::from/to).
enum FormatCode : uint8_t {
  kFmtF32, kFmtF64, kFmtF16, kFmtBf16, kFmtE4m3, kFmtE5m2, kFmtS32, kFmtU32, kFmtS64, kFmtU64, kFmtS16, kFmtU16, kFmtS8, kFmtU8,
};
enum MufuFn : uint8_t { kMufuEx2, kMufuLg2, kMufuRcp, kMufuRsq, kMufuSqrt, kMufuSin, kMufuCos, kMufuTanh, kMufuRcp64h, kMufuRsq64h };

inline constexpr int kMaxSources = 8;
inline constexpr int kMaxResults = 3;

// The instruction's results for one lane from its sources (read as 64-bit values: a register's 32
// bits, a pair's 64, a predicate's 0 or 1) and their modifiers. Sources and results are in the
// order sass_alu_operands() in lower_sass.cpp gives them.
void evaluate(const SassAlu& alu, const uint64_t* src, const uint8_t* mods, int sources, uint64_t* result);

}  // namespace warpsim::sass
