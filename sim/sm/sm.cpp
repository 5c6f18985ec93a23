#include "sm/sm.h"

#include <bit>
#include <cmath>
#include <sstream>

#include "common/bit_count.h"
#include "common/error.h"
#include "isa/control_bits.h"

namespace warpsim {

Sm::Sm(uint32_t id, const GpuSpec& spec, Engine& engine, MemorySystem& memory, StatRegistry& stats, ClusterBarriers& clusters,
       CtaDone on_cta_done)
    : Component("gpu.sm[" + std::to_string(id) + "]", kSmPriority),
      id_(id),
      spec_(spec),
      engine_(engine),
      clusters_(clusters),
      on_cta_done_(std::move(on_cta_done)),
      outbox_(memory),
      lsu_(static_cast<uint16_t>(id), spec, outbox_, stats_, *this),
      warps_(spec.limits.max_warps_per_sm),
      ctas_(spec.limits.max_ctas_per_sm) {
  subs_.resize(spec.topology.sub_partitions_per_sm);
  for (uint32_t i = 0; i < subs_.size(); ++i) {
    subs_[i].index = i;
    subs_[i].look_at.assign(i < warps_.size() ? (warps_.size() - i + subs_.size() - 1) / subs_.size() : 0, kNever);
    subs_[i].scheduler = make_warp_scheduler(spec.scheduler);
  }
  set_batchable(true);  // the engine hands the SMs due in a cycle to gpu/sm_batch.h together
  stats_.register_with(stats, name());
}

void Sm::start_kernel(uint32_t l1_bytes, uint32_t shared_bytes) {
  if (!idle()) throw SimulationError(name() + ": re-split L1 and shared memory under resident CTAs");
  shared_capacity_ = shared_bytes;
  lsu_.start_kernel(l1_bytes);
  for (auto& sp : subs_) {
    sp.pipe_free.fill(0);
    sp.needs_scan = true;
    sp.next_look = 0;
    sp.scheduler = make_warp_scheduler(spec_.scheduler);
  }
  ticked_ = false;
  population_.fill(0);
}

uint32_t Sm::room_for(const CtaFootprint& f) const {
  uint32_t same = 0;
  for (const CtaSlot& c : ctas_) same += c.work && c.footprint.kernel_index == f.kernel_index;
  if (same >= f.max_resident || resident_ctas_ >= ctas_.size()) return 0;
  uint32_t room = std::min<uint32_t>(f.max_resident - same, static_cast<uint32_t>(ctas_.size()) - resident_ctas_);
  auto limit = [&room](uint32_t held, uint32_t capacity, uint32_t need) {
    if (need) room = std::min(room, held >= capacity ? 0 : (capacity - held) / need);
  };
  limit(resident_warps_, static_cast<uint32_t>(warps_.size()), f.warps);
  limit(registers_held_, spec_.limits.registers_per_sm, f.registers);
  // An idle SM is split anew for the kernel whose CTA it takes (Gpu::launch).
  limit(shared_held_, idle() ? f.kernel_carveout : shared_capacity_, f.shared);
  return room;
}

void Sm::deliver(const MemResponse& response, Cycle arrival) {
  inbox_.push(Response{arrival, response_sequence_++, response});
  engine_.wake(*this, arrival);
}

void Sm::credit_population(Cycle now) {
  if (now <= accounted_until_) return;
  const Cycle dt = now - accounted_until_;
  for (int r = 0; r < kNumStallReasons; ++r) stats_.stall_cycles[r] += uint64_t{population_[r]} * dt;
  accounted_until_ = now;
}

void Sm::enter_population(Warp& w, StallReason r) {
  w.reason = r;
  w.in_population = true;
  ++population_[static_cast<int>(r)];
}

void Sm::leave_population(Warp& w) {
  if (!w.in_population) return;
  --population_[static_cast<int>(w.reason)];
  w.in_population = false;
}

void Sm::take_responses(Cycle now) {
  bool any = false;
  while (!inbox_.empty() && inbox_.top().arrival <= now) {
    MemResponse r = inbox_.top().response;
    inbox_.pop();
    lsu_.on_response(r, now);
    any = true;
  }
  // Warps throttled on full MSHRs wait for a response rather than for a known cycle.
  if (any && population_[static_cast<int>(StallReason::kLgThrottle)] > 0) {
    for (Warp& w : warps_)
      if (w.in_population && w.reason == StallReason::kLgThrottle) mark_dirty(static_cast<uint32_t>(&w - warps_.data()));
  }
}

Cycle Sm::tick_held(Cycle now) {
  in_tick_ = true;
  woke_work_ = false;
  wake_held_ = kNever;
  outbox_.hold();
  credit_population(now);
  take_responses(now);
  Cycle next = kNever;
  bool busy = false;
  for (auto& sp : subs_) busy |= issue_stage(sp, now, next);
  last_tick_ = now;
  ticked_ = true;
  in_tick_ = false;
  if (!inbox_.empty()) next = std::min(next, inbox_.top().arrival);
  return busy || woke_work_ ? now + 1 : next;
}

Cycle Sm::finish_tick(Cycle now, Cycle next) {
  outbox_.release();
  woke_work_ = false;
  finishing_ = true;
  for (const CtaEnd& end : ctas_done_held_) on_cta_done_(end);
  ctas_done_held_.clear();
  finishing_ = false;
  if (woke_work_) next = std::min(next, now + 1);
  // Asked for by this SM's own tick (a cluster barrier of one completing): at the earliest the
  // next cycle, as a tick cannot wake itself for the cycle it is in.
  if (wake_held_ != kNever) next = std::min(next, std::max(wake_held_, now + 1));
  return next;
}

void Sm::wake_at(Cycle at) {
  if (in_tick_) {
    wake_held_ = std::min(wake_held_, at);
  } else {
    engine_.wake(*this, at);
  }
}

void Sm::mark_dirty(uint32_t slot) {
  warps_[slot].dirty = true;
  subs_[slot % subs_.size()].needs_scan = true;
  refresh_look(slot);
}

bool Sm::issue_stage(SubPartition& sp, Cycle now, Cycle& next) {
  if (!sp.needs_scan && sp.next_look > now) {
    next = std::min(next, sp.next_look);
    return false;
  }
  eligible_.clear();
  sp.needs_scan = false;  // events during this scan (a CTA launched, a warp woken) set it again
  Cycle look = kNever;
  const uint32_t stride = static_cast<uint32_t>(subs_.size());
  // Two passes: the warps to classify are found first, their instruction records and scoreboard
  // entries prefetched, then classified. In a big grid both are mostly out of the host's cache,
  // and classify would otherwise wait on each miss in turn.
  to_classify_.clear();
  for (uint32_t i = 0; i < sp.look_at.size(); ++i) {
    if (sp.look_at[i] > now) {  // not launched yet, or still stalled for the same reason
      look = std::min(look, sp.look_at[i]);
      continue;
    }
    const uint32_t slot = sp.index + i * stride;
    Warp& w = warps_[slot];
    if (w.current) {
      __builtin_prefetch(w.current);
      if (!w.operands_ready) w.scoreboard.prefetch(w.current_regs, w.current_reg_count);
    }
    to_classify_.push_back(slot);
  }
  for (const uint32_t slot : to_classify_) {
    Warp& w = warps_[slot];
    Verdict v = classify(sp, w, now);
    leave_population(w);
    if (v.reason == StallReason::kSelected) {
      w.dirty = true;  // eligible warps are looked at again next cycle
      refresh_look(slot);
      eligible_.push_back(slot);
      continue;
    }
    enter_population(w, v.reason);
    if (observer_) observer_->warp_state(id_, slot, now, v.reason, nullptr);
    w.until = v.until;
    w.dirty = false;
    if (w.exited) maybe_retire(w, slot, now);
    refresh_look(slot);
    if (w.resident) look = std::min(look, v.until);
  }
  sp.next_look = look;
  sp.needs_scan = sp.needs_scan || !eligible_.empty();
  next = std::min(next, look);
  if (eligible_.empty()) return false;
  uint32_t chosen = sp.scheduler->pick(eligible_, warps_);
  // Eligible warps are credited here for this cycle only; they are not in a population.
  stats_.stall_cycles[static_cast<int>(StallReason::kNotSelected)] += eligible_.size() - 1;
  ++stats_.stall_cycles[static_cast<int>(StallReason::kSelected)];
  if (observer_) {
    for (uint32_t slot : eligible_)
      observer_->warp_state(id_, slot, now, slot == chosen ? StallReason::kSelected : StallReason::kNotSelected,
                            slot == chosen ? warps_[slot].current : nullptr);
  }
  issue(sp, chosen, now);
  return true;
}

Sm::Verdict Sm::classify(SubPartition& sp, Warp& w, Cycle now) {
  if (w.exited) return {StallReason::kDrain, w.outstanding_loads || w.outstanding_stores ? kNever : w.drain_until};
  if (w.at_barrier) return {StallReason::kBarrier, kNever};
  if (w.held) {
    if (w.held_until > now) return {w.held_for, w.held_until};
    w.held = false;
  }
  if (w.at_membar) {
    if (w.outstanding_stores) return {StallReason::kMembar, kNever};
    w.at_membar = false;
  }
  Cycle until;
  Producer producer;
  if (!w.operands_ready) {
    if (w.current->control != 0) {
      if (const std::optional<Verdict> v = sass_dependences(w, now)) return *v;
    } else if (w.scoreboard.first_blocking(w.current_regs, w.current_reg_count, now, until, producer)) {
      return {stall_for(producer), until};
    }
    w.operands_ready = true;
  }
  const Pipe pipe = w.current_pipe;
  switch (pipe) {
    case Pipe::kNone:
      break;
    case Pipe::kLsu: {
      Cycle at = lsu_.lsu_available(*w.current, now);
      if (at > now) return {StallReason::kLgThrottle, at};
      break;
    }
    case Pipe::kMio: {
      Cycle at = lsu_.mio_available(now);
      if (at > now) return {StallReason::kMioThrottle, at};
      break;
    }
    default: {
      Cycle free = sp.pipe_free[static_cast<int>(pipe)];
      if (free > now) return {pipe == Pipe::kXu ? StallReason::kMioThrottle : StallReason::kMathPipeThrottle, free};
    }
  }
  return {StallReason::kSelected, now};
}

// A SASS instruction issues when ptxas's bits allow: the previous instruction's stall count has
// passed (fixed-latency results, Nsight Compute's "wait" stall) and every dependence barrier of
// its wait mask is released (variable-latency results: the producer's scoreboard kind names the
// stall). The register scoreboard is not consulted, with one exception: tensor-core results.
// ptxas issues dependent HMMAs two cycles apart with no barrier between them (sm_90a listings of
// traces/kernels/hgemm_mma), so the hardware interlocks MMA results itself.
std::optional<Sm::Verdict> Sm::sass_dependences(Warp& w, Cycle now) {
  if (w.issue_after > now) return Verdict{StallReason::kWait, w.issue_after};
  const sass::ControlBits bits = sass::ControlBits::unpack(w.current->control);
  Cycle until;
  Producer producer;
  if (bits.wait_mask && w.barriers.first_blocking(bits.wait_mask, w.scoreboard, now, until, producer)) return Verdict{stall_for(producer), until};
  if (w.scoreboard.first_blocking_from(Producer::kTensor, w.current_regs, w.current_reg_count, now, until)) return Verdict{StallReason::kWait, until};
  return std::nullopt;
}

// What a SASS instruction's bits ask of the warp once it has issued. Read barriers are released
// the cycle after issue: the model reads an instruction's operands when it issues and the
// load/store unit queues values, not register names (assumed; hardware reads a store's data
// later, which this leaves out).
void Sm::apply_control(Warp& w, const WarpInst& in, Cycle now) {
  const sass::ControlBits bits = sass::ControlBits::unpack(in.control);
  w.issue_after = now + std::max<Cycle>(1, bits.stall);
  w.yielded = bits.yield;
  if (bits.write_barrier < DependenceBarriers::kCount)
    w.barriers.hold(bits.write_barrier, std::span<const RegId>(in.regs, in.num_dst), now + 1, w.scoreboard, now);
  if (bits.read_barrier < DependenceBarriers::kCount) w.barriers.hold(bits.read_barrier, {}, now + 1, w.scoreboard, now);
}

void Sm::count_instruction(Warp& w, const WarpInst& in) {
  const OpInfo& op = *in.op;
  const uint64_t lanes = static_cast<uint64_t>(bit_count(in.active_mask));
  ++stats_.inst_executed;
  stats_.thread_inst_executed += lanes;
  ++stats_.pipe_inst[static_cast<int>(op.counted())];
  if (w.after_branch) {
    if (in.active_mask != w.branch_mask) ++stats_.divergent_branches;
    w.after_branch = false;
  }
  stats_.flops.count_math(op, lanes);  // tensor FLOPs where the MMA issues (sm_tensor.cpp)
}

void Sm::issue(SubPartition& sp, uint32_t slot, Cycle now) {
  Warp& w = warps_[slot];
  const WarpInst& in = *w.current;
  const OpInfo& op = *in.op;
  count_instruction(w, in);
  ++ctas_[w.cta_slot].warp_instructions;
  issuing_kernel_ = ctas_[w.cta_slot].footprint.kernel;
  switch (op.op_class) {
    case OpClass::kTensor:
      issue_tensor(sp, w, in, now);
      break;
    case OpClass::kLoad:
    case OpClass::kStore:
    case OpClass::kAtomic:
    case OpClass::kReduction:
    case OpClass::kShuffle:
      issue_memory(w, slot, in, now);
      break;
    case OpClass::kBranch: {
      const PipeSpec& p = spec_.pipe(Pipe::kBranch);
      sp.pipe_free[static_cast<int>(Pipe::kBranch)] = now + p.issue_interval();
      ++stats_.branches;
      w.branch_mask = in.active_mask;
      w.after_branch = true;
      break;
    }
    case OpClass::kBarrier:
      issue_barrier(w, in, now);
      break;
    case OpClass::kMembar:
      if (w.outstanding_stores) w.at_membar = true;
      break;
    case OpClass::kMbarrier:
      issue_mbarrier(w, slot, in, now);
      break;
    case OpClass::kClusterArrive:
    case OpClass::kClusterWait:
      issue_cluster_barrier(w, slot, in, now);
      break;
    case OpClass::kExit:
      exit_warp(w, slot, now);
      return;
    case OpClass::kNop:
      // nanosleep t: the warp is suspended for about t ns (the PTX ISA allows 0 to 2t; t here),
      // at the clock cycles are counted in.
      if (op.sleep && in.active_mask && in.sleep_ns) {
        w.held = true;
        w.held_for = StallReason::kSleeping;
        w.held_until = now + static_cast<Cycle>(std::ceil(in.sleep_ns * spec_.clocks.boost_mhz / 1000.0));
      }
      break;
    default: {
      const PipeSpec& p = spec_.pipe(op.pipe);
      sp.pipe_free[static_cast<int>(op.pipe)] = now + p.issue_interval();
      Producer producer = op.pipe == Pipe::kXu ? Producer::kMio : Producer::kFixed;
      for (int i = 0; i < in.num_dst; ++i) w.scoreboard.set(in.dst(i), now + p.latency, producer);
    }
  }
  if (in.control != 0) apply_control(w, in, now);
  advance(w, slot, now);
}

void Sm::issue_memory(Warp& w, uint32_t slot, const WarpInst& in, Cycle now) {
  const OpInfo& op = *in.op;
  if (op.pipe == Pipe::kMio) {
    Cycle ready = lsu_.issue_mio(in, now, ctas_[w.cta_slot].rank);
    for (int i = 0; i < in.num_dst; ++i) w.scoreboard.set(in.dst(i), ready, Producer::kMio);
    // A write into the cluster's shared memory must land before the warp's next barrier.cluster
    // arrive counts (its release semantics); a local one is done by then anyway.
    if (op.space == MemSpace::kSharedCluster && op.op_class != OpClass::kLoad) w.cluster_writes_done = std::max(w.cluster_writes_done, ready);
    // st.async / red.async: the bytes complete on the destination CTA's mbarrier as they land
    // (`ready` already holds the network's latency for another CTA's).
    if (op.mbarrier == MbarrierOp::kCompleteTx && in.active_mask) {
      require_clusters(in);
      signal_mbarrier(ctas_[w.cta_slot], in, MbarrierSignal{in.mbar.address, 0, 0, in.mbar.tx_bytes, false}, ready);
    }
    return;
  }
  if (in.active_mask == 0) return;  // predicated off: nothing reaches memory
  if (op.mbarrier == MbarrierOp::kBulkCopy) {
    require_hopper(in);
    // The issuing warp stays resident until its copies land, so the CTA's mbarriers outlive them
    // (a multicast copy's other CTAs are the kernel's to keep resident, as on the GPU).
    if (std::string error; in.mbar.fills(ctas_[w.cta_slot].rank) && !ctas_[w.cta_slot].mbarriers.known(in.mbar.address, error)) {
      throw InputError(SourceLocation{issuing_kernel_->source_file, in.line, 1}, error);
    }
    lsu_.issue_bulk_copy(in, slot, now);
    w.outstanding_loads += static_cast<uint32_t>(in.active_lanes());
    return;
  }
  Cycle ready = 0;
  bool pending = false;
  if (op.op_class == OpClass::kLoad) {
    pending = lsu_.issue_global_load(in, slot, now, ready);
  } else if (op.op_class == OpClass::kStore) {
    w.outstanding_stores += op.bulk_store ? lsu_.issue_bulk_store(in, slot, now) : lsu_.issue_global_store(in, slot, now);
  } else {
    uint32_t acks = 0;
    pending = lsu_.issue_atomic(in, slot, now, ready, acks);
    w.outstanding_stores += acks;
  }
  if (op.op_class == OpClass::kStore || op.op_class == OpClass::kReduction) return;
  for (int i = 0; i < in.num_dst; ++i) w.scoreboard.set(in.dst(i), pending ? kNever : ready, Producer::kMemory);
  if (pending) ++w.outstanding_loads;
}

void Sm::set_current(Warp& w, const WarpInst* in) {
  w.current = in;
  w.operands_ready = false;
  w.current_regs = in ? in->regs : nullptr;
  w.current_reg_count = in ? static_cast<uint16_t>(in->num_dst + in->num_src) : 0;
  w.current_pipe = in ? in->op->pipe : Pipe::kNone;
}

void Sm::advance(Warp& w, uint32_t slot, Cycle now) {
  // A warp waiting at a CTA barrier fetches its next instruction once released. Fetching it now
  // would make an emulating frontend run the other warps ahead of the timing model to complete
  // the barrier first, which never ends when one of them waits for another CTA (a cooperative
  // launch's grid sync spins on global memory that CTAs not yet emulated must write).
  if (w.at_barrier) {
    set_current(w, nullptr);
    w.fetch_deferred = true;
    return;
  }
  set_current(w, w.stream->next());
  if (!w.current) exit_warp(w, slot, now);
}

void Sm::load_done(uint32_t slot, std::span<const RegId> dsts, Cycle ready) {
  Warp& w = warps_[slot];
  for (RegId r : dsts) w.scoreboard.set(r, ready, Producer::kMemory);
  --w.outstanding_loads;
  mark_dirty(slot);
  if (w.exited) w.drain_until = std::max(w.drain_until, ready);
  maybe_retire(w, slot, engine_.now());
}

void Sm::require_hopper(const WarpInst& in) const {
  if (spec_.compute_capability >= 90) return;
  // Ampere (8.0) has mbarriers with init, arrive, test_wait, inval and cp.async.mbarrier.arrive
  // (PTX ISA, "mbarrier": sm_80); transaction counts, try_wait, remote arrives and bulk copies
  // came with Hopper.
  const OpInfo& op = *in.op;
  const bool ampere = op.op_class == OpClass::kMbarrier && !op.mbarrier_sm90 && op.mbarrier != MbarrierOp::kBulkCopy &&
                      in.mbar.tx_bytes == 0 && (in.mbar.address >> kClusterRankShift) == 0;
  const uint32_t needs = ampere ? 80 : 90;
  if (spec_.compute_capability >= needs) return;
  throw InputError(SourceLocation{issuing_kernel_->source_file, in.line, 1},
                   "'" + in.op->mnemonic + "' needs compute capability " + std::to_string(needs / 10) + ".0 or later (" +
                       (ampere ? "mbarriers are Ampere's" : "mbarrier transactions, try_wait and bulk copies are Hopper's") + "); " + spec_.name +
                       " has " + std::to_string(spec_.compute_capability / 10) + "." + std::to_string(spec_.compute_capability % 10));
}

void Sm::issue_mbarrier(Warp& w, uint32_t slot, const WarpInst& in, Cycle now) {
  if (in.op->cancels_launch && spec_.clusters.launch_control_latency == 0) {
    throw InputError(SourceLocation{issuing_kernel_->source_file, in.line, 1},
                     "'" + in.op->mnemonic + "' needs compute capability 10.0 or later (cluster launch control is Blackwell's); " + spec_.name +
                         " has " + std::to_string(spec_.compute_capability / 10) + "." + std::to_string(spec_.compute_capability % 10));
  }
  require_hopper(in);
  ++stats_.mbarrier_ops;
  // Through MIO like a shared-memory atomic: one pass, then the shared-memory latency.
  Cycle ready = lsu_.issue_mio(in, now);
  Producer producer = Producer::kMio;
  if (in.active_mask != 0) {
    CtaSlot& cta = ctas_[w.cta_slot];
    MbarrierTable& table = cta.mbarriers;
    MbarrierTable::Release released;
    std::string error;
    bool ok = true;
    const MbarrierUse& m = in.mbar;
    const MbarrierOp kind = in.op->mbarrier;
    switch (kind) {
      case MbarrierOp::kArrive:
      case MbarrierOp::kExpectTx:
      case MbarrierOp::kCompleteTx: {
        MbarrierSignal signal{m.address, kind == MbarrierOp::kArrive ? m.arrivals : 0, kind == MbarrierOp::kCompleteTx ? 0 : m.tx_bytes,
                              kind == MbarrierOp::kCompleteTx ? m.tx_bytes : 0, in.op->arrive_drop};
        // tcgen05.commit: the arrival happens when the warp's MMAs are done. A signal to another
        // CTA crosses the SM-to-SM network, as a distributed-shared-memory access does.
        // try_cancel: the answer comes back from the CTA scheduler.
        const Cycle at = in.op->after_tensor     ? std::max(ready, w.tensor_done)
                         : in.op->cancels_launch ? ready + spec_.clusters.launch_control_latency
                                                 : ready;
        if (m.multicast == 0) {
          signal_mbarrier(cta, in, signal, names_other_cta(cta, m.address) ? at + spec_.clusters.dsmem_latency : at);
          break;
        }
        // tcgen05.commit .multicast::cluster: the same offset in each CTA of the mask.
        for (uint32_t rank = 0; m.multicast >> rank; ++rank) {
          if (!(m.multicast >> rank & 1)) continue;
          signal.address = (rank + 1) << kClusterRankShift | (m.address & kClusterOffsetMask);
          signal_mbarrier(cta, in, signal, names_other_cta(cta, signal.address) ? at + spec_.clusters.dsmem_latency : at);
        }
        break;
      }
      case MbarrierOp::kInit: ok = table.init(m.address, m.arrivals, error); break;
      case MbarrierOp::kInval: table.inval(m.address); break;
      case MbarrierOp::kWait:
        // A wait the frontend saw succeed returns true no earlier than the phase completes here.
        if (m.phase >= 0 && in.num_dst > 0) {
          const Cycle done = table.wait(m.address, MbarrierTable::Waiter{slot, in.dst(0), static_cast<uint32_t>(m.phase)}, error);
          ok = error.empty();
          if (ok && done == kNever) {
            w.scoreboard.set(in.dst(0), kNever, Producer::kMemory);
            ++w.outstanding_loads;
            return;
          }
          ready = std::max(ready, done);
          producer = Producer::kMemory;
        }
        break;
      default: break;
    }
    if (!ok) throw InputError(SourceLocation{issuing_kernel_->source_file, in.line, 1}, error);
    release_waiters(released);
  }
  for (int i = 0; i < in.num_dst; ++i) w.scoreboard.set(in.dst(i), ready, producer);
}

void Sm::release_waiters(const MbarrierTable::Release& released) {
  for (const auto& [waiter, cycle] : released) {
    Warp& w = warps_[waiter.warp];
    w.scoreboard.set(waiter.reg, cycle, Producer::kMemory);
    --w.outstanding_loads;
    mark_dirty(waiter.warp);
  }
}

void Sm::bulk_copy_done(uint32_t slot, uint32_t mbarrier, uint32_t bytes, uint16_t multicast, Cycle ready) {
  Warp& w = warps_[slot];
  const CtaSlot& cta = ctas_[w.cta_slot];
  // A multicast copy's data reach every CTA of the mask from L2 together (assumed: the GPC's
  // crossbar delivers them to each SM; no measured figure); a plain copy fills the issuer's CTA.
  const uint32_t targets = multicast ? multicast : 1u << cta.rank;
  for (uint32_t rank = 0; targets >> rank; ++rank) {
    if (!(targets >> rank & 1)) continue;
    if (rank != cta.rank) {
      if (!clusters_.signal(cta.cluster, rank, MbarrierSignal{mbarrier, 0, 0, bytes, false}, ready)) {
        throw InputError(SourceLocation{source_file(cta), 0, 1}, "multicast bulk copy completing: the cluster's CTA of rank " +
                                                                         std::to_string(rank) + " is not resident (it exited, or the cluster has fewer CTAs)");
      }
      continue;
    }
    MbarrierTable::Release released;
    std::string error;
    if (!ctas_[w.cta_slot].mbarriers.complete_tx(mbarrier, bytes, ready, released, error)) {
      throw InputError(SourceLocation{source_file(cta), 0, 1}, "bulk copy completing: " + error);
    }
    release_waiters(released);
  }
  --w.outstanding_loads;
  mark_dirty(slot);
  if (w.exited) w.drain_until = std::max(w.drain_until, ready);
  maybe_retire(w, slot, engine_.now());
}

void Sm::store_acked(uint32_t slot) {
  Warp& w = warps_[slot];
  --w.outstanding_stores;
  mark_dirty(slot);
  maybe_retire(w, slot, engine_.now());
}

std::string Sm::describe_state() const {
  std::ostringstream s;
  s << name() << ": " << resident_ctas_ << " CTAs, " << resident_warps_ << " warps resident";
  for (uint32_t slot = 0; slot < warps_.size(); ++slot) {
    const Warp& w = warps_[slot];
    if (!w.resident) continue;
    s << "\n  warp slot " << slot << " (CTA slot " << w.cta_slot << ", warp " << w.warp_in_cta << "): "
      << (w.exited ? "exited" : w.at_barrier ? "at barrier " + std::to_string(w.barrier_id) : std::string("running")) << ", loads " << w.outstanding_loads
      << ", stores " << w.outstanding_stores;
    if (w.current && !w.exited) s << ", next " << w.current->op->mnemonic << " (line " << w.current->line << ")";
  }
  return s.str();
}

}  // namespace warpsim
