// Running SASS's own instructions in the CTA emulator: the arithmetic (evaluated per lane by
// frontend/sass/sass_alu.h from the sources read here), VOTE, and the addresses SASS writes
// (a register pair, a uniform register added, a scaled index).
#include <bit>
#include <cstring>

#include "frontend/ptx/cta_emulator.h"

namespace warpsim::ptx {

uint64_t CtaEmulator::sass_source(const WarpState& w, const EmuOperand& o, uint32_t lane) const {
  switch (o.kind) {
    case EmuOperand::Kind::kReg:
    case EmuOperand::Kind::kImm:
    case EmuOperand::Kind::kSpecial:
      return read(w, o, lane);
    case EmuOperand::Kind::kVector: {
      if (o.predicate_bits) {  // PR: the seven predicates as bits 0-6
        uint64_t bits = 0;
        for (size_t k = 0; k < o.regs.size(); ++k)
          if (o.regs[k] >= 0 && (w.regs.get(o.regs[k], lane) & 1)) bits |= uint64_t{1} << k;
        return bits;
      }
      return element(w, o, 0, lane) | (o.regs.size() > 1 ? element(w, o, 1, lane) << 32 : 0);
    }
    case EmuOperand::Kind::kAddr: {  // c[bank][Rn + offset]: a word of the constant image
      const uint64_t a = sass_address(w, o, lane);
      const auto& bank = launch_.program->constant_bank;
      if (a + 4 > bank.size()) return 0;  // beyond the banks: reads as zero
      uint32_t v;
      std::memcpy(&v, &bank[a], 4);
      return v;
    }
    default:
      return 0;
  }
}

void CtaEmulator::sass_result(WarpState& w, const EmuOperand& o, uint32_t lane, uint64_t v) {
  if (o.kind == EmuOperand::Kind::kReg) {
    write(w, o.reg, lane, v);
  } else if (o.kind == EmuOperand::Kind::kVector) {
    if (o.predicate_bits) {  // R2P: each named predicate from its bit
      for (size_t k = 0; k < o.regs.size(); ++k) write(w, o.regs[k], lane, (v >> k) & 1);
      return;
    }
    write(w, o.regs[0], lane, v & 0xffffffffu);
    if (o.regs.size() > 1) write(w, o.regs[1], lane, v >> 32);
  }
}

// A uniform register holds one value for the warp: what the first executing lane computed is
// every lane's, so lanes that were inactive read it after they reconverge.
void CtaEmulator::broadcast_results(WarpState& w, const EmuInst& in, uint32_t exec) {
  if (exec == 0) return;
  const auto first = static_cast<uint32_t>(std::countr_zero(exec));
  auto spread = [&](int32_t r) {
    if (r < 0) return;
    const uint64_t v = w.regs.get(r, first);
    for (uint32_t l = 0; l < 32; ++l) w.regs.set(r, l, v);
  };
  for (size_t i = 0; i < in.sass_results && i < in.operands.size(); ++i) {
    const EmuOperand& o = in.operands[i];
    if (o.kind == EmuOperand::Kind::kReg) spread(o.reg);
    if (o.kind == EmuOperand::Kind::kVector)
      for (int32_t r : o.regs) spread(r);
  }
}

void CtaEmulator::sass_alu(WarpState& w, const EmuInst& in, uint32_t exec) {
  const auto& ops = in.operands;
  const size_t results = in.sass_results;
  const int sources = static_cast<int>(ops.size() - results);
  if (sources > sass::kMaxSources || results > sass::kMaxResults) fault(in, w, 0, "internal: too many operands for the SASS evaluator");
  std::array<uint8_t, sass::kMaxSources> mods{};
  for (int s = 0; s < sources; ++s) mods[static_cast<size_t>(s)] = ops[results + static_cast<size_t>(s)].sass_mods;
  for_lanes(exec, [&](uint32_t l) {
    std::array<uint64_t, sass::kMaxSources> src{};
    std::array<uint64_t, sass::kMaxResults> out{};
    for (int s = 0; s < sources; ++s) src[static_cast<size_t>(s)] = sass_source(w, ops[results + static_cast<size_t>(s)], l);
    sass::evaluate(in.sass, src.data(), mods.data(), sources, out.data());
    for (size_t r = 0; r < results; ++r) sass_result(w, ops[r], l, out[r]);
  });
  if (in.uniform_result) broadcast_results(w, in, exec);
}

// VOTE.{ANY,ALL,EQ} Rd, Pd, Ps (VOTEU: to uniform registers): the ballot of Ps over the
// executing lanes, and whether any, all, or all-or-none of them hold it. And R2UR's form with a
// predicate, which asks whether a register is uniform over the executing lanes.
void CtaEmulator::sass_vote(WarpState& w, const EmuInst& in, uint32_t exec) {
  const auto& ops = in.operands;
  if (in.sass.from == 3) {  // R2UR P, URd, Ra
    if (exec == 0) return;
    const uint64_t v = read(w, ops.at(2), static_cast<uint32_t>(std::countr_zero(exec)));
    bool same = true;
    for_lanes(exec, [&](uint32_t l) { same = same && read(w, ops[2], l) == v; });
    for_lanes(exec, [&](uint32_t l) {
      sass_result(w, ops[0], l, v);
      sass_result(w, ops[1], l, same);
    });
    broadcast_results(w, in, exec);
    return;
  }
  uint32_t votes = 0;
  for_lanes(exec, [&](uint32_t l) {
    if (read(w, ops.at(2), l) & 1) votes |= 1u << l;
  });
  const bool result = in.sass.from == 1 ? votes == exec : in.sass.from == 2 ? (votes == 0 || votes == exec) : votes != 0;
  for_lanes(exec, [&](uint32_t l) {
    sass_result(w, ops[0], l, votes);
    sass_result(w, ops[1], l, result);
  });
  if (in.uniform_result) broadcast_results(w, in, exec);
}

uint64_t CtaEmulator::sass_address(const WarpState& w, const EmuOperand& o, uint32_t lane) const {
  uint64_t base = o.reg >= 0 ? w.regs.get(o.reg, lane) : 0;
  if (o.reg_hi >= 0) base |= w.regs.get(o.reg_hi, lane) << 32;
  uint64_t uniform = o.uniform >= 0 ? w.regs.get(o.uniform, lane) : 0;
  if (o.uniform_hi >= 0) uniform |= w.regs.get(o.uniform_hi, lane) << 32;
  const uint64_t a = base * o.scale + uniform + o.bits;
  if (!o.cluster_window) return o.address32 ? static_cast<uint32_t>(a) : a;
  auto ranked = [&](uint64_t x) {
    const uint64_t rank = x >> kClusterRankShift, offset = x & kClusterOffsetMask;
    return rank == rank_ ? offset : (rank + 1) << kClusterRankShift | offset;
  };
  if (o.address32) return ranked(static_cast<uint32_t>(a));
  return a - kGenericSharedBase < kGenericSharedSize ? kGenericSharedBase + ranked(a - kGenericSharedBase) : a;
}

}  // namespace warpsim::ptx
