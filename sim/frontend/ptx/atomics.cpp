// atom and red (PTX ISA, "atom", "red"): scalar read-modify-writes of 16 to 64 bits, vector forms
// that apply one per element (sm_90: .v2/.v4 f32 add; .v2/.v4/.v8 f16 and bf16, .v2/.v4 f16x2
// and bf16x2 add, min and max), and 128-bit cas and exch on .b128 registers. Lanes run in
// order, which serialises a warp's atomics to one address deterministically.
#include <bit>
#include <cstring>

#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {

void CtaEmulator::atomic(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  const auto& ops = in.operands;
  const Type type = in.type;
  const bool returns = in.code == EmuOp::kAtom;
  const EmuOperand& addr = ops.at(returns ? 1 : 0);
  const EmuOperand& value = ops.at(returns ? 2 : 1);
  const std::string& op = in.atom_op;
  const bool wide = type.bits == 128;
  // Bytes per element: 16-bit floats (f16, bf16; packed x2 in 32 bits) and cas.b16, else 32 to 128 bits.
  const bool half = type.bits == 16 && (type.kind == 'f' || type.kind == 'h');
  const uint32_t size = type.bits == 16 ? 2 * type.packed : std::max<uint32_t>(4, type.bits / 8);
  const uint32_t elements = value.kind == EmuOperand::Kind::kVector && !wide ? in.vector : 1;
  std::array<uint64_t, 32> lane_address;
  for_lanes(exec, [&](uint32_t l) { lane_address[l] = address(w, addr, l); });
  const MemSpace space = in.generic || in.space == MemSpace::kSharedCluster ? resolve_space(w, in, exec, lane_address, out) : in.space;
  if (elements > 1 && space != MemSpace::kGlobal && exec) {
    fault(in, w, static_cast<uint32_t>(std::countr_zero(exec)), "'" + in.opcode + "': a vector atomic's address must be in global memory");
  }
  // PTX ISA: "atom.add.f32 on global memory flushes subnormal inputs and results to
  // sign-preserving zero", in shared memory it does not (red.add.f32 likewise).
  const bool flush = op == "add" && type.kind == 'f' && type.bits == 32 && space == MemSpace::kGlobal;
  if (returns && exec) note_poll(w, in, lane_address[std::countr_zero(exec)]);
  auto element = [&](const EmuOperand& o, uint32_t k, uint32_t l) { return elements > 1 ? w.regs.get(o.regs.at(k), l) : read(w, o, l); };
  bool changed = false;
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t a = lane_address[l];
    const uint32_t bytes = size * elements;
    out.addresses.push_back(a);
    uint8_t* p = memory_at(space, a, bytes, w, l, in);
    if (space == MemSpace::kShared) check_shared(w, l, a, bytes, true, true, in);
    if (space == MemSpace::kGlobal && checks_global_) check_global(w, l, a, bytes, true, false, in);
    if (space == MemSpace::kSharedCluster) check_remote_shared(w, l, a, bytes, true, in);
    bool lane_changed = false;
    if (wide) {  // two 64-bit halves, low first, compared and replaced together
      // A .b128 register's two 64-bit halves, or (SASS) four 32-bit registers, lowest word first.
      auto half = [&](const EmuOperand& o, uint32_t i) {
        return o.regs.size() == 4 ? (w.regs.get(o.regs[2 * i], l) & 0xffffffffu) | w.regs.get(o.regs[2 * i + 1], l) << 32 : w.regs.get(o.regs[i], l);
      };
      std::array<uint64_t, 2> old, v = {half(value, 0), half(value, 1)}, r = v;
      std::memcpy(old.data(), p, 16);
      if (op == "cas") r = old == v ? std::array<uint64_t, 2>{half(ops.at(3), 0), half(ops[3], 1)} : old;
      lane_changed = r != old;
      std::memcpy(p, r.data(), 16);
      if (returns && ops[0].regs.size() == 4) {
        for (uint32_t i = 0; i < 4; ++i) write(w, ops[0].regs[i], l, old[i / 2] >> (32 * (i % 2)) & 0xffffffffu);
      } else if (returns) {
        write(w, ops[0].regs[0], l, old[0]), write(w, ops[0].regs[1], l, old[1]);
      }
    }
    for (uint32_t k = 0; k < elements && !wide; ++k) {
      uint8_t* q = p + k * size;
      uint64_t old = 0, v = element(value, k, l);
      std::memcpy(&old, q, size);
      const uint64_t was = old;
      if (flush) old = flush_subnormal32(old), v = flush_subnormal32(v);
      uint64_t r = op == "cas" ? (mask_bits(old, type.bits) == mask_bits(v, type.bits) ? read(w, ops.at(3), l) : old)
                               : combine_bits(op, type, old, v);
      if (half && type.packed == 2) r = (r & 0xffff) | (combine_bits(op, type, old >> 16, v >> 16) << 16);
      if (flush) r = flush_subnormal32(r);
      lane_changed = lane_changed || mask_bits(r ^ was, size * 8) != 0;
      std::memcpy(q, &r, size);
      if (returns && elements == 1 && ops[0].kind == EmuOperand::Kind::kVector && ops[0].regs.size() == 2) {  // a SASS register pair
        write(w, ops[0].regs[0], l, was & 0xffffffffu), write(w, ops[0].regs[1], l, was >> 32);
      } else if (returns) {
        write(w, elements > 1 ? ops[0].regs.at(k) : ops[0].reg, l, was);
      }
    }
    if (lane_changed) {
      changed = true;
      if (space == MemSpace::kGlobal && checks_global_) launch_.memory->mark_written(a, bytes, in.line);  // a failed CAS defines nothing
      if (w.changed_address != a) w.changed_address = a, w.changed_lanes = 0;
      w.changed_lanes |= 1u << l;
    }
  });
  if (changed && returns && grid_) ++grid_->effects;  // red is counted with every instruction with effects
  if (clocks_.enabled()) sync_through_memory(w, space, lane_address, exec, true, returns);
}

// mov.b128 between a 128-bit register and its pieces ({lo, hi} of 64 bits, or four of 32): both
// operands are vectors here (program.cpp keeps a .b128 register as two 64-bit halves).
void CtaEmulator::move_b128(WarpState& w, const EmuInst& in, uint32_t exec) {
  const EmuOperand& d = in.operands.at(0);
  const EmuOperand& s = in.operands.at(1);
  const uint32_t in_part = 128 / static_cast<uint32_t>(s.regs.size()), out_part = 128 / static_cast<uint32_t>(d.regs.size());
  for_lanes(exec, [&](uint32_t l) {
    std::array<uint64_t, 2> bits{};
    for (size_t k = 0; k < s.regs.size(); ++k) {
      const uint64_t x = element(w, s, k, l);
      const uint32_t at = static_cast<uint32_t>(k) * in_part;
      bits[at / 64] |= mask_bits(x, in_part) << (at % 64);
    }
    for (size_t k = 0; k < d.regs.size(); ++k) {
      const uint32_t at = static_cast<uint32_t>(k) * out_part;
      write(w, d.regs[k], l, mask_bits(bits[at / 64] >> (at % 64), out_part));
    }
  });
}

}  // namespace warpsim::ptx
