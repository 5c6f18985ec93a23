// The CTA scheduler for clustered kernels (Hopper+): a cluster's CTAs are guaranteed to be
// co-scheduled on one GPC (CUDA-PG, "Thread Block Clusters"), so the scheduler takes a cluster
// whole and waits until some GPC has a free CTA slot for each of its CTAs.
#include "common/error.h"
#include "gpu/gpu.h"

namespace warpsim {

void Gpu::dispatch_clusters(Cycle now) {
  // A CTA with nothing to run retires inside launch_cta and calls back here: the outer loop
  // goes on placing, so the inner call has nothing to do.
  if (dispatching_) return;
  dispatching_ = true;
  while (pending_.empty() ? take_cluster() : true) {
    if (!place_cluster(now)) break;  // no GPC has room: wait for a CTA to retire
  }
  dispatching_ = false;
}

bool Gpu::take_cluster() {
  if (grid_done_) return false;
  const KernelInfo& info = kernel_->info();
  const uint64_t size = info.cluster.count();
  while (pending_.size() < size) {
    auto cta = kernel_->next_cta();
    if (!cta) break;
    pending_.push_back(std::move(cta));
  }
  if (pending_.empty()) {
    grid_done_ = true;
    return false;
  }
  const uint64_t cluster = info.cluster_of(pending_.front()->id());
  for (const auto& cta : pending_) {
    if (pending_.size() != size || info.cluster_of(cta->id()) != cluster) {
      throw InputError(SourceLocation{info.source_file, 0, 0},
                       "kernel '" + info.name + "': CTA " + cta->id().str() + " is not in cluster " +
                           std::to_string(cluster) + " with CTA " + pending_.front()->id().str() + "; the CTAs of a cluster " +
                           info.cluster.str() + " must come one after another (" + std::to_string(size) + " of them)");
    }
  }
  return true;
}

bool Gpu::place_cluster(Cycle now) {
  const auto& topo = spec_.topology;
  const uint32_t need = static_cast<uint32_t>(pending_.size());
  for (uint32_t i = 0; i < topo.gpcs; ++i) {
    const uint32_t g = (next_gpc_ + i) % topo.gpcs;
    const uint32_t first = topo.first_sm(g), count = topo.sms_in_gpc(g);
    uint32_t room = 0;
    for (uint32_t s = first; s < first + count; ++s) room += sms_[s]->free_cta_slots();
    if (room < need) continue;
    const KernelInfo& info = kernel_->info();
    clusters_.open(info.cluster_of(pending_.front()->id()), need, need * info.warps_per_cta());
    // Spread over the GPC's SMs, the emptiest first, so a cluster's CTAs share SMs only when
    // they must.
    for (auto& cta : pending_) {
      uint32_t best = first;
      for (uint32_t s = first; s < first + count; ++s)
        if (sms_[s]->free_cta_slots() > sms_[best]->free_cta_slots()) best = s;
      sms_[best]->launch_cta(std::move(cta), now);
    }
    pending_.clear();
    next_gpc_ = (g + 1) % topo.gpcs;
    return true;
  }
  return false;
}

}  // namespace warpsim
