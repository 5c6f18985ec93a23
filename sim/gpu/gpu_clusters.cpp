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
  // A cluster is taken from the kernel only once some GPC has room for all of it: until then it
  // has not launched, and a running CTA may still cancel it (cluster launch control).
  const auto size = static_cast<uint32_t>(kernel_->info().cluster.count());
  while (pending_.empty() ? gpc_with_room(size) >= 0 && take_cluster() : true) {
    if (!place_cluster(now)) break;  // no GPC has room: wait for a CTA to retire
  }
  dispatching_ = false;
}

int Gpu::gpc_with_room(uint32_t ctas) const {
  const auto& topo = spec_.topology;
  for (uint32_t i = 0; i < topo.gpcs; ++i) {
    const uint32_t g = (next_gpc_ + i) % topo.gpcs, first = topo.first_sm(g);
    uint32_t room = 0;
    for (uint32_t s = first; s < first + topo.sms_in_gpc(g); ++s) room += sms_[s]->room_for(footprint_);
    if (room >= ctas) return static_cast<int>(g);
  }
  return -1;
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
  const auto need = static_cast<uint32_t>(pending_.size());
  const int found = gpc_with_room(need);
  if (found < 0) return false;
  const auto g = static_cast<uint32_t>(found);
  const uint32_t first = topo.first_sm(g), count = topo.sms_in_gpc(g);
  const KernelInfo& info = kernel_->info();
  clusters_.open(footprint_.cluster_key(pending_.front()->id()), need, need * info.warps_per_cta());
  // Spread over the GPC's SMs, the emptiest first, so a cluster's CTAs share SMs only when they
  // must.
  for (auto& cta : pending_) {
    uint32_t best = first;
    for (uint32_t s = first; s < first + count; ++s)
      if (sms_[s]->room_for(footprint_) > sms_[best]->room_for(footprint_)) best = s;
    launch(best, std::move(cta), footprint_, now);
  }
  pending_.clear();
  next_gpc_ = (g + 1) % topo.gpcs;
  return true;
}

}  // namespace warpsim
