// The SM's side of thread-block clusters: barrier.cluster arrive and wait, and mbarrier signals
// between a cluster's CTAs (remote arrives, multicast copies' bytes). The cluster barrier spans
// SMs and lives in ClusterBarriers, which also routes the signals; distributed shared memory
// accesses are the LSU's.
#include "common/error.h"
#include "sm/sm.h"

namespace warpsim {

void Sm::require_clusters(const WarpInst& in) const {
  if (spec_.clusters.supported()) return;
  throw InputError(SourceLocation{issuing_kernel_->source_file, in.line, 1},
                   "'" + in.op->mnemonic + "' needs thread-block clusters (compute capability 9.0 or later); " + spec_.name +
                       " has " + std::to_string(spec_.compute_capability / 10) + "." + std::to_string(spec_.compute_capability % 10) +
                       " and its config no clusters: section");
}

void Sm::issue_cluster_barrier(Warp& w, uint32_t slot, const WarpInst& in, Cycle now) {
  require_clusters(in);
  const CtaSlot& cta = ctas_[w.cta_slot];
  // barrier.cluster is .aligned in what nvcc emits (cluster.sync()): the whole warp arrives.
  // A warp with no active lane does not take part, as a predicated-off bar.sync would not.
  if (in.active_mask == 0) return;
  if (in.op->op_class == OpClass::kClusterArrive) {
    // .release: the warp's writes into other CTAs' shared memory are visible first.
    clusters_.arrive(cta.cluster, ++w.cluster_arrivals, std::max(now, w.cluster_writes_done));
    return;
  }
  ++stats_.cluster_barriers;
  // kNever until the phase completes and release_cluster_wait says when.
  w.held_until = clusters_.wait(cta.cluster, w.cluster_arrivals, id_, slot);
  w.held_for = StallReason::kBarrier;
  w.held = true;
}

void Sm::signal_mbarrier(CtaSlot& cta, const WarpInst& in, MbarrierSignal signal, Cycle at) {
  const bool remote = names_other_cta(cta, signal.address);
  const uint32_t rank = (signal.address >> kClusterRankShift) - 1;
  signal.address &= (1u << kClusterRankShift) - 1;
  if (remote) {
    require_clusters(in);
    if (!clusters_.signal(cta.cluster, rank, signal, at)) {
      throw InputError(SourceLocation{issuing_kernel_->source_file, in.line, 1},
                       "'" + in.op->mnemonic + "' on the mbarrier of the cluster's CTA of rank " + std::to_string(rank) +
                           ", which is not resident (it exited, or the cluster has fewer CTAs)");
    }
    ++stats_.remote_mbarrier_signals;
    return;
  }
  MbarrierTable::Release released;
  std::string error;
  if (!cta.mbarriers.signal(signal, at, released, error)) throw InputError(SourceLocation{issuing_kernel_->source_file, in.line, 1}, error);
  release_waiters(released);
}

void Sm::mbarrier_signal(uint32_t cta_slot, const MbarrierSignal& signal, Cycle at) {
  MbarrierTable::Release released;
  std::string error;
  if (!ctas_[cta_slot].mbarriers.signal(signal, at, released, error)) {
    throw InputError(SourceLocation{source_file(ctas_[cta_slot]), 0, 1}, "an mbarrier signal from another CTA of the cluster: " + error);
  }
  release_waiters(released);
  wake_at(at);
}

void Sm::release_cluster_wait(uint32_t slot, Cycle at) {
  Warp& w = warps_[slot];
  w.held_until = at;
  mark_dirty(slot);
  wake_at(at);
}

}  // namespace warpsim
