#pragma once
// The CTAs of one PTX launch, shared by the kernel source that hands them out and the CTAs that
// run: which CTA launches next, which a running CTA has cancelled, and which are live (for the
// stuck-wait watch, stuck_waits.cpp).
//
// Launch order is the order the GPU's CTA scheduler takes CTAs in: clusters x fastest over the
// grid of clusters, a cluster's CTAs one after another in rank order (a kernel without clusters
// is one of 1 x 1 x 1 CTAs each). Cluster launch control (Blackwell's
// clusterlaunchcontrol.try_cancel) cancels the next cluster in that order that has not been
// handed to the GPU yet; the CTA scheduler then never sees it.
#include <cstdint>
#include <optional>
#include <vector>

#include "common/dim3.h"

namespace warpsim::ptx {

class CtaEmulator;

struct GridState {
  GridState(const Dim3& grid_dims, const Dim3& cluster_dims) : grid(grid_dims), cluster(cluster_dims), ctas(grid_dims.count()) {}

  Dim3 grid, cluster;
  uint64_t ctas = 0;                // in the grid
  uint64_t next = 0;                // launch-order index of the next CTA to hand out or cancel
  uint64_t begun = 0, retired = 0;  // CTAs created so far, and destroyed
  std::vector<Dim3> cancelled;      // by clusterlaunchcontrol.try_cancel, in the order cancelled
  std::vector<CtaEmulator*> live;   // begun and not retired, in no particular order
  uint64_t effects = 0;             // instructions executed that change what other warps of the grid may read
  uint64_t resident = 0;            // CTAs the GPU holds at once (0: not known)

  // Once every CTA of the grid has begun or been cancelled, nothing outside the live ones writes
  // the memory they read.
  bool closed() const { return begun + cancelled.size() == ctas; }
  // Every slot taken: no further CTA begins until a live one exits.
  bool full() const { return resident != 0 && live.size() >= resident; }

  // The CTA at launch-order index i.
  Dim3 cta_at(uint64_t i) const {
    const uint64_t size = cluster.count(), c = i / size, rank = i % size;
    const Dim3 clusters{grid.x / cluster.x, grid.y / cluster.y, grid.z / cluster.z};
    const Dim3 at = unlinear(c, clusters), in = unlinear(rank, cluster);
    return Dim3{at.x * cluster.x + in.x, at.y * cluster.y + in.y, at.z * cluster.z + in.z};
  }

  // try_cancel: the first CTA of the next cluster not yet handed out, which will now never run;
  // nothing when every cluster has been. (The CTA scheduler takes a cluster's CTAs together, so
  // `next` is at a cluster's start whenever a CTA runs; were it not, the request fails, which the
  // PTX ISA allows any request to do.)
  std::optional<Dim3> cancel_next_cluster() {
    const uint64_t size = cluster.count();
    if (next >= ctas || next % size != 0) return std::nullopt;
    const Dim3 first = cta_at(next);
    for (uint64_t k = 0; k < size; ++k) cancelled.push_back(cta_at(next + k));
    next += size;
    return first;
  }

 private:
  static Dim3 unlinear(uint64_t i, const Dim3& extent) {
    return Dim3{static_cast<uint32_t>(i % extent.x), static_cast<uint32_t>((i / extent.x) % extent.y),
                static_cast<uint32_t>(i / (uint64_t{extent.x} * extent.y))};
  }
};

}  // namespace warpsim::ptx
