// An mbarrier phase that can never complete, or memory no warp of the grid will write again,
// reported where a warp polls it (spin_watch.h has the argument). Without this a kernel whose TMA
// box delivers fewer bytes than its expect_tx announced, or whose grid barrier counts one CTA too
// many, spins until the livelock limit: minutes, and a message about locks.
#include <algorithm>
#include <cstring>
#include <string>

#include "common/error.h"
#include "common/format.h"
#include "frontend/ptx/cta_emulator.h"

namespace warpsim::ptx {

namespace {
// Polls a warp fails in a row before its loop is watched: a wait the other warps can satisfy
// is satisfied within one poll (run_others_until), so the watch costs nothing there.
constexpr uint32_t kWatchAfter = 8;

bool reads_clock(const EmuInst& in) {
  for (const EmuOperand& o : in.operands)
    if (o.kind == EmuOperand::Kind::kSpecial && o.special == Special::kClock) return true;
  return false;
}
}  // namespace

// Loads count when what they read changes only by this CTA's (cluster's) own instructions;
// global memory is not such. A clock read counts: the watch leaves what it computes out.
bool keeps_to_registers(const EmuInst& in) {
  switch (in.code) {
    case EmuOp::kLd:
    case EmuOp::kLdmatrix:
      return !in.generic && (in.space == MemSpace::kShared || in.space == MemSpace::kSharedCluster || in.space == MemSpace::kLocal ||
                             in.space == MemSpace::kParam || in.space == MemSpace::kConst);
    case EmuOp::kMbarrier:
      return in.op.mbarrier == MbarrierOp::kWait;  // test_wait / try_wait only read the barrier
    case EmuOp::kSt: case EmuOp::kAtom: case EmuOp::kRed: case EmuOp::kBar: case EmuOp::kRet: case EmuOp::kStmatrix:
    case EmuOp::kCpAsync: case EmuOp::kCpAsyncCommit: case EmuOp::kCpAsyncWait: case EmuOp::kBulkCopy:
    case EmuOp::kWmmaLoad: case EmuOp::kWmmaStore: case EmuOp::kClusterArrive: case EmuOp::kClusterWait: case EmuOp::kWgmma:
    case EmuOp::kTcgen05: case EmuOp::kTrap: case EmuOp::kPrintf: case EmuOp::kAssertFail: case EmuOp::kMalloc: case EmuOp::kFree:
    case EmuOp::kBadIndirectCall: case EmuOp::kSassRuntimeCall:
    case EmuOp::kAlloca: case EmuOp::kStackSave: case EmuOp::kStackRestore:
    case EmuOp::kTexture:  // reads global memory, or (sust) writes it
      return false;
    case EmuOp::kSassFlow:
      return in.flow != sass::SassFlow::kExit;
    default:
      return true;  // arithmetic, moves, comparisons, branches, shuffles and votes
  }
}

bool keeps_to_grid(const EmuInst& in) {
  if (in.op.mbarrier == MbarrierOp::kCompleteTx) return false;  // st.async, red.async: they arrive
  switch (in.code) {
    case EmuOp::kLd: case EmuOp::kLdmatrix: case EmuOp::kWmmaLoad:
    case EmuOp::kAtom:  // counted where it runs when it changes memory (cta_emulator.cpp)
      return true;
    case EmuOp::kTexture:
      return in.base != "sust";
    default:
      return keeps_to_registers(in);
  }
}

// A value computed from a clock read is timed (a backoff's elapsed time, its sleep, its branch).
// w.timed holds, by a register's first word, 0 (not timed) or its words + 1 (timed). Registers
// as the operands name them (storage registers, after packing), the scoreboard's rule for which
// operand is written.
void CtaEmulator::track_timed(WarpState& w, const EmuInst& in) {
  const auto registers = static_cast<int32_t>(launch_.program->storage_bits.size());
  auto each_register = [&](const EmuOperand& o, auto&& f) {
    if ((o.kind == EmuOperand::Kind::kReg || o.kind == EmuOperand::Kind::kAddr) && o.reg >= 0 && o.reg < registers) f(o.reg);
    if (o.kind == EmuOperand::Kind::kVector || o.kind == EmuOperand::Kind::kAddr)
      for (int32_t r : o.regs)
        if (r >= 0 && r < registers) f(r);
  };
  bool timed = reads_clock(in) || (in.guard >= 0 && w.timed[w.regs.slot(in.guard) >> 1] != 0);
  // The results: a SASS instruction's first sass_results operands (IADD3's carry predicate
  // among them), a PTX one's first operand.
  const bool writes = in.op.writes_destination && !in.operands.empty() && in.operands[0].kind != EmuOperand::Kind::kAddr;
  const size_t results = in.sass_results ? std::min<size_t>(in.sass_results, in.operands.size()) : writes ? 1 : 0;
  for (size_t i = results; i < in.operands.size(); ++i)
    each_register(in.operands[i], [&](int32_t r) { timed = timed || w.timed[w.regs.slot(r) >> 1] != 0; });
  for (size_t i = 0; i < results; ++i) {
    each_register(in.operands[i], [&](int32_t r) {
      const uint32_t slot = w.regs.slot(r);
      w.timed[slot >> 1] = timed ? static_cast<uint8_t>((slot & 1 ? 64 : 32) + 1) : 0;
    });
  }
}

// Everything a warp's next steps depend on besides memory and the time: its registers (less the
// timed ones), the reconvergence stack or the lanes' PCs and independent thread scheduling's
// turn, and the carry flags.
std::span<const uint32_t> CtaEmulator::warp_state(const WarpState& w) {
  auto& s = spin_scratch_;
  const auto regs = w.regs.words();
  s.assign(regs.begin(), regs.end());
  for (size_t i = 0; i < w.timed.size(); ++i)
    if (w.timed[i]) std::fill_n(s.begin() + static_cast<std::ptrdiff_t>(i), w.timed[i] - 1, 0);
  for (const StackEntry& e : w.stack) s.insert(s.end(), {e.pc, e.rpc, e.mask});
  s.insert(s.end(), w.pcs.begin(), w.pcs.end());
  s.insert(s.end(), {w.live, w.turn, w.run_length, w.following, uint32_t{w.waited_on_memory}, w.carry});
  return s;
}

bool CtaEmulator::tally(Census& c, const WarpState& o, bool polling) {
  if (o.done) {
    ++c.exited;
  } else if (o.barrier_wait >= 0) {
    ++c.at_barrier;
  } else if (polling) {
    ++c.polling;
  } else {
    c.may_write = true;  // the counts no longer matter
    return false;
  }
  return true;
}

// What the warps of the CTA (cluster) other than `except` are doing; `may_write` when one of
// them might still write (it runs code that is not a loop known to write nothing, or its CTA
// has yet to begin).
CtaEmulator::Census CtaEmulator::census(const WarpState* except) {
  Census c;
  const uint64_t effects = unit_effects();
  CtaEmulator* self = this;
  const std::span<CtaEmulator* const> ctas = cluster_ ? std::span<CtaEmulator* const>(cluster_->ctas) : std::span<CtaEmulator* const>(&self, 1);
  for (const CtaEmulator* cta : ctas) {
    if (!cta) {
      ++c.retired;
      continue;
    }
    for (const WarpState& o : cta->warps_)
      if (&o != except && !tally(c, o, o.spin.cycling(effects))) return c;
  }
  if (cluster_ && c.retired != cluster_->retired) c.may_write = true;  // a null rank not yet begun
  return c;
}

void CtaEmulator::watch_poll(WarpState& w, const EmuInst& in, uint32_t exec, bool failed) {
  if (!failed) {
    if (w.failed_polls >= kWatchAfter) w.timed.clear(), w.spin.reset();
    w.failed_polls = 0;
    return;
  }
  if (++w.failed_polls < kWatchAfter) return;
  if (w.timed.empty()) w.timed.assign(w.regs.words().size(), 0);
  const uint64_t effects = unit_effects();
  w.spin.poll(effects, [&] { return warp_state(w); });
  if (!w.spin.cycling(effects)) return;
  const Census others = census(nullptr);
  if (others.may_write) return;
  // The first lane whose barrier has not reached its phase names it.
  std::string what;
  const bool parity = in.has("parity");
  for_lanes(exec, [&](uint32_t l) {
    if (!what.empty()) return;
    const uint64_t a = address(w, in.operands.at(1), l);
    const Mbarrier& b = mbarrier_at(a, w, l, in);
    const uint64_t operand = read(w, in.operands.at(2), l);
    if (parity ? (b.phase & 1) != (operand & 1) : Mbarrier::token_phase(operand) < b.phase) return;
    what = "the mbarrier at shared " + hex(a & kClusterOffsetMask) +
           ((a >> kClusterRankShift) != 0 && (a >> kClusterRankShift) != uint64_t{rank_} + 1
                ? " of the CTA of rank " + std::to_string((a >> kClusterRankShift) - 1)
                : "") +
           ": its phase " + std::to_string(b.phase) + " (waited for with " + (parity ? "parity " + std::to_string(operand) : "the state of phase " + std::to_string(Mbarrier::token_phase(operand))) + ") ";
    const std::string arrivals = b.expected == 1 ? " arrival" : " arrivals";
    what += b.pending ? "misses " + std::to_string(b.pending) + " of its " + std::to_string(b.expected) + arrivals
                      : "has had its " + std::to_string(b.expected) + arrivals;
    if (b.tx > 0) {
      what += (b.pending ? " and " : " but ") + std::to_string(b.tx) +
              " of the transaction bytes expect_tx announced never arrive (copies smaller than announced?)";
    } else if (b.tx < 0) {
      what += (b.pending ? " and " : " but ") + std::to_string(-b.tx) +
              " transaction bytes more than expect_tx announced have arrived (copies larger than announced?)";
    }
  });
  if (what.empty()) return;
  std::string warps = "its warps: " + std::to_string(others.polling) + " polling in loops that write nothing, " + std::to_string(others.at_barrier) +
                      " at barriers, " + std::to_string(others.exited) + " exited";
  if (others.retired) warps += "; " + std::to_string(others.retired) + " CTA" + (others.retired == 1 ? " has" : "s have") + " exited";
  throw InputError(SourceLocation{launch_.file, in.line, 1}, "warp " + std::to_string(w.index) + " of CTA " + id_.str() + " waits forever on " + what +
                                                               "; nothing in its " + (cluster_ ? "cluster" : "CTA") + " can change that (" + warps + ")");
}

namespace {
// A memory poll's state is sampled at every eighth poll: a spin repeats on any subsequence of its
// polls, and loops that read memory strongly while working (their state changes each round) pay
// a comparison of states an eighth as often.
constexpr uint32_t kMemoryPollStride = 8;
}  // namespace

CtaEmulator::Census CtaEmulator::grid_census(const WarpState* except) const {
  Census c;
  c.retired = static_cast<uint32_t>(grid_->retired);
  for (const CtaEmulator* cta : grid_->live) {
    // In a grid not all begun, a CTA whose warps have all exited leaves a slot for the next.
    if (!grid_->closed() && std::ranges::all_of(cta->warps_, [](const WarpState& o) { return o.done; })) {
      c.may_write = true;
      return c;
    }
    // An mbarrier poll loop depends on its CTA (cluster) alone.
    for (const WarpState& o : cta->warps_)
      if (&o != except && !tally(c, o, o.grid_spin.cycling(grid_->effects) || o.spin.cycling(cta->unit_effects()))) return c;
  }
  return c;
}

void CtaEmulator::watch_memory_poll(WarpState& w, const EmuInst& in) {
  if ((!grid_->closed() && !grid_->full()) || ++w.memory_polls % kMemoryPollStride != 0 || !w.poll) return;
  const uint64_t effects = grid_->effects;
  w.grid_spin.poll(effects, [&] { return warp_state(w); });
  if (!w.grid_spin.cycling(effects)) return;
  const Census others = grid_census(&w);
  if (others.may_write) return;
  const EmuInst& at = *w.poll;
  const uint32_t bytes = std::clamp<uint32_t>(at.type.bits / 8, 1, 8);
  std::string what;
  const uint64_t a = w.poll_address;
  if (!at.generic && at.space == MemSpace::kShared) {
    what = "shared " + hex(a);
  } else if (const DeviceMemory::Buffer* buffer = launch_.memory->buffer_at(a, bytes)) {
    uint64_t value = 0;
    std::memcpy(&value, buffer->bytes.data() + (a - buffer->base), bytes);
    what = "byte " + std::to_string(a - buffer->base) + " of buffer '" + buffer->name + "' (its " + std::to_string(bytes) + " bytes hold " +
           std::to_string(value) + (launch_.memory->first_unwritten(a, bytes) ? ", which nothing has written: its init is none" : "") + ")";
  } else {
    what = "address " + hex(a);
  }
  const std::string warps = "the other warps of those still running: " + std::to_string(others.polling) + " polling in loops that write nothing, " +
                            std::to_string(others.at_barrier) + " at barriers, " + std::to_string(others.exited) + " exited";
  const std::string exited = others.retired ? ", " + std::to_string(others.retired) + " of them exited" : "";
  std::string grid = grid_->closed() ? "the grid's " + std::to_string(grid_->ctas) + " CTAs have all begun" + exited + "; " + warps
                                     : "the GPU holds " + std::to_string(grid_->resident) + " of the grid's " + std::to_string(grid_->ctas) +
                                           " CTAs at once; " + std::to_string(grid_->begun) + " have begun" + exited + "; " + warps + "; the " +
                                           std::to_string(grid_->ctas - grid_->begun) +
                                           " not yet begun cannot begin until a resident one exits: a wait across the grid needs every CTA "
                                           "resident at once, which a cooperative launch checks";
  // Under the stack, lanes that left a loop wait for it to end: those that last changed the
  // polled word with an atomic (took a lock, say) may be what the loop waits for.
  auto lanes_behind = [&](const WarpState& o) {
    uint32_t behind = 0;
    if (!launch_.independent_thread_scheduling && !o.done && o.changed_address == w.poll_address)
      for (size_t i = 0; i + 1 < o.stack.size(); ++i)
        if (o.stack[i].pc != o.stack[i].rpc) behind |= o.stack[i].mask & ~o.stack.back().mask & o.changed_lanes;
    return behind;
  };
  auto stack_note = [&]() -> std::string {  // the first such warp is enough
    for (const CtaEmulator* cta : grid_->live)
      for (const WarpState& o : cta->warps_)
        if (const uint32_t behind = lanes_behind(o); behind && o.barrier_wait < 0)
          return "; lanes " + hex(behind) + " of warp " + std::to_string(o.index) + " of CTA " + cta->id_.str() +
                 ", whose atomic last changed that word, wait on its reconvergence stack until the loop its other lanes run ends: a lock "
                 "they hold is never released, the stack's livelock, which reconvergence: independent avoids";
    return "";
  };
  grid += stack_note();
  throw InputError(SourceLocation{launch_.file, at.line, 1},
                   "warp " + std::to_string(w.index) + " of CTA " + id_.str() + " waits forever: its loop (lines " +
                       std::to_string(launch_.program->insts.at(in.operands.at(0).target).line) + "-" + std::to_string(in.line) + ") polls " + what +
                       ", which nothing in the grid can change (" + grid + ")");
}

std::string CtaEmulator::waiting_for_ctas(const WarpState& w) const {
  if (!grid_ || grid_->closed() || !w.poll) return "";
  return "; it polls memory (line " + std::to_string(w.poll->line) + "), and " + std::to_string(grid_->ctas - grid_->begun) + " of the grid's " +
         std::to_string(grid_->ctas) + " CTAs had not begun: a CTA that waits for another through memory needs that one resident at " +
         "the same time, which only a cooperative launch promises (warpsim trace emulates one CTA at a time)";
}

}  // namespace warpsim::ptx
