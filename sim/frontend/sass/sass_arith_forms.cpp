// SASS arithmetic, logic, compares, conversions and moves: each opcode's operands put in the
// order sass_alu.h's evaluate() reads them (results first), its modifiers decoded once.
#include <set>

#include "frontend/sass/sass_lowering.h"

namespace warpsim::sass {

using ptx::EmuInst;
using ptx::EmuOp;
using ptx::EmuOperand;

namespace {

// Uniform-datapath opcodes that compute what their vector form does (on uniform registers).
const std::set<std::string> kUniformAlu = {"UIADD3", "UIMAD", "ULEA", "ULOP3", "USHF", "UISETP", "USEL", "UPRMT", "UPOPC", "UFLO",
                                           "UBMSK", "UMOV", "UPLOP3", "UBREV", "USGXT"};

Cmp comparison(const std::string& m, bool& found) {
  static const std::map<std::string, Cmp> kCmp = {{"F", Cmp::kF},     {"LT", Cmp::kLt},   {"EQ", Cmp::kEq},   {"LE", Cmp::kLe},
                                                  {"GT", Cmp::kGt},   {"NE", Cmp::kNe},   {"GE", Cmp::kGe},   {"NUM", Cmp::kNum},
                                                  {"NAN", Cmp::kNan}, {"LTU", Cmp::kLtu}, {"EQU", Cmp::kEqu}, {"LEU", Cmp::kLeu},
                                                  {"GTU", Cmp::kGtu}, {"NEU", Cmp::kNeu}, {"GEU", Cmp::kGeu}, {"T", Cmp::kT},
                                                  {"MIN", Cmp::kMin}, {"MAX", Cmp::kMax}};
  const auto it = kCmp.find(m);
  found = it != kCmp.end();
  return found ? it->second : Cmp::kF;
}

bool is_predicate(const SassOperand& o) {
  return o.kind == SassOperand::Kind::kReg && (o.reg.file == RegFile::kP || o.reg.file == RegFile::kUP);
}

}  // namespace

bool SassLowering::lower_arithmetic(EmuInst& e) {
  std::string b = base();
  if (kUniformAlu.count(b)) b = b.substr(1);
  std::vector<EmuOperand> out;
  auto res = [&](size_t i, uint32_t words = 1) {
    out.push_back(result(i, words));
    ++e.sass_results;
  };
  auto src = [&](size_t i, Slot s = Slot::kWord) { out.push_back(source(i, s)); };
  auto alu = [&](SassOp op) {
    e.code = EmuOp::kSass;
    e.sass.op = op;
  };
  auto expect = [&](size_t n) {
    if (operand_count() != n) fail(opcode() + " takes " + std::to_string(n) + " operands, not " + std::to_string(operand_count()));
  };
  auto rounding = [&] {
    e.sass.rounding = has("RZ") ? 1 : has("RM") ? 2 : has("RP") ? 3 : 0;
    if (has("FLOOR")) e.sass.rounding = 2;
    if (has("CEIL")) e.sass.rounding = 3;
    if (has("TRUNC")) e.sass.flags |= kFlagTrunc;
  };
  auto flag = [&](const char* mod, uint16_t f) {
    if (has(mod)) e.sass.flags |= f;
  };
  auto compare_and_bool = [&] {
    bool cmp_found = false;
    for (const auto& m : mods()) {
      bool found = false;
      const Cmp c = comparison(m, found);
      if (found && !cmp_found) e.sass.cmp = c, cmp_found = true;
      if (m == "AND") e.sass.boolop = BoolOp::kAnd;
      if (m == "OR") e.sass.boolop = BoolOp::kOr;
      if (m == "XOR") e.sass.boolop = BoolOp::kXor;
    }
    if (!cmp_found) fail(opcode() + " names no comparison");
  };

  if (b == "R2UR" && operand_count() == 3) {
    // R2UR P, URd, Ra: URd takes the first lane's Ra, P whether every executing lane holds it.
    e.code = EmuOp::kSassVote;
    e.sass.from = 3;
    res(1), res(0), src(2);
  } else if (b == "MOV" || b == "MOV32I" || b == "S2R" || b == "S2UR" || b == "R2UR" || b == "ULDC" || (b == "LDC" && op(1).kind == SassOperand::Kind::kConst &&
                                                                                                   !(op(1).reg.valid() && !op(1).reg.zero()))) {
    expect(2);
    alu(SassOp::kMov);
    const bool wide = has("64");
    if (wide) e.sass.flags |= kFlag64;
    res(0, wide ? 2 : 1);
    src(1, wide ? Slot::kPair : Slot::kWord);
  } else if (b == "CS2R") {
    expect(2);
    alu(SassOp::kMov);
    e.sass.flags |= kFlag64;
    res(0, has("32") ? 1 : 2);
    src(1);
  } else if (b == "LEPC") {
    // LEPC Rd, label (sm_90) reads the label's address, LEPC Rd (sm_80) its own: the code
    // addresses a call into the CUDA runtime returns to.
    if (operand_count() != 1) expect(2);
    alu(SassOp::kMov);
    e.sass.flags |= kFlag64;
    res(0, 2);
    out.push_back(immediate(uint64_t{operand_count() == 1 ? inst().address : target_of(1) * 16}));
  } else if (b == "B2R") {
    // B2R.RESULT Rd: BAR.RED.POPC's count; B2R.RESULT RZ, Pd: BAR.RED.AND/OR's predicate.
    alu(SassOp::kMov);
    const bool predicate = operand_count() == 2;
    if (predicate && !(op(0).kind == SassOperand::Kind::kReg && op(0).reg.zero())) fail("B2R.RESULT with both a register and a predicate is not supported yet");
    res(predicate ? 1 : 0);
    EmuOperand r;
    r.kind = EmuOperand::Kind::kReg;
    r.reg = predicate ? hidden("barrier_predicate", 1) : hidden("barrier_result", 32);
    out.push_back(r);
  } else if (b == "IMAD") {
    if (has("HI")) {
      expect(4);
      alu(SassOp::kImadHi);
      flag("U32", kFlagUnsigned);
      res(0), src(1), src(2), src(3, Slot::kPair);
    } else if (has("WIDE") && operand_count() == 5 && is_predicate(op(1))) {
      // IMAD.WIDE.U32 Rd, P, a, b, c: also the carry out of the 64-bit sum (which IMAD.X adds
      // into the bits above; libdevice's 64 x 64-bit products).
      if (!has("U32")) fail(opcode() + " with a carry out: only the unsigned form is supported by the SASS emulator");
      alu(SassOp::kImadWide);
      flag("U32", kFlagUnsigned);
      res(0, 2), res(1), src(2), src(3), src(4, Slot::kPair);
    } else if (has("WIDE")) {
      expect(4);
      alu(SassOp::kImadWide);
      flag("U32", kFlagUnsigned);
      res(0, 2), src(1), src(2), src(3, Slot::kPair);
    } else {
      alu(SassOp::kImad);
      flag("X", kFlagX);
      expect(has("X") ? 5 : 4);
      res(0), src(1), src(2), src(3);
      if (has("X")) src(4);
    }
  } else if (b == "IADD3" || b == "VIADD" || b == "IADD") {
    alu(SassOp::kIadd3);
    flag("X", kFlagX);
    if (b == "VIADD") {
      if (has("16x2")) e.sass.flags |= kFlagPacked16;
      else if (mods().size() > 0) fail(opcode() + " is not supported by the SASS emulator yet");
      expect(3);
      res(0), src(1), src(2);
      out.push_back(immediate(0));
    } else {
      size_t i = 1;
      std::vector<size_t> carries;
      while (i < operand_count() && is_predicate(op(i)) && operand_count() - i > 3) carries.push_back(i++);
      res(0);
      for (size_t c : carries) res(c);  // results in evaluate()'s order: the sum, then the carries
      for (size_t k = 0; k < 3; ++k, ++i) src(i);
      for (; i < operand_count(); ++i) src(i);  // .X's carry-ins
    }
  } else if (b == "LEA") {
    const bool hi = has("HI"), x = has("X"), sx = has("SX32");
    alu(hi ? SassOp::kLeaHi : SassOp::kLea);
    flag("X", kFlagX);
    flag("SX32", kFlagSx32);
    size_t i = 1;
    const bool carry_out = is_predicate(op(1));
    res(0);
    if (carry_out) res(1), i = 2;
    src(i), src(i + 1);
    i += 2;
    if (hi && !sx) src(i++);
    e.sass.shift = static_cast<uint8_t>(control_immediate(i++) & 63);
    if (x) src(i++);
    if (i != operand_count()) fail(opcode() + " has " + std::to_string(operand_count()) + " operands, not the " + std::to_string(i) + " its form takes");
  } else if (b == "LOP3") {
    alu(SassOp::kLop3);
    const bool pred_out = is_predicate(op(0));
    expect(pred_out ? 7 : 6);
    const size_t d = pred_out ? 1 : 0;
    res(d);
    if (pred_out) res(0);
    src(d + 1), src(d + 2), src(d + 3);
    e.sass.lut = static_cast<uint8_t>(control_immediate(d + 4));
    const SassOperand& pass = op(d + 5);
    if (!is_predicate(pass) || !pass.reg.zero()) fail("LOP3 with a predicate other than PT after its table is not supported yet");
  } else if (b == "PLOP3") {
    expect(7);
    alu(SassOp::kPlop3);
    res(0), res(1), src(2), src(3), src(4);
    e.sass.lut = static_cast<uint8_t>(control_immediate(5));
    e.sass.lut2 = static_cast<uint8_t>(control_immediate(6));
  } else if (b == "SHF") {
    expect(4);
    alu(SassOp::kShf);
    flag("L", kFlagLeft);
    flag("HI", kFlagHi);
    if (has("U64") || has("S64")) e.sass.flags |= kFlag64;
    if (has("S32") || has("S64")) e.sass.flags |= kFlagSigned;
    res(0), src(1), src(2), src(3);
  } else if (b == "ISETP" || b == "FSETP" || b == "DSETP") {
    alu(b == "ISETP" ? SassOp::kIsetp : b == "FSETP" ? SassOp::kFsetp : SassOp::kDsetp);
    compare_and_bool();
    flag("U32", kFlagUnsigned);
    flag("EX", kFlagEx);
    flag("FTZ", kFlagFtz);
    expect(has("EX") ? 6 : 5);
    const Slot s = b == "DSETP" ? Slot::kDoubleHigh : Slot::kWord;  // an f64 immediate is its high word
    res(0), res(1), src(2, s), src(3, s), src(4);
    if (has("EX")) src(5);
  } else if (b == "SEL" || b == "FSEL") {
    expect(4);
    alu(b == "FSEL" ? SassOp::kFsel : SassOp::kSel);
    res(0), src(1), src(2), src(3);
  } else if (b == "PRMT") {
    expect(4);
    if (mods().size() > 0) fail(opcode() + ": PRMT's modes are not supported by the SASS emulator yet");
    alu(SassOp::kPrmt);
    res(0), src(1), src(2), src(3);
  } else if (b == "FFMA" || b == "FADD" || b == "FMUL" || b == "FFMA32I" || b == "FADD32I" || b == "FMUL32I") {
    alu(b.starts_with("FFMA") ? SassOp::kFfma : b.starts_with("FADD") ? SassOp::kFadd : SassOp::kFmul);
    flag("FTZ", kFlagFtz);
    flag("SAT", kFlagSat);
    rounding();
    expect(e.sass.op == SassOp::kFfma ? 4 : 3);
    res(0);
    for (size_t i = 1; i < operand_count(); ++i) src(i);
  } else if (b == "FMNMX") {
    expect(4);
    alu(SassOp::kFmnmx);
    flag("FTZ", kFlagFtz);
    res(0), src(1), src(2), src(3);
  } else if (b == "DFMA" || b == "DADD" || b == "DMUL") {
    alu(b == "DFMA" ? SassOp::kDfma : b == "DADD" ? SassOp::kDadd : SassOp::kDmul);
    rounding();
    expect(e.sass.op == SassOp::kDfma ? 4 : 3);
    res(0, 2);
    for (size_t i = 1; i < operand_count(); ++i) src(i, Slot::kDoubleHigh);
  } else if (b == "HFMA2" || b == "HADD2" || b == "HMUL2") {
    alu(b == "HFMA2" ? SassOp::kHfma2 : b == "HADD2" ? SassOp::kHadd2 : SassOp::kHmul2);
    flag("F32", kFlagF32Out);
    flag("SAT", kFlagSat);
    if (has("BF16") || has("BF16_V2")) fail(opcode() + ": bf16 packed arithmetic is not supported by the SASS emulator yet");
    const size_t sources = e.sass.op == SassOp::kHfma2 ? 3 : 2;
    // A packed immediate prints as its two halves (high first): one 32-bit value in the encoding.
    const bool pair_immediate = operand_count() == sources + 2;
    if (operand_count() != sources + 1 && !pair_immediate) fail(opcode() + " has " + std::to_string(operand_count()) + " operands");
    res(0);
    for (size_t i = 1; i <= sources; ++i) src(i);
  } else if (b == "MUFU") {
    expect(2);
    alu(SassOp::kMufu);
    static const std::map<std::string, MufuFn> kFn = {{"EX2", kMufuEx2},   {"LG2", kMufuLg2},   {"RCP", kMufuRcp},         {"RSQ", kMufuRsq},
                                                      {"SQRT", kMufuSqrt}, {"SIN", kMufuSin},   {"COS", kMufuCos},         {"TANH", kMufuTanh},
                                                      {"RCP64H", kMufuRcp64h}, {"RSQ64H", kMufuRsq64h}};
    if (mods().empty() || !kFn.count(mods()[0])) fail(opcode() + ": unknown MUFU function");
    e.sass.from = kFn.at(mods()[0]);
    res(0), src(1);
  } else if (b == "F2F" || b == "F2I" || b == "I2F" || b == "I2FP" || b == "FRND") {
    expect(2);
    static const std::map<std::string, FormatCode> kFormats = {{"F32", kFmtF32}, {"F64", kFmtF64}, {"F16", kFmtF16}, {"BF16", kFmtBf16},
                                                               {"S32", kFmtS32}, {"U32", kFmtU32}, {"S64", kFmtS64}, {"U64", kFmtU64},
                                                               {"S16", kFmtS16}, {"U16", kFmtU16}, {"S8", kFmtS8},   {"U8", kFmtU8}};
    std::vector<FormatCode> floats, ints;
    for (const auto& m : mods()) {
      const auto it = kFormats.find(m);
      if (it == kFormats.end()) continue;
      const bool is_float = it->second == kFmtF32 || it->second == kFmtF64 || it->second == kFmtF16 || it->second == kFmtBf16;
      (is_float ? floats : ints).push_back(it->second);
    }
    rounding();
    flag("FTZ", kFlagFtz);
    flag("SAT", kFlagSat);
    if (b == "F2F") {
      alu(SassOp::kF2f);
      if (floats.size() != 2) fail(opcode() + ": F2F names its destination and source formats");
      e.sass.to = floats[0], e.sass.from = floats[1];
    } else if (b == "F2I") {
      alu(SassOp::kF2i);
      e.sass.from = floats.empty() ? kFmtF32 : floats[0];
      e.sass.to = ints.empty() ? kFmtS32 : ints[0];
    } else if (b == "FRND") {
      alu(SassOp::kFrnd);
      e.sass.from = floats.empty() ? kFmtF32 : floats[0];
      e.sass.to = e.sass.from;
    } else {
      alu(SassOp::kI2f);
      e.sass.to = floats.empty() ? kFmtF32 : floats[0];
      e.sass.from = ints.empty() ? kFmtS32 : ints[0];
    }
    auto words = [](uint8_t f) { return f == kFmtF64 || f == kFmtS64 || f == kFmtU64 ? 2u : 1u; };
    res(0, words(e.sass.to));
    src(1, words(e.sass.from) == 2 ? Slot::kPair : Slot::kWord);
  } else if (b == "F2FP") {
    alu(SassOp::kF2fp);
    static const std::map<std::string, FormatCode> kFormats = {{"F16", kFmtF16}, {"BF16", kFmtBf16}, {"E4M3", kFmtE4m3}, {"E5M2", kFmtE5m2}, {"F32", kFmtF32}};
    std::vector<FormatCode> named;
    for (const auto& m : mods())
      if (kFormats.count(m)) named.push_back(kFormats.at(m));
    flag("SATFINITE", kFlagSat);
    if (has("UNPACK_B")) {
      e.sass.flags |= kFlagUnpack;
      if (named.size() != 2) fail(opcode() + ": an unpack names its destination and source formats");
      e.sass.to = named[0], e.sass.from = named[1];
      expect(2);
      res(0), src(1);
    } else {
      e.sass.to = named.empty() ? kFmtF16 : named[0];
      e.sass.from = kFmtF32;
      e.sass.flags |= kFlagPack;
      res(0);
      for (size_t i = 1; i < operand_count(); ++i) src(i);
      if (operand_count() < 3) fail(opcode() + " packs two values");
    }
  } else if (b == "FCHK") {
    expect(3);
    alu(SassOp::kFchk);
    res(0), src(1), src(2);
  } else if (b == "IABS") {
    expect(2);
    alu(SassOp::kIabs);
    res(0), src(1);
  } else if (b == "IMNMX" || b == "VIMNMX" || b == "VIADDMNMX" || b == "VIMNMX3") {
    alu(b == "VIADDMNMX" ? SassOp::kViaddmnmx : b == "VIMNMX3" ? SassOp::kImnmx3 : SassOp::kImnmx);
    flag("U32", kFlagUnsigned);
    if (has("S16x2") || has("U16x2")) {
      if (b != "VIMNMX") fail(opcode() + " is not supported by the SASS emulator yet");
      e.sass.flags |= kFlagPacked16;
      flag("U16x2", kFlagUnsigned);
    } else if (has("S16") || has("U16")) {
      fail(opcode() + ": 16-bit min/max is not supported by the SASS emulator yet");
    }
    res(0);
    for (size_t i = 1; i < operand_count(); ++i) src(i);
    expect(e.sass.op == SassOp::kImnmx ? 4 : 5);
  } else if (b == "FLO") {
    expect(2);
    alu(SassOp::kFlo);
    flag("SH", kFlagSh);
    if (has("S32")) fail("FLO.S32 is not supported by the SASS emulator yet");
    res(0), src(1);
  } else if (b == "POPC" || b == "BREV") {
    expect(2);
    alu(b == "POPC" ? SassOp::kPopc : SassOp::kBrev);
    res(0), src(1);
  } else if (b == "BMSK") {
    expect(3);
    alu(SassOp::kBmsk);
    if (has("C") || has("W")) fail(opcode() + ": BMSK's clamp and wrap forms are not supported by the SASS emulator yet");
    res(0), src(1), src(2);
  } else if (b == "P2R" || b == "UP2UR") {
    expect(4);
    alu(SassOp::kP2r);
    res(0);
    const bool uniform = b == "UP2UR";
    EmuOperand bits;
    bits.kind = EmuOperand::Kind::kVector;
    bits.predicate_bits = true;
    for (uint32_t p = 0; p < 7; ++p) bits.regs.push_back(reg_id(SassReg{uniform ? RegFile::kUP : RegFile::kP, p})), bits.immediates.push_back(0);
    out.push_back(bits);
    src(2), src(3);
  } else if (b == "R2P") {
    expect(3);
    alu(SassOp::kR2p);
    EmuOperand preds;
    preds.kind = EmuOperand::Kind::kVector;
    preds.predicate_bits = true;
    const uint64_t mask = control_immediate(2);
    for (uint32_t p = 0; p < 7; ++p) preds.regs.push_back((mask >> p & 1) ? reg_id(SassReg{RegFile::kP, p}) : -1), preds.immediates.push_back(0);
    out.push_back(preds);
    ++e.sass_results;
    src(1);
    out.push_back(immediate(mask));
  } else if (b == "VABSDIFF4") {
    expect(4);
    if (!has("U8")) fail(opcode() + ": only VABSDIFF4.U8 is supported by the SASS emulator yet");
    alu(SassOp::kVabsdiff4);
    flag("ACC", kFlagAcc);
    res(0), src(1), src(2), src(3);
  } else if (b == "VOTE" || b == "VOTEU") {
    e.code = EmuOp::kSassVote;
    e.sass.from = has("ALL") ? 1 : has("EQ") ? 2 : 0;
    if (operand_count() == 3) {
      res(0), res(1), src(2);
    } else {
      expect(2);
      out.push_back(EmuOperand{});  // no ballot
      ++e.sass_results;
      res(0), src(1);
    }
  } else {
    return false;
  }
  e.operands = std::move(out);
  if (e.sass_results > 0) {
    const SassOperand& first = op(0);
    e.uniform_result = first.kind == SassOperand::Kind::kReg && (first.reg.file == RegFile::kUR || first.reg.file == RegFile::kUP);
  }
  return true;
}

}  // namespace warpsim::sass
