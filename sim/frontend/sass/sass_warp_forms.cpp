// SASS's warp-wide and CTA-wide instructions and its tensor-core MMAs, lowered to the PTX
// instruction with the same meaning: shfl, match, redux, bar, ldmatrix, movmatrix, mma.sync.
#include "frontend/ptx/mma_sync_form.h"
#include "frontend/sass/sass_lowering.h"

namespace warpsim::sass {

using ptx::EmuInst;
using ptx::EmuOp;
using ptx::EmuOperand;

namespace {

// "16816" -> m16n8k16; "8x8x4", "16x8x8" (DMMA); "884".
bool mma_shape(const std::string& s, uint32_t& m, uint32_t& n, uint32_t& k) {
  if (s.find('x') != std::string::npos) {
    const size_t a = s.find('x'), b = s.find('x', a + 1);
    if (b == std::string::npos) return false;
    m = static_cast<uint32_t>(std::stoul(s.substr(0, a))), n = static_cast<uint32_t>(std::stoul(s.substr(a + 1, b - a - 1)));
    k = static_cast<uint32_t>(std::stoul(s.substr(b + 1)));
    return true;
  }
  if (s.size() < 3 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  if (s.rfind("168", 0) == 0) return m = 16, n = 8, k = static_cast<uint32_t>(std::stoul(s.substr(3))), true;
  if (s.rfind("88", 0) == 0) return m = 8, n = 8, k = static_cast<uint32_t>(std::stoul(s.substr(2))), true;
  return false;
}

std::string lower_case(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool SassLowering::lower_warp(EmuInst& e) {
  const std::string& b = base();
  auto word = [&](size_t i) {  // a register, or an immediate given in the text (more than one per instruction)
    return op(i).kind == SassOperand::Kind::kImm ? immediate(control_immediate(i)) : source(i);
  };
  if (b == "SHFL") {
    // SHFL.mode Pd, Rd, Ra, b, c: the PTX's shfl.sync d|p, a, b, c with every lane in the mask
    // (the SASS has no mask: the WARPSYNC before it says which lanes take part).
    if (operand_count() != 5 || mods().empty()) fail(opcode() + " takes a mode and 5 operands");
    EmuOperand dp = result(1);
    EmuOperand d;
    d.kind = EmuOperand::Kind::kVector;
    d.regs = {dp.kind == EmuOperand::Kind::kReg ? dp.reg : -1, result(0).kind == EmuOperand::Kind::kReg ? result(0).reg : -1};
    d.immediates = {0, 0};
    as_ptx(e, "shfl.sync." + lower_case(mods()[0]) + ".b32", {d, source(2), word(3), word(4), immediate(0xffffffffu)});
    return true;
  }
  if (b == "MATCH") {
    if (operand_count() != 2 || !has("ANY")) fail(opcode() + ": only MATCH.ANY Rd, Ra is supported by the SASS emulator yet");
    const bool wide = has("U64");
    as_ptx(e, std::string("match.any.sync.") + (wide ? "b64" : "b32"), {result(0), source(1, wide ? Slot::kPair : Slot::kWord), immediate(0xffffffffu)});
    return true;
  }
  if (b == "REDUX") {
    if (operand_count() != 2 || mods().empty()) fail(opcode() + " takes an operation and 2 operands");
    static const std::map<std::string, std::string> kOps = {{"SUM", "add"}, {"MIN", "min"}, {"MAX", "max"}, {"AND", "and"}, {"OR", "or"}, {"XOR", "xor"}};
    if (!kOps.count(mods()[0])) fail(opcode() + ": unknown REDUX operation");
    const std::string what = kOps.at(mods()[0]);
    const std::string type = (what == "and" || what == "or" || what == "xor") ? "b32" : has("S32") ? "s32" : "u32";
    as_ptx(e, "redux.sync." + what + "." + type, {result(0), source(1), immediate(0xffffffffu)});
    e.uniform_result = true;
    return true;
  }
  if (b == "BAR") {
    // BAR.SYNC id[, threads]; BAR.ARV id, threads; BAR.RED.{POPC,AND,OR} id, [threads,] P, whose
    // result B2R.RESULT reads back.
    if (has("RED")) {
      const bool popc = has("POPC");
      EmuOperand d;
      d.kind = EmuOperand::Kind::kReg;
      d.reg = popc ? hidden("barrier_result", 32) : hidden("barrier_predicate", 1);
      std::vector<EmuOperand> ops{d};
      for (size_t i = 0; i + 1 < operand_count(); ++i) ops.push_back(word(i));
      ops.push_back(source(operand_count() - 1));
      as_ptx(e, popc ? "bar.red.popc.u32" : has("AND") ? "bar.red.and.pred" : "bar.red.or.pred", std::move(ops));
      return true;
    }
    // BAR.SYNC Rn, Rn: the barrier in bits 0-3 of Rn, the thread count in bits 16 on (ptxas's
    // collective fallback for __syncthreads in grid_sync.cu builds it so, 0 for the whole CTA).
    if (operand_count() == 2 && op(0).kind == SassOperand::Kind::kReg && op(1).kind == SassOperand::Kind::kReg &&
        op(0).reg.file == op(1).reg.file && op(0).reg.index == op(1).reg.index && !has("ARV")) {
      as_ptx(e, "bar.sync", {source(0)});
      e.barrier_word = true;
      return true;
    }
    std::vector<EmuOperand> ops;
    for (size_t i = 0; i < operand_count(); ++i) ops.push_back(word(i));
    if (ops.empty()) fail(opcode() + " names no barrier");
    as_ptx(e, has("ARV") ? "bar.arrive" : "bar.sync", std::move(ops));
    return true;
  }
  if (b == "NOP") {
    e.code = EmuOp::kNop;
    return true;
  }
  if (b == "NANOSLEEP") {
    as_ptx(e, "nanosleep.u32", {word(0)});
    return true;
  }
  if (b == "LDSM" || b == "MOVM") {
    // LDSM.16.M88.n Rd, [a]: ldmatrix .xn (MT88: .trans); MOVM.16.MT88 Rd, Ra: movmatrix.
    const bool trans = has("MT88");
    if (b == "MOVM") {
      if (operand_count() != 2 || !trans) fail(opcode() + ": only MOVM.16.MT88 is supported by the SASS emulator");
      as_ptx(e, "movmatrix.sync.aligned.m8n8.trans.b16", {result(0), source(1)});
      return true;
    }
    const uint32_t n = has("4") ? 4 : has("2") ? 2 : 1;
    if (operand_count() != 2) fail(opcode() + " takes 2 operands");
    as_ptx(e, "ldmatrix.sync.aligned.m8n8.x" + std::to_string(n) + (trans ? ".trans" : "") + ".shared.b16",
           {n > 1 ? result(0, n) : result(0), address(1)});
    return true;
  }
  if (b == "HMMA" || b == "IMMA") {
    // HMMA.16816.F32[.BF16|.TF32] D, A, B, C and IMMA.16832.S8.U8[.SAT]: the mma.sync of that
    // shape and types, its fragments the runs of registers from each operand. With .SP, the 2:4
    // structured-sparse form (HMMA.SP.16832.F32 D, A, B, C, E, selector): PTX's mma.sp with the
    // metadata register E and the sparsity selector, the shape the logical (uncompressed) one.
    const bool sparse = has("SP");
    const size_t at = sparse ? 1 : 0;  // where the shape is among the modifiers
    uint32_t m = 0, n = 0, k = 0;
    if (mods().size() <= at || !mma_shape(mods()[at], m, n, k)) fail(opcode() + ": no MMA shape");
    if (operand_count() != (sparse ? 6u : 4u)) fail(opcode() + " takes " + (sparse ? "6" : "4") + " operands");
    std::string types;  // d.a.b.c
    if (b == "HMMA") {
      const std::string a = has("BF16") ? "bf16" : has("TF32") ? "tf32" : "f16", acc = has("F32") ? "f32" : "f16";
      types = acc + "." + a + "." + a + "." + acc;
    } else {
      const std::string t0 = mods().size() > at + 1 ? lower_case(mods()[at + 1]) : "s8", t1 = mods().size() > at + 2 ? lower_case(mods()[at + 2]) : t0;
      types = std::string(has("SAT") ? "satfinite." : "") + "s32." + t0 + "." + t1 + ".s32";
    }
    const std::string mnemonic = std::string(sparse ? "mma.sp" : "mma") + ".sync.aligned.m" + std::to_string(m) + "n" + std::to_string(n) + "k" +
                                 std::to_string(k) + ".row.col." + types;
    ptx::MmaSyncForm form;
    ptx::EmuInst probe;
    ptx::set_mnemonic(probe, mnemonic);
    if (const std::string why = ptx::decode_mma_sync(mnemonic, probe.mods, form); !why.empty()) fail(opcode() + ": " + why);
    std::vector<EmuOperand> operands = {result(0, form.d_registers()), registers(op(1).reg, form.a_registers(), false),
                                        registers(op(2).reg, form.b_registers(), false), registers(op(3).reg, form.c_registers(), false)};
    if (sparse) {
      if (op(5).kind != SassOperand::Kind::kImm) fail(opcode() + ": the sparsity selector must be an immediate");
      operands.push_back(source(4));
      operands.push_back(immediate(control_immediate(5)));
    }
    as_ptx(e, mnemonic, std::move(operands));
    return true;
  }
  if (b == "DMMA") {
    // DMMA.884 (Ampere), DMMA.8x8x4 / 16x8x4 / 16x8x8 / 16x8x16 (Hopper) D, A, B, C: mma.sync's
    // f64 forms, each element a pair of registers, low word first.
    uint32_t m = 0, n = 0, k = 0;
    if (mods().empty() || !mma_shape(mods()[0], m, n, k)) fail(opcode() + ": no MMA shape");
    if (operand_count() != 4) fail(opcode() + " takes 4 operands");
    const std::string mnemonic = "mma.sync.aligned.m" + std::to_string(m) + "n" + std::to_string(n) + "k" + std::to_string(k) + ".row.col.f64.f64.f64.f64";
    ptx::MmaSyncForm form;
    ptx::EmuInst probe;
    ptx::set_mnemonic(probe, mnemonic);
    if (const std::string why = ptx::decode_mma_sync(mnemonic, probe.mods, form); !why.empty()) fail(opcode() + ": " + why);
    as_ptx(e, mnemonic, {result(0, 2 * form.d_registers()), registers(op(1).reg, 2 * form.a_registers(), false),
                         registers(op(2).reg, 2 * form.b_registers(), false), registers(op(3).reg, 2 * form.c_registers(), false)});
    return true;
  }
  return false;
}

bool SassLowering::lower_flow(EmuInst& e) {
  const std::string& b = base();
  using F = SassFlow;
  auto flow = [&](F f) {
    e.code = EmuOp::kSassFlow;
    e.flow = f;
  };
  auto label = [&](size_t i) {
    EmuOperand t;
    t.kind = EmuOperand::Kind::kLabel;
    t.target = target_of(i);
    return t;
  };
  auto barrier = [&](size_t i) {
    const SassOperand& o = op(i);
    if (o.kind != SassOperand::Kind::kReg || o.reg.file != RegFile::kB) fail("operand " + std::to_string(i + 1) + " of " + opcode() + " must be a convergence barrier (B0-B15)");
    EmuOperand r;
    r.kind = EmuOperand::Kind::kReg;
    r.reg = reg_id(o.reg);
    return r;
  };
  auto mask = [&](size_t i) { return op(i).kind == SassOperand::Kind::kImm ? immediate(control_immediate(i)) : source(i); };
  if (b == "BRA" || b == "JMP") {
    if (operand_count() == 2 && op(0).kind == SassOperand::Kind::kReg && (op(0).reg.file == RegFile::kP || op(0).reg.file == RegFile::kUP)) {
      // BRA P, target: the guard's lanes whose P holds go
      flow(has("ANY") ? F::kBraAny : F::kBra);
      e.operands = {label(1), source(0)};
    } else if (operand_count() == 2) {  // BRA.DIV / BRA.CONV mask, target
      flow(has("DIV") ? F::kBraDiv : F::kBraConv);
      if (!has("DIV") && !has("CONV")) fail(opcode() + " with a mask must be .DIV or .CONV");
      e.operands = {label(1), mask(0)};
    } else {
      if (operand_count() != 1) fail(opcode() + " takes a target");
      flow(has("ANY") ? F::kBraAny : F::kBra);
      e.operands = {label(0)};
    }
    return true;
  }
  if (b == "BSSY") {
    flow(F::kBssy);
    if (operand_count() != 2) fail("BSSY takes a barrier and a target");
    e.operands = {barrier(0), label(1)};
    e.sass_results = 1;
    return true;
  }
  if (b == "BSYNC" || b == "BREAK") {
    flow(b == "BSYNC" ? F::kBsync : F::kBreak);
    if (operand_count() != 1) fail(opcode() + " takes a barrier");
    e.operands = {barrier(0)};
    if (b == "BREAK") e.sass_results = 1;
    return true;
  }
  if (b == "YIELD") {
    flow(F::kYield);
    return true;
  }
  if (b == "WARPSYNC") {
    flow(has("EXCLUSIVE") || has("COLLECTIVE") ? F::kWarpsyncExclusive : F::kWarpsync);
    if (has("ALL")) {
      e.operands = {immediate(0xffffffffu)};
    } else {
      if (operand_count() < 1) fail("WARPSYNC takes a mask");
      e.operands = {mask(0)};
    }
    return true;
  }
  if (b == "ENDCOLLECTIVE") {
    e.code = EmuOp::kNop;  // the collective's lanes ran together from its WARPSYNC.COLLECTIVE
    return true;
  }
  if (b == "BPT" && has("TRAP")) {  // the PTX's trap (ptxas's own checks branch around it)
    as_ptx(e, "trap", {});
    return true;
  }
  if (b == "EXIT" || b == "KILL") {
    flow(F::kExit);
    return true;
  }
  if (b == "CALL") {
    if (operand_count() != 1) fail("CALL takes a target");
    const bool through_register = op(0).kind == SassOperand::Kind::kReg && op(0).reg.file == RegFile::kR;
    if (has("ABS")) {
      // A call into the CUDA runtime (printf, malloc, free, assert) at the address constant
      // bank 4 gives: its arguments from R4 on, its result in R4 (R4:R5), ret (runtime_ops.cpp).
      if (!through_register) fail("CALL.ABS takes the register pair holding the function's address");
      e.code = EmuOp::kSassRuntimeCall;
      e.operands = {registers(SassReg{RegFile::kR, 4}, 2, true), source(0, Slot::kPair), registers(SassReg{RegFile::kR, 4}, 10, false)};
      e.sass_results = 1;
      return true;
    }
    // CALL.REL.NOINC Rn: a call through a function pointer (its address as the module's
    // function_addresses.h gives it), to the subroutine the listing has for that function.
    flow(through_register ? F::kCallIndirect : F::kCall);
    e.operands = {through_register ? source(0, Slot::kPair) : label(0)};
    return true;
  }
  if (b == "RET") {
    flow(F::kRet);
    if (operand_count() < 1) fail("RET takes the register holding the return address");
    e.operands = {source(0)};
    return true;
  }
  return false;
}

}  // namespace warpsim::sass
