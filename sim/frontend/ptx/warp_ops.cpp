// Warp-wide collective instructions (PTX ISA: shfl.sync, vote.sync, match.sync, activemask,
// elect.sync, redux.sync), which read or combine values across the warp's lanes, and createpolicy.
#include <algorithm>
#include <array>
#include <bit>

#include "common/format.h"
#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {

void CtaEmulator::report_inactive_source(const WarpState& w, const EmuInst& in, uint32_t lane, uint32_t source) const {
  launch_.findings->add("shuffle-from-inactive-lane", in.line,
                        launch_.file + ":" + std::to_string(in.line) + ": " + thread_name(w, lane) + " reads lane " + std::to_string(source) +
                            " with " + in.opcode + ", but lane " + std::to_string(source) +
                            " is not taking part (it has exited, or is outside the membermask), so the value is undefined");
}

void CtaEmulator::report_outside_membermask(const WarpState& w, const EmuInst& in, uint32_t lane, uint32_t mask) const {
  launch_.findings->add("lane-outside-membermask", in.line,
                        launch_.file + ":" + std::to_string(in.line) + ": " + thread_name(w, lane) + " (lane " + std::to_string(lane) + ") runs " +
                            in.opcode + " with membermask " + hex(mask) +
                            ", which does not name it; each calling thread must be in the mask (PTX ISA; CUDA C++ Programming Guide, "
                            "\"Warp Vote Functions\"), so the result is undefined");
}

void CtaEmulator::warp_op(WarpState& w, const EmuInst& in, uint32_t exec) {
  const auto& ops = in.operands;
  const Type type = in.type;
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  // The .sync forms' membermask (operand 4 of shfl, 2 of vote, match and redux) must name each
  // executing lane.
  const size_t mask_at = in.code == EmuOp::kShfl ? 4 : in.code == EmuOp::kVote || in.code == EmuOp::kMatch || in.code == EmuOp::kRedux ? 2 : 0;
  if (mask_at && ops.size() > mask_at && launch_.findings && launch_.findings->enabled) {
    lanes([&](uint32_t l) {
      const auto mask = static_cast<uint32_t>(read(w, ops[mask_at], l));
      if (!(mask >> l & 1)) report_outside_membermask(w, in, l, mask);
    });
  }
  auto dst_reg = [&](size_t i = 0) { return ops.at(i).kind == EmuOperand::Kind::kReg ? ops[i].reg : -1; };
  // The lanes lane l combines with: the active lanes of its membermask (operand `at`; the whole
  // warp's active lanes for the forms without one, such as sm_6x's vote). Lanes may name different
  // masks in one instruction, as cooperative groups' tiled_partition does (each tile its own
  // lanes): a 16-lane tile's vote, match or redux sees only its own 16 lanes.
  auto members = [&](uint32_t l, size_t at) { return ops.size() > at ? static_cast<uint32_t>(read(w, ops[at], l)) & exec : exec; };
  switch (in.code) {
    case EmuOp::kShfl: {
      // shfl.sync.MODE.b32 d[|p], a, b, c, membermask (PTX ISA pseudo-code for shfl.sync)
      const std::string& mode = in.shfl_mode;
      int32_t d = ops[0].kind == EmuOperand::Kind::kVector ? ops[0].regs.at(0) : ops[0].reg;
      int32_t p = ops[0].kind == EmuOperand::Kind::kVector && ops[0].regs.size() > 1 ? ops[0].regs[1] : -1;
      std::array<uint64_t, 32> source{};
      for (uint32_t l = 0; l < 32; ++l) source[l] = read(w, ops[1], l);
      std::array<uint64_t, 32> result{}, valid{};
      lanes([&](uint32_t l) {
        uint32_t bval = static_cast<uint32_t>(read(w, ops[2], l)) & 31, c = static_cast<uint32_t>(read(w, ops[3], l));
        uint32_t cval = c & 31, segmask = (c >> 8) & 31;
        uint32_t max_lane = (l & segmask) | (cval & ~segmask), min_lane = l & segmask;
        int32_t j = 0;
        bool pval = false;
        if (mode == "up") j = static_cast<int32_t>(l) - static_cast<int32_t>(bval), pval = j >= static_cast<int32_t>(max_lane);
        if (mode == "down") j = static_cast<int32_t>(l + bval), pval = j <= static_cast<int32_t>(max_lane);
        if (mode == "bfly") j = static_cast<int32_t>(l ^ bval), pval = j <= static_cast<int32_t>(max_lane);
        if (mode == "idx") j = static_cast<int32_t>(min_lane | (bval & ~segmask)), pval = j <= static_cast<int32_t>(max_lane);
        if (!pval) j = static_cast<int32_t>(l);
        // A source lane in range that is not taking part (exited, or outside the membermask)
        // gives an undefined value (CUDA C++ Programming Guide, "Warp Shuffle Functions").
        if (pval && !(exec >> j & 1) && launch_.findings && launch_.findings->enabled) report_inactive_source(w, in, l, static_cast<uint32_t>(j));
        result[l] = source[static_cast<uint32_t>(j)];
        valid[l] = pval;
      });
      lanes([&](uint32_t l) {
        write(w, d, l, result[l]);
        write(w, p, l, valid[l]);
      });
      return;
    }
    case EmuOp::kVote: {  // vote.sync.mode d, {!}a, membermask
      uint32_t votes = 0;
      lanes([&](uint32_t l) {
        if (read(w, ops.at(1), l) & 1) votes |= 1u << l;
      });
      lanes([&](uint32_t l) {
        const uint32_t m = members(l, 2), ballot = votes & m;
        uint64_t r = ballot;
        if (in.has("all")) r = ballot == m;
        if (in.has("any")) r = ballot != 0;
        if (in.has("uni")) r = ballot == 0 || ballot == m;
        write(w, dst_reg(), l, r);
      });
      return;
    }
    case EmuOp::kMatch: {
      // match.any.sync.bN d, a, membermask: the lanes holding this lane's value; match.all.sync.bN
      // d[|p], a, membermask: every lane's mask when all hold one value (p true), else 0 (p false).
      int32_t d = ops[0].kind == EmuOperand::Kind::kVector ? ops[0].regs.at(0) : ops[0].reg;
      int32_t p = ops[0].kind == EmuOperand::Kind::kVector && ops[0].regs.size() > 1 ? ops[0].regs[1] : -1;
      std::array<uint64_t, 32> value{};
      lanes([&](uint32_t l) { value[l] = mask_bits(read(w, ops[1], l), type.bits); });
      const bool all = in.has("all");
      lanes([&](uint32_t l) {
        const uint32_t m = members(l, 2);
        uint32_t mask = 0;
        for_lanes(m, [&](uint32_t k) { mask |= value[k] == value[l] ? 1u << k : 0; });
        const bool same = mask == m;
        write(w, d, l, all ? (same ? m : 0) : mask);
        write(w, p, l, same);
      });
      return;
    }
    case EmuOp::kActivemask:
      lanes([&](uint32_t l) { write(w, dst_reg(), l, exec); });
      return;
    case EmuOp::kElect: {
      // elect.sync d|p, membermask: the lowest active lane of the mask leads (the PTX ISA leaves
      // the choice to the hardware); every lane learns its lane id in d, the leader gets p true.
      const EmuOperand& d = ops.at(0);
      const int32_t id = d.kind == EmuOperand::Kind::kVector ? d.regs.at(0) : d.reg, p = d.kind == EmuOperand::Kind::kVector && d.regs.size() > 1 ? d.regs[1] : -1;
      lanes([&](uint32_t l) {
        const uint32_t electable = members(l, 1);
        const uint32_t leader = electable ? static_cast<uint32_t>(std::countr_zero(electable)) : 32;
        write(w, id, l, leader);
        write(w, p, l, l == leader);
      });
      return;
    }
    case EmuOp::kCreatepolicy:  // an opaque L2 policy for .L2::cache_hint, which the model ignores
      lanes([&](uint32_t l) { write(w, dst_reg(), l, 0); });
      return;
    case EmuOp::kRedux: {  // redux.sync.op.type d, a, membermask: one value over each lane's members
      const bool sg = type.kind == 's';
      auto combine = [&](uint32_t m) {
        bool first = true;
        uint64_t acc = 0;
        for_lanes(m, [&](uint32_t l) {
          uint64_t v = mask_bits(read(w, ops.at(1), l), 32);
          if (first) {
            acc = v, first = false;
          } else if (in.has("add")) {
            acc = (acc + v) & 0xffffffffull;
          } else if (in.has("min")) {
            acc = sg ? (as_signed(v, 32) < as_signed(acc, 32) ? v : acc) : std::min(acc, v);
          } else if (in.has("max")) {
            acc = sg ? (as_signed(v, 32) > as_signed(acc, 32) ? v : acc) : std::max(acc, v);
          } else if (in.has("and")) {
            acc &= v;
          } else if (in.has("or")) {
            acc |= v;
          } else if (in.has("xor")) {
            acc ^= v;
          } else {
            fault(in, w, l, "redux.sync supports add, min, max, and, or and xor");
          }
        });
        return acc;
      };
      // Lanes share masks (one per warp, or per tile): a run of lanes with one is combined once.
      std::array<uint64_t, 32> result{};
      uint32_t combined_mask = 0;
      uint64_t combined = 0;  // combine(0): no members
      lanes([&](uint32_t l) {
        const uint32_t m = members(l, 2);
        if (m != combined_mask) combined = combine(m), combined_mask = m;
        result[l] = combined;
      });
      lanes([&](uint32_t l) { write(w, dst_reg(), l, result[l]); });
      return;
    }
    default:
      return;
  }
}

}  // namespace warpsim::ptx
