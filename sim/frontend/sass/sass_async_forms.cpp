// Hopper's asynchronous units as SASS drives them: the transaction barriers (SYNCS on an
// mbarrier's 64-bit word, ARRIVES for cp.async copies), bulk and tensor copies (UBLKCP, UTMALDG,
// UTMASTG) with their store groups (UTMACMDFLUSH), stores and reductions into a CTA of the cluster (STAS, REDAS), the
// cluster's barrier (UCGABAR), and ELECT, which picks the lane that
// issues them. Each is lowered to the
// PTX instruction with the same meaning (mbarrier, cp.async.bulk, elect.sync), marked
// EmuInst::sass_async where SASS encodes an operand differently (program.h says how).
//
// The SYNCS forms, from ptxas's output for the PTX in traces/kernels (the PTX's mbarrier
// instruction beside the SASS it became):
//   SYNCS.EXCH.64 URZ, [a], UR(pair)          mbarrier.init (the pair: the barrier's first word)
//   SYNCS.ARRIVE.TRANS64.A1T0 Rd, [a], RZ      mbarrier.arrive (one arrival; Rd:Rd+1 the word before)
//   SYNCS.ARRIVE.TRANS64 Rd, [a], Rtx          mbarrier.arrive.expect_tx
//   SYNCS.ARRIVE.TRANS64.RED.A0TR RZ, [a], R   mbarrier.expect_tx (no arrival; .RED: no result)
//   SYNCS.ARRIVE.TRANS64.RED.A0T1 RZ, [a], RZ  expect one transaction: cp.async.mbarrier.arrive's
//                                               increment, which ARRIVES.LDGSTSBAR.64.TRANSCNT
//                                               completes when the thread's copies have landed
//   SYNCS.PHASECHK.TRANS64[.TRYWAIT] P, [a], R mbarrier.test_wait/try_wait.parity (parity in bit 31)
#include <map>
#include <string>
#include <vector>

#include "frontend/ptx/value_bits.h"
#include "frontend/sass/sass_lowering.h"

namespace warpsim::sass {

using ptx::EmuInst;
using ptx::EmuOp;
using ptx::EmuOperand;

namespace {

bool is_zero_register(const SassOperand& o) { return o.kind == SassOperand::Kind::kReg && o.reg.zero(); }

}  // namespace

bool SassLowering::lower_async(EmuInst& e) {
  const std::string& b = base();
  // A result pair for an arrive's word, or nothing for RZ.
  auto word_result = [&](size_t i) {
    if (is_zero_register(op(i))) {
      EmuOperand sink;
      sink.kind = EmuOperand::Kind::kSink;
      return sink;
    }
    return result(i, 2);
  };
  // [URn] (printed with URn as the address's uniform part): the register alone, no offset.
  auto single = [&](size_t i) {
    const SassOperand& o = op(i);
    if (o.kind != SassOperand::Kind::kAddress || o.reg.valid() || !o.uniform.valid() || o.uniform.zero() || o.value != 0) {
      fail("operand " + std::to_string(i + 1) + " of " + opcode() + " must be [URn]");
    }
    return o.uniform;
  };
  auto at = [&](SassReg r, bool pair) {
    EmuOperand a;
    a.kind = EmuOperand::Kind::kAddr;
    a.sass_address = true;
    a.uniform = reg_id(r);
    if (pair) a.uniform_hi = reg_id(SassReg{r.file, r.index + 1});
    a.address32 = !pair;
    a.cluster_window = true;
    return a;
  };
  if (b == "SYNCS") {
    if (operand_count() != 3) fail(opcode() + " takes 3 operands");
    if (has("EXCH") && has("64")) {
      if (!is_zero_register(op(0))) fail(opcode() + " with a result: only the exchange that initialises an mbarrier (into URZ or RZ) is supported by the SASS emulator");
      as_ptx(e, "mbarrier.init.shared.b64", {address(1), source(2, Slot::kPair)});
    } else if (has("ARRIVE") && has("TRANS64")) {
      const bool red = has("RED");
      if (red && !is_zero_register(op(0))) fail(opcode() + ": a .RED arrive returns nothing, so its result must be RZ");
      if (has("A1T0")) {
        as_ptx(e, "mbarrier.arrive.shared::cta.b64", {word_result(0), address(1)});
      } else if (has("A0TR")) {
        as_ptx(e, "mbarrier.expect_tx.relaxed.cta.shared::cta.b64", {address(1), source(2)});
      } else if (has("A0T1")) {
        as_ptx(e, "mbarrier.expect_tx.relaxed.cta.shared::cta.b64", {address(1), immediate(1)});
      } else if (mods().size() == 2 || (red && mods().size() == 3)) {
        as_ptx(e, "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64", {word_result(0), address(1), source(2)});
      } else {
        fail(opcode() + ": an arrive form the SASS emulator does not know (A1T0, A0TR, A0T1 or none)");
      }
    } else if (has("PHASECHK") && has("TRANS64")) {
      as_ptx(e, has("TRYWAIT") ? "mbarrier.try_wait.parity.shared::cta.b64" : "mbarrier.test_wait.parity.shared::cta.b64",
             {result(0), address(1), source(2)});
    } else {
      fail("the SASS emulator cannot run " + opcode() + " yet (run with --isa ptx, or --isa auto to fall back to the PTX)");
    }
    e.sass_async = true;
    return true;
  }
  if (b == "ARRIVES" && has("LDGSTSBAR") && has("64") && !has("TRANSCNT") && operand_count() == 1) {
    // Ampere: an arrival on the mbarrier's word in shared memory once the thread's copies have
    // landed (ptx/value_bits.h, ampere_mbarrier_arrive); the emulator's copies land at once.
    // The timing model takes it as the shared atomic it is, not held for the copies.
    as_ptx(e, "red.shared.add.u64", {address(0), immediate(1)});
    e.atom_op = std::string(ptx::kAmpereArrive);
    return true;
  }
  if (b == "ARRIVES") {
    if (!(has("LDGSTSBAR") && has("64") && has("TRANSCNT")) || operand_count() != 1) {
      fail(opcode() + ": only ARRIVES.LDGSTSBAR.64[.TRANSCNT] [mbarrier] (cp.async.mbarrier.arrive) is supported by the SASS emulator");
    }
    as_ptx(e, "mbarrier.complete_tx.relaxed.cta.shared::cta.b64", {address(0), immediate(1)});
    e.op.after_async_copies = true;  // the timing model holds it until the thread's copies land
    e.sass_async = true;
    return true;
  }
  if (b == "UBLKCP") {
    // UBLKCP.S.G [URd], [URs], URn: global to shared, completing on the mbarrier whose address is
    // in the register after URd; UBLKCP.G.S [URd], [URs], URn: shared to global, in the warp's
    // bulk group. URn counts 16-byte units; a global address is a uniform register pair.
    if (operand_count() != 3) fail(opcode() + " takes 3 operands");
    const bool to_shared = has("S") && mods().size() == 2 && mods()[0] == "S";
    const bool to_global = mods().size() == 2 && mods()[0] == "G" && mods()[1] == "S";
    if (!to_shared && !to_global) fail(opcode() + ": only UBLKCP.S.G and UBLKCP.G.S are supported by the SASS emulator");
    if (to_shared) {
      const SassReg d = single(0);
      as_ptx(e, "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
             {at(d, false), at(single(1), true), source(2), at(SassReg{d.file, d.index + 1}, false)});
    } else {
      as_ptx(e, "cp.async.bulk.global.shared::cta.bulk_group", {at(single(0), true), at(single(1), false), source(2)});
    }
    e.sass_async = true;
    e.once_per_warp = true;
    return true;
  }
  if (b == "STAS" || b == "REDAS") {
    // STAS[.64|.128] [Ra.64], Rv / REDAS.op[.type] [Ra.64], Rv: st.async / red.async into a CTA of
    // the cluster, completing the bytes on the mbarrier whose address is in Ra+1 (both shared
    // addresses with the CTA's rank in bits 24-31).
    if (operand_count() != 2) fail(opcode() + " takes 2 operands");
    const SassOperand& a = op(0);
    if (a.kind != SassOperand::Kind::kAddress || !a.wide || !a.reg.valid() || a.uniform.valid()) fail("operand 1 of " + opcode() + " must be [Rn.64]");
    auto word = [&](SassReg r, int64_t offset) {
      EmuOperand x;
      x.kind = EmuOperand::Kind::kAddr;
      x.sass_address = true;
      x.reg = reg_id(r);
      x.bits = static_cast<uint64_t>(offset);
      x.address32 = true;
      x.cluster_window = true;
      return x;
    };
    const EmuOperand data = word(a.reg, a.value), bar = word(SassReg{a.reg.file, a.reg.index + 1}, 0);
    const std::string prefix = "mbarrier::complete_tx::bytes.";
    if (b == "STAS") {
      const uint32_t words = has("128") ? 4 : has("64") ? 2 : 1;
      const std::string type = words == 4 ? "v4.b32" : words == 2 ? "v2.b32" : "b32";
      as_ptx(e, "st.async.weak.shared::cluster." + prefix + type, {data, words > 1 ? registers(op(1).reg, words, false) : source(1), bar});
    } else {
      static const std::map<std::string, std::string> kOps = {{"ADD", "add"}, {"MIN", "min"}, {"MAX", "max"}, {"INC", "inc"},
                                                            {"DEC", "dec"}, {"AND", "and"}, {"OR", "or"},   {"XOR", "xor"}};
      std::string what, type = "u32";
      for (const auto& m : mods()) {
        if (kOps.count(m) && what.empty()) what = kOps.at(m);
        if (m == "S32") type = "s32";
        if (m == "64") type = "u64";
      }
      if (what.empty()) fail(opcode() + ": unknown reduction");
      if (what == "and" || what == "or" || what == "xor") type = type == "u64" ? "b64" : "b32";
      as_ptx(e, "red.async.relaxed.cluster.shared::cluster." + prefix + what + "." + type,
             {data, type.ends_with("64") ? source(1, Slot::kPair) : source(1), bar});
    }
    return true;
  }
  if (b == "UTMALDG" || b == "UTMASTG") {
    // UTMALDG.nD [URb], [URm]: a box of the tensor whose map is at URm:URm+1 (a generic address,
    // the parameter's own for a __grid_constant__ map) into shared memory at URb, completing on
    // the mbarrier at URb+1, at the coordinates in URb+2 on; .MULTICAST adds a register whose
    // bits 16-31 are the CTAs to fill. UTMASTG.nD [URb], [URm]: the box at shared URb to the
    // tensor, the coordinates in URb+1 on, in the warp's bulk group.
    const bool load = b == "UTMALDG", multicast = has("MULTICAST");
    uint32_t rank = 0;
    for (uint32_t r = 1; r <= 5; ++r)
      if (has((std::to_string(r) + "D").c_str())) rank = r;
    if (rank == 0 || mods().size() != (multicast ? 2u : 1u) || (multicast && !load)) {
      fail(opcode() + ": only UTMALDG.nD[.MULTICAST] and UTMASTG.nD (tile mode) are supported by the SASS emulator");
    }
    if (operand_count() != (multicast ? 3u : 2u)) fail(opcode() + " takes " + std::to_string(multicast ? 3 : 2) + " operands");
    const SassReg box = single(0);
    EmuOperand tensor = at(single(1), true);
    const uint32_t first = load ? 2 : 1;
    for (uint32_t k = 0; k < rank; ++k) {
      tensor.regs.push_back(reg_id(SassReg{box.file, box.index + first + k}));
      tensor.immediates.push_back(0);
    }
    const std::string dims = std::to_string(rank) + "d";
    if (load) {
      std::vector<EmuOperand> operands = {at(box, false), tensor, at(SassReg{box.file, box.index + 1}, false)};
      if (multicast) operands.push_back(source(2));
      as_ptx(e, "cp.async.bulk.tensor." + dims + ".shared::cluster.global.tile.mbarrier::complete_tx::bytes" + (multicast ? ".multicast::cluster" : ""),
             std::move(operands));
    } else {
      as_ptx(e, "cp.async.bulk.tensor." + dims + ".global.shared::cta.tile.bulk_group", {tensor, at(box, false)});
    }
    e.sass_async = true;
    e.once_per_warp = true;
    return true;
  }
  if (b == "UCGABAR_ARV" || b == "UCGABAR_WAIT") {  // the cluster's barrier, once per warp as the PTX's is
    if (operand_count() != 0) fail(opcode() + " takes no operands");
    as_ptx(e, b == "UCGABAR_ARV" ? "barrier.cluster.arrive.relaxed" : "barrier.cluster.wait", {});
    return true;
  }
  if (b == "UTMACMDFLUSH") {
    as_ptx(e, "cp.async.bulk.commit_group", {});
    return true;
  }
  if (b == "ELECT") {
    // ELECT Pd, URd, Pm: of the active lanes where Pm holds, the lowest leads (Pd true there);
    // URd gets its lane number.
    if (operand_count() != 3) fail(opcode() + " takes 3 operands");
    if (!is_zero_register(op(1))) fail(opcode() + " writing the leader's lane to a uniform register is not supported by the SASS emulator yet");
    if (!is_zero_register(op(2)) || op(2).invert) fail(opcode() + " with a member predicate other than PT is not supported by the SASS emulator yet");
    EmuOperand d;
    d.kind = EmuOperand::Kind::kVector;
    d.regs = {-1, result(0).reg};
    d.immediates = {0, 0};
    as_ptx(e, "elect.sync", {d, immediate(0xffffffffu)});
    return true;
  }
  return false;
}

}  // namespace warpsim::sass
