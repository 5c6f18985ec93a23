// Hopper's transaction barriers and bulk copies, functionally (PTX ISA, "mbarrier" and
// "cp.async.bulk"): an mbarrier counts pending arrivals and transaction bytes per phase; a phase
// completes when both reach zero, and the next starts with the expected count. A bulk copy is
// done at once, which is one valid order for it, and completes its bytes on the mbarrier then.
// What each instruction contributed goes into the record (WarpInst::mbar), so that the timing
// model can replay the phases in its own order (sm/mbarrier_table.h).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/format.h"
#include "frontend/ptx/cta_emulator.h"

namespace warpsim::ptx {
uint64_t CtaEmulator::wait_operand(const WarpState& w, const EmuInst& in, uint32_t lane) const {
  const uint64_t operand = read(w, in.operands.at(2), lane);
  return in.sass_async ? operand >> 31 & 1 : operand;  // SYNCS.PHASECHK: the parity in bit 31
}

bool CtaEmulator::wait_satisfied(const WarpState& w, const EmuInst& in, uint32_t exec) const {
  const EmuOperand& addr = in.operands.at(1);
  const bool parity = in.has("parity");
  bool ok = true;
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t a = address(w, addr, l);
    auto it = mbarriers_.find(a);
    if (it == mbarriers_.end()) return;  // reported when the wait executes
    const uint64_t operand = wait_operand(w, in, l);
    ok = ok && (parity ? (it->second.phase & 1) != (operand & 1) : Mbarrier::token_phase(operand) < it->second.phase);
  });
  return ok;
}

// True when the warp's next instruction is an mbarrier wait that would fail now: running it
// ahead would only record spin iterations that depend on emulation order.
bool CtaEmulator::blocked_on_wait(const WarpState& w) const {
  if (launch_.independent_thread_scheduling) return false;  // its next PC is chosen while stepping
  const auto& insts = launch_.program->insts;
  for (auto e = w.stack.rbegin(); e != w.stack.rend(); ++e) {
    if (e->pc == e->rpc || e->mask == 0) continue;
    if (e->pc >= insts.size()) return false;
    const EmuInst& in = insts[e->pc];
    if (in.code != EmuOp::kMbarrier || in.op.mbarrier != MbarrierOp::kWait) return false;
    return !wait_satisfied(w, in, guard_lanes(w, in, e->mask));
  }
  return false;
}

// `size` bytes at `address` for a copy engine's transfer: in bounds (memory_at's faults), but
// aligned only as the copy requires (checked by the caller), not to the whole size.
uint8_t* CtaEmulator::bytes_at(MemSpace space, uint64_t address, uint32_t size, const WarpState& w, uint32_t lane, const EmuInst& in) {
  uint8_t* first = memory_at(space, address, 1, w, lane, in);
  if (size > 1) memory_at(space, address + size - 1, 1, w, lane, in);
  if (space == MemSpace::kGlobal && !launch_.memory->at(address, size)) {
    fault(in, w, lane, "bulk copy of " + std::to_string(size) + " bytes at " + hex(address) + " crosses the end of buffer " +
                           launch_.memory->nearest(address));
  }
  return first;
}

// The mbarrier at a shared address: this CTA's, or with a cluster rank in its upper bits (mapa's
// .shared::cluster encoding), another CTA's of the cluster.
CtaEmulator::Mbarrier& CtaEmulator::mbarrier_at(uint64_t address, const WarpState& w, uint32_t lane, const EmuInst& in) {
  const uint64_t rank_plus_one = address >> kClusterRankShift, offset = address & kClusterOffsetMask;
  CtaEmulator* owner = this;
  if (rank_plus_one != 0 && rank_plus_one != uint64_t{rank_} + 1) {
    cluster_shared_at(address, 8, w, lane, in);  // bounds, and the rank inside the cluster
    owner = cluster_->ctas[rank_plus_one - 1];
    if (!owner) fault(in, w, lane, "mbarrier at shared::cluster " + hex(address) + ": the CTA of rank " + std::to_string(rank_plus_one - 1) + " has exited");
  } else {
    memory_at(MemSpace::kShared, offset, 8, w, lane, in);  // bounds and 8-byte alignment
  }
  if (offset % 8 != 0) fault(in, w, lane, "mbarrier at shared " + hex(address) + " is not 8-byte aligned");
  auto it = owner->mbarriers_.find(offset);
  if (it == owner->mbarriers_.end()) {
    fault(in, w, lane, "mbarrier at shared " + hex(offset) + (owner == this ? "" : " of the CTA of rank " + std::to_string(rank_plus_one - 1)) +
                           " used before mbarrier.init");
  }
  return it->second;
}

void CtaEmulator::complete_phase_if_done(Mbarrier& b) const {
  if (b.pending != 0 || b.tx != 0) return;
  if (clocks_.enabled()) {
    b.completed[b.phase & 1] = b.clock;
    std::fill(b.clock.begin(), b.clock.end(), 0);
  }
  ++b.phase;
  b.pending = b.expected;
}

void CtaEmulator::mbarrier_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  const auto& ops = in.operands;
  const MbarrierOp kind = in.op.mbarrier;
  const bool after_copies = in.op.after_async_copies;  // cp.async.mbarrier.arrive [addr]
  const size_t addr_index = (kind == MbarrierOp::kArrive && !after_copies) || kind == MbarrierOp::kWait ? 1 : 0;
  const EmuOperand& addr = ops.at(addr_index);
  MbarrierUse& use = out.inst.mbar;
  bool first = true;
  int64_t waited = -1;
  bool all_done = true;  // a wait: every lane's phase has completed
  if (kind == MbarrierOp::kWait && !wait_satisfied(w, in, exec)) run_others_until(w, [&] { return wait_satisfied(w, in, exec); });
  for_lanes(exec, [&](uint32_t l) {
    uint64_t a = address(w, addr, l);
    // A .shared::cluster address naming this CTA is its own barrier; one naming another CTA keeps
    // its rank, for the timing model to route the arrive there.
    if (a >> kClusterRankShift == uint64_t{rank_} + 1) a &= kClusterOffsetMask;
    const bool remote = (a >> kClusterRankShift) != 0;
    if (!first && a != use.address) {
      fault(in, w, l, "lanes of one warp use different mbarriers in one instruction (shared " + hex(use.address) + " and " + hex(a) +
                          "), which the timing model does not replay");
    }
    if (first) use.address = static_cast<uint32_t>(a), first = false;
    if (!remote) check_shared(w, l, a, 8, true, true, in);  // an atomic update: never a race
    if (kind == MbarrierOp::kInit) {
      memory_at(MemSpace::kShared, a, 8, w, l, in);
      const uint64_t value = read(w, ops.at(1), l);
      // SYNCS.EXCH.64 writes the word a fresh barrier holds; mbarrier.init names the count.
      const auto count = in.sass_async ? (1u << 20) - static_cast<uint32_t>(value >> 1 & 0xfffff) : static_cast<uint32_t>(value);
      if (in.sass_async && value != Mbarrier::hardware_word(0, count, count)) {
        fault(in, w, l, "SYNCS.EXCH.64 writes " + hex(value) + " to the mbarrier at shared " + hex(a) +
                            ", not a fresh barrier's word ((2^20 - n) << 1 | (2^20 - n) << 43 for n arrivals), the only exchange the SASS emulator models");
      }
      if (count == 0 || count >= (1u << 20)) fault(in, w, l, "mbarrier.init with expected count " + std::to_string(count) + "; the PTX ISA allows 1 to 2^20 - 1");
      mbarriers_[a] = Mbarrier{count, count, 0, 0, {}, {}};
      use.arrivals = count;
      return;
    }
    if (kind == MbarrierOp::kInval) {
      mbarrier_at(a, w, l, in);
      mbarriers_.erase(a);
      return;
    }
    Mbarrier& b = mbarrier_at(a, w, l, in);
    if (kind == MbarrierOp::kExpectTx || kind == MbarrierOp::kCompleteTx) {
      const auto tx = static_cast<uint32_t>(read(w, ops.at(1), l));
      b.tx += kind == MbarrierOp::kExpectTx ? int64_t{tx} : -int64_t{tx};
      use.tx_bytes += tx;
      if (kind == MbarrierOp::kCompleteTx) complete_phase_if_done(b);
      return;
    }
    if (kind == MbarrierOp::kArrive) {
      // arrive.expect_tx state, [a], tx: adds tx, then one arrival; plain arrive's third operand
      // is the arrival count (default 1).
      const bool expect_tx = in.has("expect_tx");
      uint32_t count = !expect_tx && ops.size() > 2 ? static_cast<uint32_t>(read(w, ops[2], l)) : 1;
      // cp.async.mbarrier.arrive: the copies are done at once here, so the pending count's
      // increment and the copies' arrival cancel, unless .noinc, where it is one arrival.
      if (after_copies) count = in.qualifier;
      if (expect_tx) {
        const auto tx = static_cast<uint32_t>(read(w, ops.at(2), l));
        b.tx += tx;
        use.tx_bytes += tx;
      }
      if (count > b.pending) {
        fault(in, w, l, "mbarrier.arrive at shared " + hex(a) + " with " + std::to_string(count) + " arrivals when " +
                            std::to_string(b.pending) + " of its phase are pending");
      }
      const bool no_complete = in.has("noComplete");
      if (in.sass_async && ops.at(0).kind == EmuOperand::Kind::kVector) {  // SASS: the word, into a register pair
        const uint64_t word = Mbarrier::hardware_word(b.phase, b.pending, b.expected);
        write(w, ops[0].regs.at(0), l, word & 0xffffffffu), write(w, ops[0].regs.at(1), l, word >> 32);
      } else if (!after_copies) {
        write(w, ops.at(0).kind == EmuOperand::Kind::kReg ? ops[0].reg : -1, l, Mbarrier::token(b.phase, b.pending, no_complete));
      }
      b.pending -= count;
      if (in.op.arrive_drop) b.expected -= count;  // and leaves: later phases expect fewer (expected >= pending)
      // .noComplete: the PTX ISA leaves it undefined if this arrive completes the phase.
      if (no_complete && b.pending == 0 && b.tx == 0) {
        fault(in, w, l, "mbarrier." + in.mods.at(0) + ".noComplete at shared " + hex(a) + " completes the phase, which the PTX ISA leaves undefined");
      }
      if (!remote && clocks_.enabled()) clocks_.release(w.index, b.clock);
      use.arrivals += count;
      complete_phase_if_done(b);
      return;
    }
    // try_wait / test_wait: with .parity the operand is the parity of the phase waited for,
    // else the state token arrive returned (the phase it arrived on).
    const uint64_t operand = wait_operand(w, in, l);
    const bool parity = in.has("parity");
    const bool done = parity ? (b.phase & 1) != (operand & 1) : Mbarrier::token_phase(operand) < b.phase;
    write(w, ops.at(0).kind == EmuOperand::Kind::kReg ? ops[0].reg : -1, l, done ? 1 : 0);
    all_done = all_done && done;
    if (done) waited = std::max<int64_t>(waited, parity ? int64_t{b.phase} - 1 : int64_t{Mbarrier::token_phase(operand)});
    // The phase waited for: what its arriving warps had seen is ordered before what follows.
    if (done && clocks_.enabled()) clocks_.acquire(w.index, b.completed[waited & 1]);
  });
  if (kind == MbarrierOp::kWait) {
    use.phase = static_cast<int32_t>(waited);
    watch_poll(w, in, exec, !all_done);
  }
  // The timing model holds the arrive until the warp's copies so far have landed.
  if (after_copies) async_copy_group(w, in, out);
}

// mbarrier.pending_count count, state: the barrier's pending count before the arrive that returned
// `state` (PTX ISA). Only a .noComplete arrive's token may be read; any other is undefined there.
void CtaEmulator::mbarrier_pending_count(WarpState& w, const EmuInst& in, uint32_t exec) {
  const auto& ops = in.operands;
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t state = read(w, ops.at(1), l);
    if (!Mbarrier::token_no_complete(state)) {
      fault(in, w, l, "mbarrier.pending_count reads a state that no mbarrier.arrive.noComplete or arrive_drop.noComplete returned, which the PTX "
                      "ISA leaves undefined");
    }
    write(w, ops.at(0).kind == EmuOperand::Kind::kReg ? ops[0].reg : -1, l, Mbarrier::token_pending(state));
  });
}

void CtaEmulator::bulk_copy(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  // cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]
  if (in.op.bulk_reduce) return bulk_reduce(w, in, exec, out);
  if (in.op.bulk_store) return in.has("tensor") ? bulk_tensor_store(w, in, exec, out) : bulk_store(w, in, exec, out);
  if (in.has("tensor")) return bulk_tensor_copy(w, in, exec, out);
  const auto& ops = in.operands;
  const EmuOperand &dst = ops.at(0), &src = ops.at(1), &bar = ops.at(3);
  MbarrierUse& use = out.inst.mbar;
  bool first = true;
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t d = address(w, dst, l) & kClusterOffsetMask, s = address(w, src, l), m = address(w, bar, l) & kClusterOffsetMask;
    const auto size = static_cast<uint32_t>(read(w, ops.at(2), l)) * (in.sass_async ? 16 : 1);
    if (size == 0 || size % 16 != 0 || d % 16 != 0 || s % 16 != 0) {
      fault(in, w, l, "cp.async.bulk of " + std::to_string(size) + " bytes from " + hex(s) + " to shared " + hex(d) +
                          ": the PTX ISA requires addresses and size that are multiples of 16");
    }
    const uint16_t ctas = copy_destinations(w, in, 4, l);
    MbarrierUse here = use;
    here.address = static_cast<uint32_t>(m);
    here.tx_bytes = size;
    here.multicast = in.has("multicast::cluster") ? ctas : 0;
    record_lane_copy(w, in, l, here, first, use);
    out.addresses.push_back(s);
    land_copy(w, in, l, {global_bytes(s, size, true, false, w, l, in), size}, d, 0, m, ctas);
  });
  compress_addresses(out);
}

// cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size: a TMA store, done at once. The
// timing model writes the bytes to L2 and the warp's wait_group waits for their acknowledgements.
void CtaEmulator::bulk_store(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  const auto& ops = in.operands;
  bool first = true;
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t d = address(w, ops.at(0), l), s = address(w, ops.at(1), l);
    const auto size = static_cast<uint32_t>(read(w, ops.at(2), l)) * (in.sass_async ? 16 : 1);
    if (size == 0 || size % 16 != 0 || d % 16 != 0 || s % 16 != 0) {
      fault(in, w, l, "cp.async.bulk of " + std::to_string(size) + " bytes from shared " + hex(s) + " to " + hex(d) +
                          ": the PTX ISA requires addresses and size that are multiples of 16");
    }
    if (!first && size != out.inst.mbar.tx_bytes) fault(in, w, l, "lanes of one warp store bulk copies of different sizes in one instruction, which the timing model does not replay");
    first = false;
    out.inst.mbar.tx_bytes = size;
    out.addresses.push_back(d);
    check_shared(w, l, s, size, false, false, in);  // read by the copy engine after the threads wrote it
    std::memcpy(global_bytes(d, size, false, true, w, l, in), bytes_at(MemSpace::kShared, s, size, w, l, in), size);
  });
  compress_addresses(out);
}

}  // namespace warpsim::ptx
