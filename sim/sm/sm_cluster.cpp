// The SM's side of thread-block clusters: barrier.cluster arrive and wait. The barrier itself
// spans SMs and lives in ClusterBarriers; distributed shared memory accesses are the LSU's.
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
    clusters_.arrive(cta.cluster, ++w.cluster_arrivals, now);
    return;
  }
  ++stats_.cluster_barriers;
  // kNever until the phase completes and release_cluster_wait says when.
  w.cluster_release_at = clusters_.wait(cta.cluster, w.cluster_arrivals, id_, slot);
  w.in_cluster_wait = true;
}

void Sm::release_cluster_wait(uint32_t slot, Cycle at) {
  Warp& w = warps_[slot];
  w.cluster_release_at = at;
  mark_dirty(slot);
  engine_.wake(*this, at);
}

}  // namespace warpsim
