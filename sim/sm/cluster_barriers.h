#pragma once
// The barriers of resident thread-block clusters (PTX barrier.cluster.arrive / .wait), shared by
// every SM: a cluster's CTAs sit on different SMs of one GPC, so no single SM can see its
// barrier. Each warp's k-th arrive counts towards phase k; a warp that exits counts as arrived
// for every phase it had not yet reached. Phase k completes when all the cluster's warps have
// arrived; its waiters are released barrier_latency cycles later (an assumed trip across the
// SM-to-SM network, configs' clusters.barrier_latency).
// It also knows where each resident cluster CTA sits, so that an mbarrier signal from one CTA
// (a remote arrive, a multicast copy's bytes) reaches the barrier table of another on its SM.
//
// A kernel without clusters runs each CTA as a cluster of one (on GPUs that have clusters), and
// its SMs may tick on several host threads (gpu/sm_batch.h): each call takes a lock. Their
// clusters are all different, so the order in which threads take it changes nothing.
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "engine/cycle.h"
#include "sm/mbarrier_table.h"

namespace warpsim {

class ClusterBarriers {
 public:
  // Wakes a waiting warp: (sm, warp slot, cycle it may continue).
  using Release = std::function<void(uint32_t sm, uint32_t warp, Cycle at)>;

  // Delivers an mbarrier signal to a CTA: (sm, CTA slot, the signal with the barrier's address in
  // that CTA, cycle it counts at).
  using Signal = std::function<void(uint32_t sm, uint32_t cta_slot, const MbarrierSignal& signal, Cycle at)>;

  // Holds an SM's tensor cores for a CTA pair's MMA: (sm, earliest start, cycles) -> the start
  // (when they are free, at or after `earliest`).
  using TensorHold = std::function<Cycle(uint32_t sm, Cycle earliest, Cycle interval)>;

  void start_kernel(uint32_t barrier_latency, Release release, Signal signal, TensorHold tensor_hold = nullptr);
  // The cluster's CTA of `rank` now sits in `cta_slot` of SM `sm`.
  void place(uint64_t cluster, uint32_t rank, uint32_t sm, uint32_t cta_slot);
  // Sends an mbarrier signal to the cluster's CTA of `rank`; false when it is not resident (it
  // exited, or the cluster has no such rank).
  bool signal(uint64_t cluster, uint32_t rank, const MbarrierSignal& signal, Cycle at);
  // The SM holding the cluster's CTA of `rank`, or UINT32_MAX when it is not resident.
  uint32_t sm_of(uint64_t cluster, uint32_t rank) const;
  // Holds the tensor cores of that CTA's SM for `interval` cycles from `earliest` or later, and
  // returns the start; false when the CTA is not resident.
  bool hold_tensor(uint64_t cluster, uint32_t rank, Cycle earliest, Cycle interval, Cycle& start);
  // A cluster's `ctas` CTAs were placed: `warps` in all.
  void open(uint64_t cluster, uint32_t ctas, uint32_t warps);
  // One of its CTAs retired; the last one closes the cluster.
  void cta_retired(uint64_t cluster, uint32_t rank);
  // A warp's `phase`-th arrive (1-based), counting at cycle `at` (at or after now: an arrive
  // with release semantics counts once the warp's remote writes have landed).
  void arrive(uint64_t cluster, uint32_t phase, Cycle at);
  // A warp exited after `arrived` arrives.
  void exit(uint64_t cluster, uint32_t arrived, Cycle now);
  // A warp waits for `phase`: returns the cycle it may continue, or kNever after recording the
  // waiter, to be released through the callback.
  Cycle wait(uint64_t cluster, uint32_t phase, uint32_t sm, uint32_t warp);
  uint32_t open_clusters() const {
    std::lock_guard lock(mutex_);
    return static_cast<uint32_t>(clusters_.size());
  }

 private:
  struct Waiter {
    uint32_t sm, warp, phase;
  };
  struct Cluster {
    uint32_t ctas = 0, warps = 0;
    std::vector<uint32_t> arrived;         // [k - 1]: warps that made their k-th arrive
    std::vector<Cycle> latest;             // [k - 1]: the latest cycle one of them counts at
    uint32_t exited_unarrived = 0;         // warps that exited before any arrive (most kernels' every warp)
    std::vector<uint32_t> exited_after;    // [a - 1]: warps that exited after a >= 1 arrives
    std::vector<Cycle> completed;          // [k - 1]: when phase k's waiters go
    std::vector<Waiter> waiters;
    std::vector<std::pair<uint32_t, uint32_t>> where;  // [rank]: (sm, CTA slot), or (UINT32_MAX, 0) once retired
  };
  Cluster& at_cluster(uint64_t cluster);
  void complete(Cluster& c, Cycle now);

  uint32_t latency_ = 0;
  Release release_;
  Signal signal_;
  TensorHold tensor_hold_;
  std::unordered_map<uint64_t, Cluster> clusters_;
  // Recursive: the callbacks run under it, and nothing stops one from asking where a CTA sits.
  mutable std::recursive_mutex mutex_;
};

}  // namespace warpsim
