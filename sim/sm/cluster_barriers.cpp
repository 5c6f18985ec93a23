#include "sm/cluster_barriers.h"

#include <algorithm>

#include "common/error.h"

namespace warpsim {

void ClusterBarriers::start_kernel(uint32_t barrier_latency, Release release, Signal signal, TensorHold tensor_hold) {
  std::lock_guard lock(mutex_);
  latency_ = barrier_latency;
  release_ = std::move(release);
  signal_ = std::move(signal);
  tensor_hold_ = std::move(tensor_hold);
  clusters_.clear();
}

uint32_t ClusterBarriers::sm_of(uint64_t cluster, uint32_t rank) const {
  std::lock_guard lock(mutex_);
  auto it = clusters_.find(cluster);
  return it == clusters_.end() || rank >= it->second.where.size() ? UINT32_MAX : it->second.where[rank].first;
}

bool ClusterBarriers::hold_tensor(uint64_t cluster, uint32_t rank, Cycle earliest, Cycle interval, Cycle& start) {
  std::lock_guard lock(mutex_);
  const uint32_t sm = sm_of(cluster, rank);
  if (sm == UINT32_MAX || !tensor_hold_) return false;
  start = tensor_hold_(sm, earliest, interval);
  return true;
}

void ClusterBarriers::open(uint64_t cluster, uint32_t ctas, uint32_t warps) {
  std::lock_guard lock(mutex_);
  Cluster& c = clusters_[cluster];
  c = Cluster{};
  c.ctas = ctas;
  c.warps = warps;
}

void ClusterBarriers::cta_retired(uint64_t cluster, uint32_t rank) {
  std::lock_guard lock(mutex_);
  Cluster& c = at_cluster(cluster);
  if (rank < c.where.size()) c.where[rank] = {UINT32_MAX, 0};
  if (--c.ctas == 0) clusters_.erase(cluster);
}

void ClusterBarriers::place(uint64_t cluster, uint32_t rank, uint32_t sm, uint32_t cta_slot) {
  std::lock_guard lock(mutex_);
  Cluster& c = at_cluster(cluster);
  if (c.where.size() <= rank) c.where.resize(rank + 1, {UINT32_MAX, 0});
  c.where[rank] = {sm, cta_slot};
}

bool ClusterBarriers::signal(uint64_t cluster, uint32_t rank, const MbarrierSignal& signal, Cycle at) {
  std::lock_guard lock(mutex_);
  auto it = clusters_.find(cluster);
  if (it == clusters_.end() || rank >= it->second.where.size() || it->second.where[rank].first == UINT32_MAX) return false;
  const auto [sm, slot] = it->second.where[rank];
  signal_(sm, slot, signal, at);
  return true;
}

ClusterBarriers::Cluster& ClusterBarriers::at_cluster(uint64_t cluster) {
  auto it = clusters_.find(cluster);
  if (it == clusters_.end()) throw SimulationError("cluster barrier: cluster " + std::to_string(cluster) + " is not resident");
  return it->second;
}

void ClusterBarriers::arrive(uint64_t cluster, uint32_t phase, Cycle at) {
  std::lock_guard lock(mutex_);
  Cluster& c = at_cluster(cluster);
  if (c.arrived.size() < phase) c.arrived.resize(phase, 0), c.latest.resize(phase, 0);
  ++c.arrived[phase - 1];
  c.latest[phase - 1] = std::max(c.latest[phase - 1], at);
  complete(c, at);
}

void ClusterBarriers::exit(uint64_t cluster, uint32_t arrived, Cycle now) {
  std::lock_guard lock(mutex_);
  Cluster& c = at_cluster(cluster);
  if (arrived == 0) {
    ++c.exited_unarrived;
  } else {
    if (c.exited_after.size() < arrived) c.exited_after.resize(arrived, 0);
    ++c.exited_after[arrived - 1];
  }
  if (!c.arrived.empty()) complete(c, now);  // no phase begun: nothing to complete
}

// Completes every phase whose warps have all arrived or exited, in order, and releases the
// waiters of the completed phases.
void ClusterBarriers::complete(Cluster& c, Cycle now) {
  bool any = false;
  while (c.completed.size() < c.arrived.size()) {
    const size_t k = c.completed.size() + 1;
    uint32_t count = c.arrived[k - 1] + c.exited_unarrived;
    for (size_t a = 1; a <= c.exited_after.size() && a < k; ++a) count += c.exited_after[a - 1];
    if (count < c.warps) break;
    c.completed.push_back(std::max(now, c.latest[k - 1]) + latency_);
    any = true;
  }
  if (!any) return;
  size_t keep = 0;
  for (const Waiter& w : c.waiters) {
    if (w.phase <= c.completed.size()) {
      release_(w.sm, w.warp, c.completed[w.phase - 1]);
    } else {
      c.waiters[keep++] = w;
    }
  }
  c.waiters.resize(keep);
}

Cycle ClusterBarriers::wait(uint64_t cluster, uint32_t phase, uint32_t sm, uint32_t warp) {
  std::lock_guard lock(mutex_);
  Cluster& c = at_cluster(cluster);
  if (phase == 0) return 0;  // nothing arrived at: nothing to wait for
  if (phase <= c.completed.size()) return c.completed[phase - 1];
  c.waiters.push_back(Waiter{sm, warp, phase});
  return kNever;
}

}  // namespace warpsim
