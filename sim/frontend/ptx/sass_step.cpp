// One step of a warp running SASS: Volta's independent thread scheduling with the convergence
// barriers ptxas places (frontend/sass/sass_flow.h). Each lane has its own PC; the warp runs
// one group of lanes that share a PC at a time, the lowest PC first, so divergent paths run one
// after the other. A group that reaches a BSYNC issues it at once and parks there until the
// rest of the barrier's lanes arrive (each group issues the BSYNC, which is what the GPU's count
// of executed instructions shows: a region split k ways issues its BSYNC k times). A group at
// a WARPSYNC or BAR waits there, without issuing, until the lanes it names arrive.
#include <algorithm>
#include <bit>

#include "common/error.h"
#include "common/format.h"
#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/turn_taking.h"

namespace warpsim::ptx {

using sass::SassFlow;

uint32_t CtaEmulator::parked_at(const WarpState& w, uint32_t pc) {
  uint32_t lanes = 0;
  for (uint32_t l = 0; l < 32; ++l)
    if ((w.parked >> l & 1) && w.pcs[l] == pc) lanes |= 1u << l;
  return lanes;
}

uint32_t CtaEmulator::sass_bsync_missing(const WarpState& w, const EmuInst& in, uint32_t group) const {
  const auto lane = static_cast<uint32_t>(std::countr_zero(group));
  const auto barrier = static_cast<uint32_t>(w.regs.get(in.operands[0].reg, lane));
  return barrier & w.live & ~w.yielded & ~group & ~parked_at(w, w.pcs[lane]);  // exited and spinning lanes are not waited for
}

uint32_t CtaEmulator::sass_group_waits(const WarpState& w, const EmuInst& in, uint32_t group) const {
  const auto lane = static_cast<uint32_t>(std::countr_zero(group));
  uint32_t need = 0;
  if (in.code == EmuOp::kBar) need = w.live;  // a CTA barrier: the whole warp arrives at once
  // A group arriving at a BSYNC issues it whatever is missing; a parked one goes on only when
  // nothing is (its missing lanes exited or began to spin).
  if (in.code == EmuOp::kSassFlow && in.flow == SassFlow::kBsync && (w.parked & group)) need = sass_bsync_missing(w, in, group);
  if (in.code == EmuOp::kSassFlow && (in.flow == SassFlow::kWarpsync || in.flow == SassFlow::kWarpsyncExclusive)) {
    need = static_cast<uint32_t>(read(w, in.operands[0], lane));
  }
  return need & w.live & ~group;  // lanes still to come (exited ones are not waited for)
}

bool CtaEmulator::step_sass(WarpState& w, Record& out) {
  const auto& insts = launch_.program->insts;
  const auto end = static_cast<uint32_t>(insts.size());
  for (uint32_t l = 0; l < 32; ++l)
    if ((w.live >> l & 1) && w.pcs[l] >= end) w.live &= ~(1u << l);
  if (w.live == 0) {
    w.done = true;
    warp_finished();
    return false;
  }
  // Groups: lanes at one PC with one tag, the lanes parked at a BSYNC a group of their own;
  // lowest PC first.
  constexpr uint32_t kParkedTag = ~0u;
  auto tag_of = [&](uint32_t l) { return (w.parked >> l & 1) ? kParkedTag : w.tags[l]; };
  std::array<uint64_t, 32> order{};  // pc << 32 | tag
  uint32_t n = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(w.live >> l & 1)) continue;
    const uint64_t key = uint64_t{w.pcs[l]} << 32 | tag_of(l);
    bool seen = false;
    for (uint32_t k = 0; k < n; ++k) seen |= order[k] == key;
    if (!seen) order[n++] = key;
  }
  std::sort(order.begin(), order.begin() + n);
  auto lanes_at = [&](uint64_t key) {
    const auto pc = static_cast<uint32_t>(key >> 32), tag = static_cast<uint32_t>(key);
    uint32_t mask = 0;
    for (uint32_t l = 0; l < 32; ++l)
      if ((w.live >> l & 1) && w.pcs[l] == pc && tag_of(l) == tag) mask |= 1u << l;
    return mask;
  };
  // Forward progress, as for PTX under independent scheduling (step_independent): after 64
  // steps with other groups waiting, or a spin-wait iteration, the next group after the one run
  // last gets the warp until its next branch.
  const uint32_t start = first_group_to_try(
      TurnTaking{w.following, w.run_length, w.turn}, w.live, n, [&](uint32_t k) { return static_cast<uint32_t>(order[k] >> 32); },
      [&](uint32_t followed) {
        const uint32_t at = w.pcs[std::countr_zero(followed)];
        uint32_t k = 0;
        while (k < n && (order[k] >> 32) != at) ++k;
        return k < n && (lanes_at(order[k]) & followed) == followed ? k : n;
      });
  uint32_t pc = end, group = 0;
  // A group that has just reached a BSYNC issues it before anything else runs, so that it is
  // not merged with a group that reaches the same BSYNC later.
  for (uint32_t k = 0; k < n && pc == end; ++k) {
    const auto at = static_cast<uint32_t>(order[k] >> 32);
    if (static_cast<uint32_t>(order[k]) == kParkedTag || insts[at].flow != SassFlow::kBsync) continue;
    pc = at;
    group = lanes_at(order[k]);
  }
  for (uint32_t i = 0; i < n && pc == end; ++i) {
    const uint64_t candidate = order[(start + i) % n];
    const uint32_t mask = lanes_at(candidate);
    const auto at = static_cast<uint32_t>(candidate >> 32);
    if (sass_group_waits(w, insts[at], mask)) continue;
    pc = at;
    group = mask;
  }
  if (pc == end) {
    std::string groups;
    for (uint32_t k = 0; k < n; ++k) {
      const auto at = static_cast<uint32_t>(order[k] >> 32);
      groups += (k ? ", " : "") + std::string("lanes ") + hex(lanes_at(order[k])) + " at line " + std::to_string(insts[std::min(at, end - 1)].line) +
                (static_cast<uint32_t>(order[k]) == kParkedTag ? " (issued its BSYNC)" : "");
    }
    throw InputError(SourceLocation{launch_.file, insts[order[0] >> 32].line, 1},
                     "warp " + std::to_string(w.index) + " of CTA " + id_.str() +
                         " cannot go on: each group of its lanes waits at a convergence barrier (BSYNC, WARPSYNC or BAR) for lanes that wait elsewhere (" +
                         groups + ")");
  }
  w.turn = pc;
  if (w.following == ~0u) w.following = group;
  const EmuInst& in = insts[pc];
  uint32_t exec = guard_lanes(w, in, group);
  if (in.once_per_warp) exec &= -exec;  // a uniform-datapath instruction acts once, as its first lane
  if (!in.register_only && exec) count_effects(in);
  if (!w.timed.empty()) track_timed(w, in);
  begin_record(in, exec, out);
  auto advance = [&](uint32_t taken, uint32_t target) {
    for (uint32_t l = 0; l < 32; ++l)
      if (group >> l & 1) w.pcs[l] = (taken >> l & 1) ? target : pc + 1;
  };
  if (in.code != EmuOp::kSassFlow) {
    // A converged warp runs its SASS in step: what its lanes did before this instruction comes
    // before it for the race checker, as after a __syncwarp (ptxas drops a __syncwarp it knows
    // the warp to be converged at, leaving a NOP). Only diverged lanes can race one another.
    if (group == w.live && in.code != EmuOp::kSass && clocks_.enabled()) clocks_.advance(w.index);
    w.stack.assign(1, StackEntry{pc, end, group});  // what execute() reads the live lanes from
    execute(w, in, exec, out);
    advance(0, 0);
    return true;
  }
  out.inst.active_mask = group;
  // Each lane keeps its own copy of a convergence barrier register: a BSSY sets it for the
  // group that runs it, and lanes that leave a barrier (BREAK, or released by a BSYNC that did
  // not wait for spinning lanes) leave every lane's copy, so that a lane still in the region
  // does not wait for them, and a new region they open does not change its copy.
  auto leave_barrier = [&](uint32_t lanes) {
    for (uint32_t l = 0; l < 32; ++l) w.regs.set(in.operands[0].reg, l, w.regs.get(in.operands[0].reg, l) & ~uint64_t{lanes});
  };
  const auto lane = static_cast<uint32_t>(std::countr_zero(group));
  // BRA P, target: only the lanes whose P holds (besides the guard) go.
  uint32_t taken = exec;
  if ((in.flow == SassFlow::kBra || in.flow == SassFlow::kBraAny) && in.operands.size() > 1) {
    taken = 0;
    for_lanes(exec, [&](uint32_t l) {
      if (read(w, in.operands[1], l) & 1) taken |= 1u << l;
    });
  }
  switch (in.flow) {
    case SassFlow::kBra: {
      const uint32_t target = in.operands[0].target;
      advance(taken, target);
      after_branch(w, in, pc, target, taken != 0);
      break;
    }
    case SassFlow::kBraAny:
      advance(taken ? group : 0, in.operands[0].target);
      w.following = 0;
      break;
    case SassFlow::kBraDiv:
    case SassFlow::kBraConv: {
      // BRA.DIV mask: the group goes to the divergent (collective) path unless it is every live
      // lane of the mask. A guard on it carries a condition ptxas folded in (cooperative groups
      // test "this lane's tile mask is not uniform" so): the guard's lanes go to that path too,
      // which computes the same result in every case.
      const uint32_t mask = static_cast<uint32_t>(read(w, in.operands[1], lane)) & w.live;
      const bool divergent = (mask & ~group) != 0;
      if (in.flow == SassFlow::kBraDiv) advance(in.guard >= 0 ? exec : divergent ? group : 0, in.operands[0].target);
      else advance(divergent ? 0 : exec, in.operands[0].target);
      w.following = 0;
      break;
    }
    case SassFlow::kBssy:
      for_lanes(group, [&](uint32_t l) { w.regs.set(in.operands[0].reg, l, group); });
      w.yielded &= ~group;
      advance(0, 0);
      break;
    case SassFlow::kYield:
      w.yielded |= exec;
      advance(0, 0);
      break;
    case SassFlow::kWarpsyncExclusive:
      if (clocks_.enabled()) clocks_.advance(w.index);  // as __syncwarp: orders the lanes' accesses for the race checker
      for_lanes(group, [&](uint32_t l) { w.tags[l] = static_cast<uint32_t>(read(w, in.operands[0], l)) | 1u; });
      advance(0, 0);
      break;
    case SassFlow::kBreak:
      leave_barrier(exec);
      advance(0, 0);
      break;
    case SassFlow::kBsync: {
      if (sass_bsync_missing(w, in, group)) {
        w.parked |= group;
        break;
      }
      const uint32_t released = group | parked_at(w, pc);
      for_lanes(released, [&](uint32_t l) {
        w.tags[l] = 0;
        w.pcs[l] = pc + 1;
      });
      w.parked &= ~released;
      w.yielded &= ~released;
      // Lanes the BSYNC did not wait for (spinning ones) meet the barrier later without these.
      leave_barrier(released);
      break;
    }
    case SassFlow::kWarpsync:
      if (clocks_.enabled()) clocks_.advance(w.index);
      advance(0, 0);
      break;
    case SassFlow::kNone:
      advance(0, 0);
      break;
    case SassFlow::kExit: {
      advance(exec, end);
      // The timing model retires a warp at an exit: one that leaves lanes running is a branch
      // to it (the warp ends when its last lanes exit).
      static const OpInfo kPartialExit = [] {
        OpInfo o;
        std::string error;
        decode_mnemonic("bra", o, error);
        o.mnemonic = "EXIT";
        o.from_sass = true;
        return o;
      }();
      if (w.live & ~exec) out.inst.op = &kPartialExit;
      break;
    }
    case SassFlow::kCall:
      advance(exec, in.operands[0].target);
      w.following = 0;
      break;
    case SassFlow::kCallIndirect: {
      const auto& targets = launch_.program->sass_call_targets;
      for (uint32_t l = 0; l < 32; ++l) {
        if (!(group >> l & 1)) continue;
        if (!(exec >> l & 1)) {
          w.pcs[l] = pc + 1;
          continue;
        }
        const uint64_t address = read(w, in.operands[0], l);
        const auto it = targets.find(address);
        if (it == targets.end()) {
          fault(in, w, l, "indirect call to " + hex(address) + ", which is not the address of a function of this module that the kernel's SASS has (on a GPU the launch fails)");
        }
        w.pcs[l] = it->second;
      }
      w.following = 0;
      break;
    }
    case SassFlow::kRet:
      for (uint32_t l = 0; l < 32; ++l) {
        if (!(group >> l & 1)) continue;
        w.pcs[l] = (exec >> l & 1) ? static_cast<uint32_t>(read(w, in.operands[0], l) / 16) : pc + 1;
      }
      w.following = 0;
      break;
  }
  return true;
}

}  // namespace warpsim::ptx
