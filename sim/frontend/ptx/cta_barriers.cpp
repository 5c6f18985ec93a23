// The CTA's sixteen barriers, functionally (PTX ISA, "bar, barrier"). bar.sync and bar.red arrive
// and wait; bar.arrive only arrives (producer/consumer code pairs it with a bar.sync elsewhere).
// The first arrival of a phase sets the threads it expects: the thread count operand, or with
// none every thread of the CTA, which after some have exited means every warp still running
// (the non-exited threads the PTX ISA waits for). Arrivals count a warp at a time, "as if all
// the threads in a warp are active", which is why a count must be a multiple of 32. When the
// phase completes, bar.red's reduction goes to every warp that waited, and the barrier is ready
// for its next phase at once.
#include <bit>
#include <functional>
#include <string>

#include "common/error.h"
#include "frontend/ptx/cta_emulator.h"

namespace warpsim::ptx {

void CtaEmulator::barrier_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  if (exec == 0) return;  // guarded off: no arrival
  const uint8_t form = in.qualifier;
  const bool red = form >= EmuInst::kBarPopc;
  const auto& ops = in.operands;
  // Operands: [d,] a [, b] [, c]: the destination and predicate only for bar.red.
  const size_t a_at = red ? 1 : 0;
  const size_t given = ops.size() - (red ? 2 : 0);  // a, and b when present
  const auto lane = static_cast<uint32_t>(std::countr_zero(exec));
  auto uniform = [&](const EmuOperand& o, const char* what) {
    const uint64_t v = read(w, o, lane);
    for_lanes(exec, [&](uint32_t l) {
      if (read(w, o, l) != v) fault(in, w, l, std::string("lanes of one warp name different ") + what + " in one instruction");
    });
    return v;
  };
  uint64_t id = uniform(ops.at(a_at), "barriers");
  // SASS's BAR.SYNC Rn, Rn: one word, the thread count in bits 16 on (0: the whole CTA) and the
  // barrier in bits 0-3.
  const uint64_t word_threads = in.barrier_word ? id >> 16 : 0;
  if (in.barrier_word) id &= 0xf;
  if (id > 15) fault(in, w, lane, "barrier " + std::to_string(id) + ": the PTX ISA names a CTA's barriers 0 to 15");
  uint32_t expected = 0;  // every warp that has not exited
  if (in.barrier_word ? word_threads != 0 : given >= 2) {
    const uint64_t threads = in.barrier_word ? word_threads : uniform(ops.at(a_at + 1), "thread counts");
    if (threads == 0 || threads % 32 != 0) {
      fault(in, w, lane, "barrier thread count " + std::to_string(threads) + ": the PTX ISA requires a non-zero multiple of the warp size (32)");
    }
    if (threads > uint64_t{32} * warps_.size()) {
      fault(in, w, lane, "barrier " + std::to_string(id) + " expects " + std::to_string(threads) + " threads, more than the CTA's " +
                             std::to_string(warps_.size()) + " warps hold: it could never complete");
    }
    expected = static_cast<uint32_t>(threads / 32);
  } else if (form == EmuInst::kBarArrive) {
    fault(in, w, lane, "bar.arrive without a thread count: the PTX ISA requires one");
  }
  CtaBarrier& b = barriers_[id];
  auto describe = [](uint32_t warps) { return warps ? std::to_string(warps * 32) + " threads" : std::string("all threads of the CTA"); };
  if (b.arrived == 0) {
    b.expected = expected;
  } else if (b.expected != expected) {
    fault(in, w, lane, "barrier " + std::to_string(id) + " with " + describe(expected) + " while its phase under way expects " +
                           describe(b.expected) + " (the PTX ISA requires one thread count per phase)");
  }
  ++b.arrived;
  if (red) {
    for_lanes(exec, [&](uint32_t l) {
      const bool p = read(w, ops.back(), l) & 1;
      b.popc += p;
      b.all = b.all && p;
      b.any = b.any || p;
    });
  }
  if (clocks_.enabled()) clocks_.release(w.index, b.clock);
  out.inst.barrier_id = static_cast<uint8_t>(id);
  out.inst.barrier_warps = static_cast<uint8_t>(expected);  // at most 32: checked against the CTA above
  if (form != EmuInst::kBarArrive) {
    w.barrier_wait = static_cast<int32_t>(id);
    w.barrier_pc = static_cast<uint32_t>(&in - launch_.program->insts.data());
    w.barrier_form = form;
    w.barrier_dst = red && ops[0].kind == EmuOperand::Kind::kReg ? ops[0].reg : -1;
    w.barrier_lanes = exec;
  }
  check_can_complete(static_cast<uint32_t>(id), in);
  complete_barrier_if_done(static_cast<uint32_t>(id));
}

// A phase that expects more warps than have arrived plus those that still could (every warp
// that has not exited and does not already wait here) can never complete: said at once, at the
// barrier, rather than left to the timing model's deadlock report.
void CtaEmulator::check_can_complete(uint32_t id, const EmuInst& at) const {
  const CtaBarrier& b = barriers_[id];
  uint32_t could = 0;
  for (const WarpState& o : warps_) could += !o.done && o.barrier_wait != static_cast<int32_t>(id) ? 1 : 0;
  if (b.arrived == 0 || b.expected == 0 || b.arrived + could >= b.expected) return;
  throw InputError(SourceLocation{launch_.file, at.line, 1},
                   "barrier " + std::to_string(id) + " can never complete in CTA " + id_.str() + ": its phase expects " +
                       std::to_string(b.expected * 32) + " threads (" + std::to_string(b.expected) +
                       " warps), more than can still arrive (warps that exited without arriving never will)");
}

void CtaEmulator::complete_barrier_if_done(uint32_t id) {
  CtaBarrier& b = barriers_[id];
  if (b.arrived == 0) return;
  uint32_t expected = b.expected;
  if (expected == 0) {
    for (const WarpState& o : warps_) expected += o.done ? 0 : 1;
  }
  if (b.arrived < expected) return;
  for (WarpState& o : warps_) {
    if (o.barrier_wait != static_cast<int32_t>(id)) continue;
    if (o.barrier_form >= EmuInst::kBarPopc) {
      const uint64_t result = o.barrier_form == EmuInst::kBarPopc ? b.popc : o.barrier_form == EmuInst::kBarAnd ? b.all : b.any;
      for_lanes(o.barrier_lanes, [&](uint32_t l) { write(o, o.barrier_dst, l, result); });
    }
    if (clocks_.enabled()) clocks_.acquire(o.index, b.clock);
    o.barrier_wait = -1;
  }
  PhaseClock clock = std::move(b.clock);
  b = CtaBarrier{};
  b.clock = std::move(clock);
  std::fill(b.clock.begin(), b.clock.end(), 0);
}

void CtaEmulator::warp_finished() {
  for (uint32_t id = 0; id < barriers_.size(); ++id) {
    if (barriers_[id].expected == 0) complete_barrier_if_done(id);
    for (const WarpState& o : warps_) {  // located at a waiting warp's barrier
      if (o.barrier_wait == static_cast<int32_t>(id)) check_can_complete(id, launch_.program->insts[o.barrier_pc]);
    }
  }
}

// Runs other warps ahead until `done`: this CTA's, and in a cluster its siblings' too (a remote
// arrive or a multicast copy may complete this CTA's phase).
void CtaEmulator::run_others_until(const WarpState& waiting, const std::function<bool()>& done, uint64_t max_steps, bool greedy) {
  bool& yielding = cluster_ ? cluster_->yielding : yielding_;
  if (yielding) return;  // one level: a wait inside this one just spins
  yielding = true;
  const std::vector<CtaEmulator*> ctas = cluster_ ? cluster_->ctas : std::vector<CtaEmulator*>{this};
  // Bounded, in case the phase never completes (a real deadlock the livelock check then reports).
  uint64_t steps = 0;
  bool progressed = true;
  while (!done() && progressed && steps < max_steps) {
    progressed = false;
    for (CtaEmulator* cta : ctas) {
      if (!cta) continue;  // retired
      for (WarpState& other : cta->warps_) {
        // A warp waiting at a barrier or on an incomplete mbarrier phase goes on once another
        // warp completes it.
        if (&other == &waiting || other.done || static_cast<int64_t>(other.index) == cta->filling_warp_ || other.barrier_wait >= 0 ||
            cta->blocked_on_wait(other))
          continue;
        // Greedily, a warp runs until it must wait (its registers stay in the cache), at most
        // kGreedySteps at a time and not past a failing mbarrier wait (under independent thread
        // scheduling a spin is not seen as blocked, and would spin on); otherwise one
        // instruction per warp per pass, as a spinning wait would interleave them.
        constexpr uint32_t kGreedySteps = 256;
        uint32_t run = 0;
        bool spinning = false;
        do {
          Record r;
          if (!cta->step(other, r)) break;
          spinning = r.inst.op->mbarrier == MbarrierOp::kWait && r.inst.mbar.phase < 0;
          if (!cta->untimed(r)) other.queue.push_back(std::move(r));
          progressed = true;
          ++steps;
        } while (greedy && ++run < kGreedySteps && !spinning && !done() && other.barrier_wait < 0 && !cta->blocked_on_wait(other));
        if (done()) break;
      }
      if (done()) break;
    }
    // Once every other warp polls in a loop that writes nothing (stuck_waits.cpp), running them
    // on changes nothing: the waiting warp's own watch then decides.
    if (progressed && !census(&waiting).may_write) break;
  }
  yielding = false;
}

void CtaEmulator::wait_at_barrier(WarpState& w) {
  // No bound on the steps: the others may have long work before they arrive (the per-warp
  // instruction limit still catches a livelock).
  run_others_until(w, [&] { return w.barrier_wait < 0; }, UINT64_MAX, true);
  if (w.barrier_wait < 0) return;
  const CtaBarrier& b = barriers_[static_cast<size_t>(w.barrier_wait)];
  uint32_t live = 0;
  for (const WarpState& o : warps_) live += o.done ? 0 : 1;
  const uint32_t expected = b.expected ? b.expected : live;
  const EmuInst& in = launch_.program->insts[w.barrier_pc];
  throw InputError(SourceLocation{launch_.file, in.line, 1},
                   "barrier " + std::to_string(w.barrier_wait) + " can never complete in CTA " + id_.str() + ": its phase expects " +
                       std::to_string(expected * 32) + " threads (" + std::to_string(expected) + " warps), " + std::to_string(b.arrived) +
                       " warps arrived, and no other warp can go on (" + std::to_string(warps_.size() - live) +
                       " have exited, the rest wait at barriers or on mbarriers)");
}

}  // namespace warpsim::ptx
