#include "frontend/ptx/cta_emulator.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "common/error.h"
#include "common/half.h"
#include "frontend/ptx/turn_taking.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {
CtaEmulator::CtaEmulator(const LaunchContext& launch, Dim3 cta_id, std::shared_ptr<ClusterState> cluster, uint32_t rank,
                         std::shared_ptr<GridState> grid)
    : cluster_(std::move(cluster)), rank_(rank), grid_(std::move(grid)), launch_(launch), id_(cta_id) {
  const uint64_t threads = launch.block.count();
  const uint32_t nwarps = static_cast<uint32_t>((threads + 31) / 32);
  warps_.resize(nwarps);
  streams_.reserve(nwarps);  // Streams point back at this CTA and never move
  for (uint32_t w = 0; w < nwarps; ++w) {
    WarpState& ws = warps_[w];
    ws.index = w;
    ws.regs.reset(launch.program->register_slots.data(), launch.program->register_words);
    uint64_t lanes = std::min<uint64_t>(32, threads - uint64_t{w} * 32);
    uint32_t mask = lanes >= 32 ? 0xffffffffu : static_cast<uint32_t>((1ull << lanes) - 1);
    ws.stack.push_back(StackEntry{0, static_cast<uint32_t>(launch.program->insts.size()), mask});
    ws.live = mask;
    streams_.emplace_back(*this, w);
  }
  shared_.assign(launch.program->static_shared_bytes + launch.dynamic_shared_bytes, 0);
  if (launch.findings && launch.findings->enabled) {
    shared_words_.resize((shared_.size() + 3) / 4);
    clocks_.reset(nwarps);
    read_block_size_ = nwarps;
    for (WarpState& w : warps_) w.clock_row = clocks_.row(w.index);
  }
  checks_global_ = launch.findings && launch.findings->enabled && launch.memory->tracks_writes();
  if (cluster_) cluster_->ctas.at(rank_) = this;
  if (grid_) {
    grid_index_ = grid_->live.size();
    grid_->live.push_back(this);
    ++grid_->begun;
  }
}

CtaEmulator::~CtaEmulator() {
  if (grid_) {
    grid_->live[grid_index_] = grid_->live.back();
    grid_->live[grid_index_]->grid_index_ = grid_index_;
    grid_->live.pop_back();
    ++grid_->retired;
  }
  if (!cluster_) return;
  cluster_->ctas[rank_] = nullptr;
  ++cluster_->retired;
  cluster_->retired_shared[rank_] = std::move(shared_);
}

const WarpInst* CtaEmulator::Stream::next() {
  WarpState& w = cta_.warps_[warp_];
  Record* r = nullptr;
  if (taken_ < filled_) {
    r = &batch_[taken_++];  // emulated earlier than anything in the queue
  } else if (!w.queue.empty()) {
    current_ = std::move(w.queue.front());
    w.queue.pop_front();
    r = &current_;
  } else {
    filled_ = taken_ = 0;
    cta_.filling_warp_ = warp_;
    while (filled_ < kBatch) {
      // Waiting at a barrier, the warp goes on once the other warps have completed its phase.
      // A batch ends there: the timing model asks again once its barrier released the warp.
      if (w.barrier_wait >= 0) {
        if (filled_ > 0) break;
        cta_.wait_at_barrier(w);
      }
      if (!cta_.step(w, batch_[filled_])) break;
      if (!cta_.untimed(batch_[filled_])) ++filled_;
    }
    cta_.filling_warp_ = -1;
    if (filled_ == 0) return nullptr;
    r = &batch_[taken_++];
  }
  r->inst.addr.list = r->addresses.empty() ? nullptr : r->addresses.data();
  if (!r->async_regs.empty()) r->inst.regs = r->async_regs.data();  // the record may have moved since
  return &r->inst;
}

void CtaEmulator::finish_lanes(WarpState& w, uint32_t lanes) {
  for (auto& e : w.stack) e.mask &= ~lanes;
  while (!w.stack.empty() && w.stack.back().mask == 0) w.stack.pop_back();
}

uint32_t CtaEmulator::guard_lanes(const WarpState& w, const EmuInst& in, uint32_t mask) const {
  if (in.guard < 0) return mask;
  uint32_t pred = 0;
  for (uint32_t l = 0; l < 32; ++l)
    if ((mask >> l & 1) && (w.regs.get(in.guard, l) & 1)) pred |= 1u << l;
  return in.guard_negated ? mask & ~pred : pred;
}

void CtaEmulator::begin_record(const EmuInst& in, uint32_t exec, Record& out) const {
  out.inst = WarpInst{};
  out.inst.op = &in.op;
  out.inst.line = in.line;
  out.inst.pc = static_cast<uint32_t>(&in - launch_.program->insts.data());
  out.inst.source_line = in.source_line;
  out.inst.active_mask = exec;
  out.inst.regs = in.timing_regs.data();  // static per instruction: nothing to copy
  out.async_regs.clear();
  out.addresses.clear();
  out.inst.num_dst = static_cast<uint8_t>(in.dsts.size());
  out.inst.num_src = static_cast<uint8_t>(in.srcs.size());
  out.inst.control = in.control;
}

namespace {
// Instructions all participating lanes of a warp must reach together.
bool is_warp_sync(const EmuInst& in) {
  return in.code == EmuOp::kBar || in.code == EmuOp::kShfl || in.code == EmuOp::kVote || in.code == EmuOp::kWmmaLoad ||
         in.code == EmuOp::kWmmaStore || in.code == EmuOp::kWmmaMma || in.code == EmuOp::kMma || in.code == EmuOp::kWgmma;
}
}  // namespace

bool CtaEmulator::step_independent(WarpState& w, Record& out) {
  const auto& insts = launch_.program->insts;
  const uint32_t end = static_cast<uint32_t>(insts.size());
  for (uint32_t l = 0; l < 32; ++l)
    if ((w.live >> l & 1) && w.pcs[l] >= end) w.live &= ~(1u << l);
  if (w.live == 0) {
    w.done = true;
    warp_finished();
    return false;
  }
  // Groups of lanes by PC: the lowest PC first (so that divergent paths meet again where they
  // join, as the convergence barriers compilers place make them). After 64 steps, or once a group
  // has taken a backward branch after an atomic or a volatile/relaxed/acquire load (a spin-wait
  // iteration, where the code hardware runs yields), the warp is handed to the next group after
  // the PC run last (forward progress), which runs until its own next branch. A group at a
  // *.sync instruction waits for every live lane.
  std::array<uint32_t, 32> order{};
  uint32_t n = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(w.live >> l & 1)) continue;
    bool seen = false;
    for (uint32_t k = 0; k < n; ++k) seen |= order[k] == w.pcs[l];
    if (!seen) order[n++] = w.pcs[l];
  }
  std::sort(order.begin(), order.begin() + n);
  // The group handed the warp keeps it while its lanes stay together.
  const uint32_t start = first_group_to_try(
      TurnTaking{w.following, w.run_length, w.turn}, w.live, n, [&](uint32_t k) { return order[k]; },
      [&](uint32_t followed) {
        const uint32_t at = w.pcs[std::countr_zero(followed)];
        for (uint32_t l = 0; l < 32; ++l)
          if ((followed >> l & 1) && w.pcs[l] != at) return n;
        uint32_t k = 0;
        while (order[k] != at) ++k;
        return k;
      });
  uint32_t pc = end, group = 0;
  for (uint32_t i = 0; i < n && pc == end; ++i) {
    uint32_t candidate = order[(start + i) % n], mask = 0;
    for (uint32_t l = 0; l < 32; ++l)
      if ((w.live >> l & 1) && w.pcs[l] == candidate) mask |= 1u << l;
    if (is_warp_sync(insts[candidate]) && mask != w.live) continue;
    pc = candidate;
    group = mask;
  }
  if (pc == end) {
    throw InputError(SourceLocation{launch_.file, insts[order[0]].line, 1},
                     "warp " + std::to_string(w.index) + " of CTA " + id_.str() +
                         " cannot go on under independent thread scheduling: its lanes wait at different *.sync instructions");
  }
  w.turn = pc;
  if (w.following == ~0u) w.following = group;
  const EmuInst& in = insts[pc];
  const uint32_t exec = guard_lanes(w, in, group);
  if (!in.register_only && exec) count_effects(in);
  if (!w.timed.empty()) track_timed(w, in);
  begin_record(in, exec, out);
  if (in.code == EmuOp::kBra) {
    out.inst.active_mask = group;
    for (uint32_t l = 0; l < 32; ++l)
      if (group >> l & 1) w.pcs[l] = (exec >> l & 1) ? in.operands.at(0).target : pc + 1;
    after_branch(w, in, pc, in.operands.at(0).target, exec != 0);
    return true;
  }
  if (in.code == EmuOp::kRet) {
    out.inst.active_mask = group;
    for (uint32_t l = 0; l < 32; ++l)
      if (group >> l & 1) w.pcs[l] = (exec >> l & 1) ? end : pc + 1;
    return true;
  }
  // Everything else runs through the common path on a one-entry stack.
  w.stack.assign(1, StackEntry{pc, end, group});
  execute(w, in, exec, out);
  for (uint32_t l = 0; l < 32; ++l)
    if (group >> l & 1) w.pcs[l] = pc + 1;
  return true;
}

void CtaEmulator::after_branch(WarpState& w, const EmuInst& in, uint32_t pc, uint32_t target, bool taken) {
  // A spin-wait iteration (a taken backward branch after waiting on memory) that leaves lanes
  // elsewhere yields: the next step hands the warp on. Any branch ends a hand-over.
  w.following = 0;
  bool elsewhere = false;
  for (uint32_t l = 0; l < 32; ++l) elsewhere |= (w.live >> l & 1) && w.pcs[l] != target;
  if (taken && target <= pc && w.waited_on_memory) {
    if (elsewhere) w.run_length = 63;
    if (grid_) watch_memory_poll(w, in);
  }
  w.waited_on_memory = false;
}

bool CtaEmulator::step(WarpState& w, Record& out) {
  if (++w.executed > launch_.max_warp_instructions) {
    uint32_t pc = launch_.independent_thread_scheduling ? w.turn : (w.stack.empty() ? 0 : w.stack.back().pc);
    uint32_t line = pc < launch_.program->insts.size() ? launch_.program->insts[pc].line : 0;
    throw InputError(SourceLocation{launch_.file, line, 1},
                     "warp " + std::to_string(w.index) + " of CTA " + id_.str() + " executed more than " +
                         std::to_string(launch_.max_warp_instructions) +
                         " instructions without finishing: a livelock? (lanes spinning on a lock another lane of the same warp "
                         "holds never progress under the reconvergence stack; try reconvergence: independent)" + waiting_for_ctas(w));
  }
  if (launch_.program->sass) return step_sass(w, out);
  if (launch_.independent_thread_scheduling) return step_independent(w, out);
  const auto& insts = launch_.program->insts;
  while (!w.stack.empty() && (w.stack.back().pc == w.stack.back().rpc || w.stack.back().mask == 0)) w.stack.pop_back();
  if (w.stack.empty() || w.stack.back().pc >= insts.size()) {
    w.done = true;
    w.stack.clear();
    warp_finished();
    return false;
  }
  StackEntry& top = w.stack.back();
  const EmuInst& in = insts[top.pc];
  const uint32_t exec = guard_lanes(w, in, top.mask);
  if (!in.register_only && exec) count_effects(in);  // an instruction no lane runs does nothing
  if (!w.timed.empty()) track_timed(w, in);
  begin_record(in, exec, out);
  execute(w, in, exec, out);
  return true;
}

void CtaEmulator::execute(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  try {
    execute_op(w, in, exec, out);
  } catch (const std::out_of_range&) {  // an operand the lowering checks did not demand
    fault(in, w, exec ? static_cast<uint32_t>(std::countr_zero(exec)) : 0, "'" + in.opcode + "' lacks an operand this form reads");
  }
}

void CtaEmulator::execute_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  StackEntry& top = w.stack.back();
  const uint32_t pc = top.pc;
  const auto& ops = in.operands;
  const Type type = in.type;
  auto lanes = [&](auto&& f) { for_lanes(exec, f); };
  auto dst_reg = [&](size_t i = 0) { return ops.at(i).kind == EmuOperand::Kind::kReg ? ops[i].reg : -1; };

  switch (in.code) {
    case EmuOp::kBra: {
      out.inst.active_mask = top.mask;
      uint32_t target = ops.at(0).target;
      uint32_t taken = exec, not_taken = top.mask & ~exec;
      if (w.waited_on_memory) {
        w.waited_on_memory = false;
        if (taken && target <= pc && grid_) watch_memory_poll(w, in);
      }
      if (not_taken == 0) {
        top.pc = target;
      } else if (taken == 0) {
        top.pc = pc + 1;
      } else {
        uint32_t r = in.reconverge;
        top.pc = r;
        w.stack.push_back(StackEntry{pc + 1, r, not_taken});
        w.stack.push_back(StackEntry{target, r, taken});
      }
      return;
    }
    case EmuOp::kRet:
      out.inst.active_mask = top.mask;
      top.pc = pc + 1;
      finish_lanes(w, exec);
      return;
    case EmuOp::kBar: {
      // Every live thread of the warp must take part: a bar.sync under divergence (or a guard)
      // that leaves some out is a bug. One the whole warp skips is simply not executed.
      uint32_t live = 0;
      for (const auto& e : w.stack) live |= e.mask;
      if (exec != 0 && exec != live && launch_.findings && launch_.findings->enabled) {
        launch_.findings->add("divergent-barrier", in.line,
                              launch_.file + ":" + std::to_string(in.line) + ": " + in.opcode + " reached by " +
                                  std::to_string(std::popcount(exec)) + " of the " + std::to_string(std::popcount(live)) +
                                  " live threads of warp " + std::to_string(w.index) + " in CTA " + id_.str());
      }
      top.pc = pc + 1;
      barrier_op(w, in, exec, out);
      return;
    }
    default:
      top.pc = pc + 1;
  }

  switch (in.code) {
    case EmuOp::kMembar:
      return;
    case EmuOp::kSass:
      sass_alu(w, in, exec);
      return;
    case EmuOp::kSassVote:
      sass_vote(w, in, exec);
      return;
    case EmuOp::kSassFlow:
      fault(in, w, 0, "internal: SASS control flow outside the convergence model");
    case EmuOp::kMapa:
    case EmuOp::kGetctarank:
    case EmuOp::kClusterArrive:
    case EmuOp::kClusterWait:
      cluster_op(w, in, exec);
      return;
    case EmuOp::kCvta:
      // Shared and local memory's generic addresses sit in windows of their own
      // (kGenericSharedBase, kGenericLocalBase); global generic addresses are the addresses themselves.
      if (in.has("shared") || in.has("shared::cta") || in.has("shared::cluster") || in.has("local")) {
        const bool to = in.has("to");
        const uint64_t base = in.has("local") ? kGenericLocalBase : kGenericSharedBase;
        lanes([&](uint32_t l) {
          const uint64_t v = read(w, ops.at(1), l);
          write(w, dst_reg(), l, to ? v - base : v + base);
        });
        return;
      }
      [[fallthrough]];
    case EmuOp::kMov:
      if (ops.at(0).kind == EmuOperand::Kind::kVector && ops[1].kind == EmuOperand::Kind::kVector) {
        move_b128(w, in, exec);  // a .b128 register from or to its pieces
      } else if (ops.at(1).kind == EmuOperand::Kind::kVector) {  // mov.b32 %r, {%lo, %hi}: pack
        const auto& v = ops[1];
        const uint32_t part = type.bits / static_cast<uint32_t>(v.regs.size());
        lanes([&](uint32_t l) {
          uint64_t packed = 0;
          for (size_t k = 0; k < v.regs.size(); ++k) {
            uint64_t x = element(w, v, k, l);
            packed |= mask_bits(x, part) << (part * k);
          }
          write(w, dst_reg(), l, packed);
        });
      } else if (ops[0].kind == EmuOperand::Kind::kVector) {  // mov.b32 {%lo, %hi}, %r: unpack
        const auto& v = ops[0];
        const uint32_t part = type.bits / static_cast<uint32_t>(v.regs.size());
        lanes([&](uint32_t l) {
          uint64_t x = read(w, ops[1], l);
          for (size_t k = 0; k < v.regs.size(); ++k) write(w, v.regs[k], l, mask_bits(x >> (part * k), part));
        });
      } else {
        lanes([&](uint32_t l) { write(w, dst_reg(), l, read(w, ops.at(1), l)); });
      }
      return;
    case EmuOp::kSetp: {
      int32_t p = -1, q = -1;
      if (ops[0].kind == EmuOperand::Kind::kVector) {
        p = ops[0].regs.at(0);
        q = ops[0].regs.size() > 1 ? ops[0].regs[1] : -1;
      } else {
        p = ops[0].reg;
      }
      const bool flush = in.ftz && type.kind == 'f' && (type.bits == 32 || type.bits == 16);
      lanes([&](uint32_t l) {
        bool t, nt;
        if (type.packed == 2) {  // f16x2/bf16x2: p is the low halves' comparison, q the high halves'
          const uint32_t both = compare_halves(in.cmp, type, read(w, ops[1], l), read(w, ops[2], l), flush);
          t = both & 1, nt = both >> 1;
        } else {
          t = compare(in.cmp, type, read_flushed(w, ops[1], l, flush, type.bits), read_flushed(w, ops[2], l, flush, type.bits));
          nt = !t;
        }
        if (!in.boolop.empty() && ops.size() > 3) {
          const bool c = read(w, ops[3], l) & 1;
          t = combine_predicate(in.boolop, t, c), nt = combine_predicate(in.boolop, nt, c);
        }
        write(w, p, l, t);
        write(w, q, l, nt);
      });
      return;
    }
    case EmuOp::kSelp:
      lanes([&](uint32_t l) { write(w, dst_reg(), l, (read(w, ops[3], l) & 1) ? read(w, ops[1], l) : read(w, ops[2], l)); });
      return;
    case EmuOp::kCvt:
      convert(w, in, exec);
      return;
    case EmuOp::kLd:
    case EmuOp::kSt:
      if (in.op.mbarrier == MbarrierOp::kCompleteTx) return async_store(w, in, exec, out);
      if (in.code == EmuOp::kLd && in.strong && exec) note_poll(w, in, address(w, ops.at(1), static_cast<uint32_t>(std::countr_zero(exec))));
      load_store(w, in, exec, out);
      return;
    case EmuOp::kAtom:
    case EmuOp::kRed:
      if (in.op.mbarrier == MbarrierOp::kCompleteTx) return async_store(w, in, exec, out);
      atomic(w, in, exec, out);
      return;
    case EmuOp::kTexture:
      texture_op(w, in, exec, out);
      return;
    case EmuOp::kLaunchControl:
      launch_control(w, in, exec, out);
      return;
    case EmuOp::kShfl:
    case EmuOp::kVote:
    case EmuOp::kActivemask:
    case EmuOp::kElect:
    case EmuOp::kCreatepolicy:
    case EmuOp::kRedux:
      warp_op(w, in, exec);
      return;
    case EmuOp::kSet: {  // set.cmp.dtype.stype d, a, b[, c]
      const Type src = in.source_type;
      const bool flush = in.ftz && src.kind == 'f' && (src.bits == 32 || src.bits == 16);
      // True is 1.0 in a float destination (per half when packed), all ones in an integer one:
      // 16 of them per half for a packed source (PTX ISA, "Half Precision Comparison Instructions").
      const uint64_t yes = type.kind == 'h' ? 0x3f80 : type.kind == 'f' ? (type.bits == 16 ? 0x3c00 : std::bit_cast<uint32_t>(1.0f))
                           : src.packed == 2 || type.bits == 16 ? 0xffff : 0xffffffffull;
      lanes([&](uint32_t l) {
        const bool boolop = !in.boolop.empty() && ops.size() > 3, c = boolop && (read(w, ops[3], l) & 1);
        auto value = [&](bool t) { return (boolop ? combine_predicate(in.boolop, t, c) : t) ? yes : 0; };
        if (src.packed == 2) {
          const uint32_t both = compare_halves(in.cmp, src, read(w, ops[1], l), read(w, ops[2], l), flush);
          write(w, dst_reg(), l, value(both & 1) | value(both >> 1) << 16);
        } else {
          write(w, dst_reg(), l, value(compare(in.cmp, src, read_flushed(w, ops[1], l, flush, src.bits), read_flushed(w, ops[2], l, flush, src.bits))));
        }
      });
      return;
    }
    case EmuOp::kPrmt:
      permute_bytes(w, in, exec);
      return;
    case EmuOp::kSimdVideo:
      simd_video(w, in, exec);
      return;
    case EmuOp::kWarpSync:
      // __syncwarp: the lanes' accesses before it are ordered before those after it. Advancing
      // the warp's own clock marks the point for the race checker (check_shared).
      if (clocks_.enabled()) clocks_.advance(w.index);
      return;
    case EmuOp::kNop:
      // nanosleep t: functionally nothing; the timing model suspends the warp for t ns (at most
      // 1 ms, the PTX ISA's bound), the first active lane's t for the warp.
      if (in.op.sleep && exec) out.inst.sleep_ns = static_cast<uint32_t>(std::min<uint64_t>(read(w, ops.at(0), std::countr_zero(exec)) & 0xffffffff, 1'000'000));
      return;
    case EmuOp::kCpAsyncCommit:
    case EmuOp::kCpAsyncWait:
      async_copy_group(w, in, out);
      return;
    case EmuOp::kMbarrier:
      mbarrier_op(w, in, exec, out);
      return;
    case EmuOp::kMbarrierPendingCount:
      mbarrier_pending_count(w, in, exec);
      return;
    case EmuOp::kBulkCopy:
      bulk_copy(w, in, exec, out);
      return;
    case EmuOp::kCpAsync: {
      // cp.async.{ca,cg}.shared.global [dst], [src], cp-size[, src-size]: done at once, which is
      // one valid order for an asynchronous copy (commit/wait groups then have nothing to wait for).
      const EmuOperand& dst = ops.at(0);
      const EmuOperand& src = ops.at(1);
      lanes([&](uint32_t l) {
        uint32_t size = static_cast<uint32_t>(read(w, ops.at(2), l));
        uint32_t from = ops.size() > 3 ? static_cast<uint32_t>(read(w, ops[3], l)) : size;  // bytes read; the rest zero-filled
        uint64_t s_addr = address(w, src, l), d_addr = address(w, dst, l);
        out.addresses.push_back(s_addr);
        uint8_t* d = memory_at(MemSpace::kShared, d_addr, size, w, l, in);
        check_shared(w, l, d_addr, size, true, false, in);
        std::memset(d, 0, size);
        if (from) std::memcpy(d, memory_at(MemSpace::kGlobal, s_addr, std::min(from, size), w, l, in), std::min(from, size));
        if (from && checks_global_) check_global(w, l, s_addr, std::min(from, size), true, false, in);
      });
      async_copy_group(w, in, out);
      return;
    }
    case EmuOp::kWmmaLoad:
    case EmuOp::kWmmaStore:
    case EmuOp::kWmmaMma:
    case EmuOp::kLdmatrix:
    case EmuOp::kStmatrix:
    case EmuOp::kMovmatrix:
    case EmuOp::kMma:
      matrix_op(w, in, exec, out);
      return;
    case EmuOp::kWgmma:
      wgmma(w, in, exec);
      return;
    case EmuOp::kTcgen05:
      tcgen05_op(w, in, exec, out);
      return;
    case EmuOp::kMatch:
      warp_op(w, in, exec);
      return;
    case EmuOp::kIsspacep:
    case EmuOp::kAlloca:
    case EmuOp::kStackSave:
    case EmuOp::kStackRestore:
    case EmuOp::kTrap:
    case EmuOp::kPrintf:
    case EmuOp::kAssertFail:
    case EmuOp::kMalloc:
    case EmuOp::kFree:
    case EmuOp::kBadIndirectCall:
    case EmuOp::kSassRuntimeCall:
      runtime_op(w, in, exec);
      return;
    default:
      break;
  }

  arithmetic(w, in, exec);
}

// The copy itself is done at once (a valid order for an asynchronous copy); what is asynchronous
// is its timing. Each cp.async becomes a global read writing a pseudo register, and a wait_group
// reads the pseudo registers of every group it waits for, so the timing model holds the warp
// there until those reads have returned, as the hardware holds it until the copies have landed.
// cp.async.mbarrier.arrive reads those of every copy so far, which stay in their groups.
void CtaEmulator::async_copy_group(WarpState& w, const EmuInst& in, Record& out) {
  auto commit = [&] {
    w.async_groups.push_back(std::move(w.async_open));
    w.async_open.clear();
  };
  auto add = [&](const std::vector<RegId>& group) {
    for (RegId r : group)
      if (std::find(out.async_regs.begin(), out.async_regs.end(), r) == out.async_regs.end()) out.async_regs.push_back(r);
  };
  if (in.code == EmuOp::kCpAsyncCommit) return commit();
  if (in.code == EmuOp::kMbarrier) {  // cp.async.mbarrier.arrive: every copy so far, left in its group
    for (const auto& group : w.async_groups) add(group);
    add(w.async_open);
    if (out.async_regs.empty()) return;
    out.inst.num_dst = 0;
  } else if (in.code == EmuOp::kCpAsync) {
    const auto reg = static_cast<RegId>(launch_.program->async_copy_reg_base + w.async_next++ % Program::kAsyncCopyRegs);
    w.async_open.push_back(reg);
    out.async_regs.assign(1, reg);
    out.inst.num_dst = 1;
  } else {  // wait_group N: all but the newest N committed groups; wait_all: every copy
    if (in.wait_groups < 0) commit();
    const size_t keep = in.wait_groups < 0 ? 0 : static_cast<size_t>(in.wait_groups);
    for (; w.async_groups.size() > keep; w.async_groups.pop_front()) add(w.async_groups.front());
    if (out.async_regs.empty()) return;  // nothing in flight: the instruction keeps its static registers
    out.inst.num_dst = 0;
  }
  // The pseudo registers, then the instruction's own (dsts then srcs; cp.async and the waits write none).
  out.async_regs.insert(out.async_regs.end(), in.timing_regs.begin(), in.timing_regs.end());
  out.inst.num_src = static_cast<uint8_t>(out.async_regs.size() - out.inst.num_dst);
  out.inst.regs = out.async_regs.data();
}

}  // namespace warpsim::ptx
