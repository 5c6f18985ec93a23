// Thread-block clusters, functionally (PTX ISA: "mapa", "getctarank", "barrier.cluster", the
// .shared::cluster state space and the special registers %cluster_*). The CTAs of a cluster are
// emulated side by side and share a ClusterState; an address in another CTA's shared memory uses
// the .shared::cluster encoding of op_info.h (rank + 1 in bits 24 and up).
#include <algorithm>
#include <bit>
#include <string>

#include "common/error.h"
#include "common/format.h"
#include "frontend/ptx/cta_emulator.h"

namespace warpsim::ptx {

uint8_t* CtaEmulator::cluster_shared_at(uint64_t address, uint32_t size, const WarpState& w, uint32_t lane, const EmuInst& in) {
  const uint64_t rank_plus_one = address >> kClusterRankShift, offset = address & kClusterOffsetMask;
  if (rank_plus_one == 0 || rank_plus_one == uint64_t{rank_} + 1) return memory_at(MemSpace::kShared, offset, size, w, lane, in);
  const uint64_t rank = rank_plus_one - 1, ctas = cluster_ ? cluster_->ctas.size() : 1;
  if (rank >= ctas) {
    fault(in, w, lane, "shared::cluster address " + hex(address) + " names the CTA of rank " + std::to_string(rank) + "; the cluster has " +
                           std::to_string(ctas) + " CTA" + (ctas == 1 ? "" : "s"));
  }
  CtaEmulator* target = cluster_->ctas[rank];
  std::vector<uint8_t>& bytes = target ? target->shared_ : cluster_->retired_shared[rank];
  if (offset + size > bytes.size()) {
    fault(in, w, lane, "out-of-bounds shared::cluster access at offset " + hex(offset) + " of the CTA of rank " + std::to_string(rank) + " (it has " +
                           std::to_string(bytes.size()) + " bytes)");
  }
  return bytes.data() + offset;
}

void CtaEmulator::check_remote_shared(const WarpState& w, uint32_t lane, uint64_t address, uint32_t size, bool write, const EmuInst& in) {
  const uint64_t rank_plus_one = address >> kClusterRankShift, offset = address & kClusterOffsetMask;
  CtaEmulator* owner = cluster_ && rank_plus_one && rank_plus_one <= cluster_->ctas.size() ? cluster_->ctas[rank_plus_one - 1] : nullptr;
  if (!owner || owner->shared_words_.empty() || size == 0) return;
  for (uint64_t word = offset / 4; word <= (offset + size - 1) / 4 && word < owner->shared_words_.size(); ++word) {
    WordAccess& a = owner->shared_words_[word];
    if (write) {
      a.write |= WordAccess::kWrittenBit;
    } else if (!(a.write & WordAccess::kWrittenBit)) {
      launch_.findings->add("uninitialized-shared-read", in.line,
                            launch_.file + ":" + std::to_string(in.line) + ": " + thread_name(w, lane) + " reads shared " + hex(word * 4) +
                                " of the cluster's CTA of rank " + std::to_string(rank_plus_one - 1) + ", which no thread has written");
    }
  }
}

MemSpace CtaEmulator::resolve_space(const WarpState& w, const EmuInst& in, uint32_t exec, std::array<uint64_t, 32>& lane_address,
                                    Record& out) {
  MemSpace space = in.space;
  if (in.generic) {
    uint32_t shared_lanes = 0, local_lanes = 0;
    for_lanes(exec, [&](uint32_t l) {
      const uint64_t a = lane_address[l];
      if (a >= kGenericSharedBase && a - kGenericSharedBase < kGenericSharedSize) shared_lanes |= 1u << l;
      if (a >= kGenericLocalBase && a - kGenericLocalBase < kGenericLocalSize) local_lanes |= 1u << l;
    });
    if (local_lanes) {
      if (in.code != EmuOp::kLd && in.code != EmuOp::kSt) {
        fault(in, w, static_cast<uint32_t>(std::countr_zero(local_lanes)), "an atomic on a thread's local memory, which the PTX ISA does not define");
      }
      if (local_lanes != exec) {
        fault(in, w, static_cast<uint32_t>(std::countr_zero(exec & ~local_lanes)),
              "a generic access whose lanes mix local and other addresses (warpsim times one state space per instruction)");
      }
      for_lanes(exec, [&](uint32_t l) { lane_address[l] -= kGenericLocalBase; });
      out.inst.op = &(*in.space_ops)[2];
      return MemSpace::kLocal;
    }
    if (shared_lanes == 0) return MemSpace::kGlobal;
    if (shared_lanes != exec) {
      fault(in, w, static_cast<uint32_t>(std::countr_zero(exec & ~shared_lanes)),
            "a generic access whose lanes mix shared and global addresses (warpsim times one state space per instruction)");
    }
    for_lanes(exec, [&](uint32_t l) { lane_address[l] -= kGenericSharedBase; });
    space = MemSpace::kSharedCluster;
  }
  bool remote = false;
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t r = lane_address[l] >> kClusterRankShift;
    remote = remote || (r != 0 && r != uint64_t{rank_} + 1);
  });
  if (remote) {
    out.inst.op = &(*in.space_ops)[1];
    return space;
  }
  // Every lane in this CTA's own shared memory: an ordinary shared access, banks and checks.
  for_lanes(exec, [&](uint32_t l) { lane_address[l] &= kClusterOffsetMask; });
  out.inst.op = &(*in.space_ops)[0];
  return MemSpace::kShared;
}

void CtaEmulator::cluster_op(WarpState& w, const EmuInst& in, uint32_t exec) {
  const auto& ops = in.operands;
  const int32_t dst = !ops.empty() && ops[0].kind == EmuOperand::Kind::kReg ? ops[0].reg : -1;
  switch (in.code) {
    case EmuOp::kMapa: {
      // mapa[.shared::cluster].{u32,u64} d, a, rank: a's address in the shared memory of the
      // CTA of `rank`. Generic (no space): a and d are generic addresses.
      const bool generic = !in.has("shared::cluster");
      for_lanes(exec, [&](uint32_t l) {
        uint64_t a = read(w, ops.at(1), l);
        if (generic) a -= kGenericSharedBase;
        const uint64_t rank = read(w, ops.at(2), l) & 0xffffffffu;
        uint64_t d = ((rank + 1) << kClusterRankShift) | (a & kClusterOffsetMask);
        if (generic) d += kGenericSharedBase;
        write(w, dst, l, d);
      });
      return;
    }
    case EmuOp::kGetctarank: {
      const bool generic = !in.has("shared::cluster");
      for_lanes(exec, [&](uint32_t l) {
        uint64_t a = read(w, ops.at(1), l);
        if (generic) a -= kGenericSharedBase;
        const uint64_t r = (a >> kClusterRankShift) & 0xff;
        write(w, dst, l, r == 0 ? rank_ : r - 1);
      });
      return;
    }
    case EmuOp::kClusterArrive:
      if (!exec) return;
      ++w.cluster_arrivals;
      if (clocks_.enabled()) {
        // Phases by parity: a warp arrives in phase k + 2 only after every warp has waited for
        // phase k, so two are under way at most.
        const uint32_t slot = w.cluster_arrivals & 1;
        if (cluster_phase_[slot] != w.cluster_arrivals) {
          cluster_phase_[slot] = w.cluster_arrivals;
          std::fill(cluster_clock_[slot].begin(), cluster_clock_[slot].end(), 0);
        }
        clocks_.release(w.index, cluster_clock_[slot]);
      }
      return;
    case EmuOp::kClusterWait:
      // Everything the cluster's threads did before their arrive is visible after the wait.
      if (!exec) return;
      cluster_catch_up(w.cluster_arrivals, in);
      if (clocks_.enabled() && w.cluster_arrivals && cluster_phase_[w.cluster_arrivals & 1] == w.cluster_arrivals) {
        clocks_.acquire(w.index, cluster_clock_[w.cluster_arrivals & 1]);
      }
      return;
    default:
      return;
  }
}

// Runs every warp of every CTA in the cluster (this one included) until it has made `arrivals`
// arrives or finished, queueing what it executed. A warp waiting at a barrier of its CTA or on an
// incomplete mbarrier phase is passed over until another warp completes it, so passes repeat
// until none makes progress. A warp that is mid-batch further up the call stack is left alone.
void CtaEmulator::cluster_catch_up(uint32_t arrivals, const EmuInst& in) {
  if (arrivals == 0) return;
  std::vector<CtaEmulator*> ctas = cluster_ ? cluster_->ctas : std::vector<CtaEmulator*>{this};
  if (cluster_ && ++cluster_->catching_up > 64) {
    --cluster_->catching_up;
    throw SimulationError(launch_.file + ":" + std::to_string(in.line) + ": barrier.cluster waits nest too deeply to emulate");
  }
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (CtaEmulator* cta : ctas) {
      if (!cta) continue;  // retired: all its warps finished
      for (WarpState& other : cta->warps_) {
        while (!other.done && other.cluster_arrivals < arrivals && static_cast<int64_t>(other.index) != cta->filling_warp_ &&
               other.barrier_wait < 0 && !cta->blocked_on_wait(other)) {
          Record r;
          if (!cta->step(other, r)) break;
          if (!cta->untimed(r)) other.queue.push_back(std::move(r));
          progressed = true;
        }
      }
    }
  }
  if (cluster_) --cluster_->catching_up;
}

}  // namespace warpsim::ptx
