// The SM's side of thread-block clusters: barrier.cluster arrive and wait, and mbarrier signals
// between a cluster's CTAs (remote arrives, multicast copies' bytes). The cluster barrier spans
// SMs and lives in ClusterBarriers, which also routes the signals; distributed shared memory
// accesses are the LSU's.
#include "common/error.h"
#include "sm/sm.h"

namespace warpsim {

void Sm::require_clusters(const WarpInst& in) const {
  if (spec_.clusters.supported()) return;
  throw InputError(SourceLocation{kernel_->source_file, in.line, 1},
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

bool Sm::signal_remote_mbarrier(const CtaSlot& cta, const WarpInst& in, uint32_t arrivals, uint32_t tx_expected, Cycle at) {
  const uint32_t rank_plus_one = in.mbar.address >> kClusterRankShift;
  if (rank_plus_one == 0 || rank_plus_one == cta.rank + 1) return false;
  require_clusters(in);
  // The arrive crosses the SM-to-SM network, as a distributed-shared-memory access does.
  const uint32_t address = in.mbar.address & ((1u << kClusterRankShift) - 1);
  if (!clusters_.signal(cta.cluster, rank_plus_one - 1, address, arrivals, tx_expected, 0, at + spec_.clusters.dsmem_latency)) {
    throw InputError(SourceLocation{kernel_->source_file, in.line, 1},
                     "'" + in.op->mnemonic + "' on the mbarrier of the cluster's CTA of rank " + std::to_string(rank_plus_one - 1) +
                         ", which is not resident (it exited, or the cluster has fewer CTAs)");
  }
  ++stats_.remote_mbarrier_signals;
  return true;
}

void Sm::mbarrier_signal(uint32_t cta_slot, uint32_t address, uint32_t arrivals, uint32_t tx_expected, uint32_t tx_landed, Cycle at) {
  MbarrierTable& table = ctas_[cta_slot].mbarriers;
  MbarrierTable::Release released;
  std::string error;
  const bool ok = (arrivals == 0 && tx_expected == 0) || table.arrive(address, arrivals, tx_expected, at, released, error);
  if (!ok || (tx_landed && !table.complete_tx(address, tx_landed, at, released, error))) {
    throw InputError(SourceLocation{kernel_->source_file, 0, 1}, "an mbarrier signal from another CTA of the cluster: " + error);
  }
  release_waiters(released);
  engine_.wake(*this, at);
}

void Sm::release_cluster_wait(uint32_t slot, Cycle at) {
  Warp& w = warps_[slot];
  w.held_until = at;
  mark_dirty(slot);
  engine_.wake(*this, at);
}

}  // namespace warpsim
