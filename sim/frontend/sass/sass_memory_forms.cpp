// SASS loads, stores, atomics and asynchronous copies, each lowered to the PTX instruction with
// the same meaning (ld, st, atom, red, cp.async), so that memory, its faults and the kernel
// checkers exist once.
#include "frontend/ptx/value_bits.h"
#include "frontend/sass/sass_lowering.h"

namespace warpsim::sass {

using ptx::EmuInst;
using ptx::EmuOp;
using ptx::EmuOperand;

namespace {

// The access width a load or store names: its PTX type and vector length, and the registers
// it moves.
struct Width {
  std::string type = "b32";
  uint32_t vector = 1;
  uint32_t registers = 1;
};

Width width_of(const std::vector<std::string>& mods) {
  Width w;
  for (const auto& m : mods) {
    if (m == "U8") w.type = "u8";
    if (m == "S8") w.type = "s8";
    if (m == "U16") w.type = "u16";
    if (m == "S16") w.type = "s16";
    if (m == "64") w.vector = 2, w.registers = 2;
    if (m == "128") w.vector = 4, w.registers = 4;
  }
  return w;
}

std::string vector_prefix(const Width& w) { return w.vector > 1 ? "v" + std::to_string(w.vector) + "." : ""; }

// .STRONG.GPU / .STRONG.SYS: the access is a strong one (PTX's relaxed at that scope), which
// the race checker takes as synchronising through its word.
std::string strength(const std::vector<std::string>& mods) {
  for (size_t i = 0; i + 1 < mods.size(); ++i)
    if (mods[i] == "STRONG") return mods[i + 1] == "SYS" ? "relaxed.sys." : mods[i + 1] == "SM" || mods[i + 1] == "CTA" ? "relaxed.cta." : "relaxed.gpu.";
  return "";
}

}  // namespace

// Whether the shared load at `address` reads the high word of an mbarrier the kernel arrives on
// the Ampere way (ATOMS.ARRIVE.64, ARRIVES.LDGSTSBAR.64 at the same base, 4 bytes below): that is
// mbarrier.test_wait's poll on sm_80, an acquire of what the arrivals released. The arrivals'
// addresses are gathered once per kernel.
bool SassLowering::polls_ampere_mbarrier(const SassOperand& address) {
  if (!ampere_mbarriers_) {
    ampere_mbarriers_.emplace();
    for (const SassInstruction& other : f_.insts) {
      if (!(other.opcode.starts_with("ATOMS.ARRIVE.64") || other.opcode == "ARRIVES.LDGSTSBAR.64") || other.operands.empty()) continue;
      std::string why;
      const auto bar = parse_operand(other.operands.back(), why);
      if (bar && bar->kind == SassOperand::Kind::kAddress) ampere_mbarriers_->push_back(*bar);
    }
  }
  auto named = [](SassReg r) { return r.valid() && !r.zero() ? static_cast<int>(r.file) << 8 | static_cast<int>(r.index) : -1; };
  for (const SassOperand& bar : *ampere_mbarriers_)
    if (named(bar.reg) == named(address.reg) && named(bar.uniform) == named(address.uniform) && bar.value + 4 == address.value) return true;
  return false;
}

bool SassLowering::lower_memory(EmuInst& e) {
  const std::string& b = base();
  const bool load = b == "LDG" || b == "LD" || b == "LDS" || b == "LDL" || (b == "LDC" && operand_count() == 2 && op(1).kind == SassOperand::Kind::kConst);
  const bool store = b == "STG" || b == "ST" || b == "STS" || b == "STL";
  // 64-bit (".E") addressing: a global or generic address is a register pair even where the
  // listing prints it without ".64" (ATOMG.E.CAS ... [R2]).
  auto global_address = [&](size_t i) {
    EmuOperand a = address(i);
    if (has("E") && a.reg >= 0 && a.reg_hi < 0) {
      a.reg_hi = reg_id(SassReg{op(i).reg.file, op(i).reg.index + 1});
      a.address32 = false;
    }
    return a;
  };
  if (load || store) {
    const Width w = width_of(mods());
    std::string space = b == "LDG" || b == "STG" ? "global." : b == "LDS" || b == "STS" ? "shared." : b == "LDL" || b == "STL" ? "local." : b == "LDC" ? "const." : "";
    const std::string nc = has("CONSTANT") ? "nc." : "";
    const std::string mnemonic = std::string(load ? "ld." : "st.") + strength(mods()) + space + nc + vector_prefix(w) + w.type;
    if (operand_count() != 2) fail(opcode() + " takes 2 operands");
    EmuOperand addr;
    if (b == "LDC") {
      const SassOperand& c = op(1);
      addr.kind = EmuOperand::Kind::kAddr;
      addr.sass_address = true;
      addr.address32 = true;
      addr.bits = constant_base(c.bank) + static_cast<uint64_t>(c.value);
      if (c.reg.valid() && !c.reg.zero()) (c.reg.file == RegFile::kUR ? addr.uniform : addr.reg) = reg_id(c.reg);
    } else {
      addr = (b == "LDG" || b == "STG" || b == "LD" || b == "ST") ? global_address(load ? 1 : 0) : address(load ? 1 : 0);
    }
    const size_t data = load ? 0 : 1;
    EmuOperand value = w.registers > 1 ? (load ? result(data, w.registers) : registers(op(data).reg, w.registers, false)) : load ? result(data) : source(data);
    as_ptx(e, mnemonic, load ? std::vector<EmuOperand>{value, addr} : std::vector<EmuOperand>{addr, value});
    if (b == "LDS" && polls_ampere_mbarrier(op(1))) e.strong = true;
    // A strong access at GPU or system scope is served by L2, the point of coherence: the SMs'
    // L1s are not coherent with each other (__ldcg and volatile accesses compile to these).
    if (has("STRONG") && (has("GPU") || has("SYS")) && (space == "global." || space.empty())) e.op.bypass_l1 = true;
    return true;
  }
  if (b == "ATOMS" && has("ARRIVE")) {
    // Ampere's mbarrier.arrive (ATOMS.ARRIVE.64 Rd, [a]): one arrival on the mbarrier's word in
    // shared memory (ptx/value_bits.h, ampere_mbarrier_arrive), the old word (the token) in a pair.
    if (!has("64") || operand_count() != 2) fail(opcode() + ": only ATOMS.ARRIVE.64 Rd, [a] is supported by the SASS emulator");
    as_ptx(e, "atom.shared.add.u64", {result(0, 2), address(1), immediate(1)});
    e.atom_op = std::string(ptx::kAmpereArrive);
    return true;
  }
  if (b == "ATOMG" || b == "ATOM" || b == "ATOMS" || b == "RED" || b == "REDG") {
    const bool returns = b.starts_with("ATOM");
    static const std::map<std::string, std::string> kOps = {{"ADD", "add"}, {"MIN", "min"}, {"MAX", "max"}, {"INC", "inc"}, {"DEC", "dec"},
                                                            {"AND", "and"}, {"OR", "or"},   {"XOR", "xor"}, {"EXCH", "exch"}, {"CAS", "cas"}};
    std::string what, type = "u32";
    for (const auto& m : mods()) {
      if (kOps.count(m) && what.empty()) what = kOps.at(m);
      if (m == "S32") type = "s32";
      if (m == "64") type = "u64";
      if (m == "F32") type = "f32";
      if (m == "F64") type = "f64";
      if (m == "128") type = "b128";
      if (m == "F32x2" || m == "F32x4") type = m == "F32x2" ? "v2.f32" : "v4.f32";
      if (m == "F16x2" || m == "BF16x2") fail(opcode() + ": this atomic's width is not supported by the SASS emulator yet");
    }
    if (what.empty()) fail(opcode() + ": unknown atomic operation");
    if (has("POPC") && what == "inc") what = "add";  // ATOMS.POPC.INC: one per active lane, as a warp's aggregated increment adds
    if ((what == "exch" || what == "cas") && type == "u32") type = "b32";
    if ((what == "exch" || what == "cas") && type == "u64") type = "b64";
    const std::string space = b == "ATOMS" ? "shared." : (b == "ATOMG" || b == "REDG") ? "global." : "";
    // Registers per value: a pair for 64 bits, four for 128 bits (CAS.128, EXCH.128) and for
    // F32x4, two for F32x2.
    const uint32_t words = type == "b128" || type == "v4.f32" ? 4 : type == "u64" || type == "b64" || type == "f64" || type == "v2.f32" ? 2 : 1;
    const bool wide = words > 1;
    const Slot slot = wide ? Slot::kPair : Slot::kWord;
    std::vector<EmuOperand> operands;
    size_t i = 0;
    if (returns) {
      // ATOMG's first operand is a predicate (PT in every listing here), then the old value.
      if (operand_count() > 0 && op(0).kind == SassOperand::Kind::kReg && op(0).reg.file == RegFile::kP) ++i;
      operands.push_back(wide ? result(i, words) : result(i));
      ++i;
    }
    operands.push_back(b == "ATOMS" ? address(i) : global_address(i));
    ++i;
    if (has("POPC")) {
      operands.push_back(immediate(1));
    } else {
      operands.push_back(wide ? registers(op(i).reg, words, false) : source(i, slot));
      ++i;
      if (what == "cas") operands.push_back(wide ? registers(op(i).reg, words, false) : source(i, slot)), ++i;
    }
    if (i != operand_count()) fail(opcode() + " has " + std::to_string(operand_count()) + " operands, not the " + std::to_string(i) + " its form takes");
    const std::string scope = b == "ATOMS" ? "" : has("SYS") ? "sys." : "gpu.";
    as_ptx(e, std::string(returns ? "atom." : "red.") + (scope.empty() ? "" : "relaxed." + scope) + space + what + "." + type, std::move(operands));
    return true;
  }
  if (b == "LDGSTS") {
    // cp.async: shared destination, global source, 4, 8 or 16 bytes; .BYPASS is .cg (L2 only).
    if (operand_count() != 2) fail(opcode() + " takes 2 operands");
    const uint32_t bytes = has("128") ? 16 : has("64") ? 8 : 4;
    as_ptx(e, std::string("cp.async.") + (has("BYPASS") ? "cg" : "ca") + ".shared.global", {address(0), global_address(1), immediate(bytes)});
    return true;
  }
  if (b == "LDGDEPBAR") {
    as_ptx(e, "cp.async.commit_group", {});
    return true;
  }
  if (b == "DEPBAR" && operand_count() == 2 && op(0).name.size() == 3 && op(0).name.starts_with("SB") && op(0).name[2] >= '1' && op(0).name[2] <= '5') {
    // DEPBAR.LE SBk, n: wait until at most n of the variable-latency instructions that release
    // dependence barrier k are outstanding (ptxas's SASS for textures.cu waits so for the first
    // of eight surface loads). Nothing to do for the emulator, whose results are there at once;
    // the timing model waits for all of them (its barriers count none apart), at most the
    // latency of the last minus that of the first.
    e.code = EmuOp::kNop;
    e.control = ControlBits::unpack(e.control).with_wait(1u << (op(0).name[2] - '0')).pack();
    return true;
  }
  if (b == "DEPBAR") {
    // DEPBAR.LE SB0, n: wait until at most n groups of cp.async copies are outstanding.
    if (operand_count() != 2 || op(0).name != "SB0") fail(opcode() + ": only DEPBAR.LE SBk, n is supported by the SASS emulator");
    // SB0 counts the groups of cp.async copies (LDGSTS) and those of bulk stores (UBLKCP.G.S,
    // UTMASTG); a kernel with bulk stores and no LDGSTS waits for its stores.
    bool copies = false, bulk_stores = false;
    for (const SassInstruction& other : function().insts) {
      copies |= other.opcode.starts_with("LDGSTS");
      bulk_stores |= other.opcode.starts_with("UBLKCP.G.S") || other.opcode.starts_with("UTMASTG");
    }
    as_ptx(e, bulk_stores && !copies ? "cp.async.bulk.wait_group" : "cp.async.wait_group", {immediate(control_immediate(1))});
    return true;
  }
  if (b == "MEMBAR" || b == "FENCE" || b == "ERRBAR" || b == "CGAERRBAR" || b == "CCTL") {
    e.code = EmuOp::kMembar;  // ordering only: the emulator's memory is sequentially consistent
    return true;
  }
  return false;
}

}  // namespace warpsim::sass
