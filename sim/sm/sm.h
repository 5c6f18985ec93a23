#pragma once
// One streaming multiprocessor: resident CTAs and warps, four sub-partitions each issuing at most
// one instruction per cycle from its warps, their math pipes, and the load/store unit.
//
// A tick is: account the cycles slept since the last tick → take memory responses → for each
// sub-partition, classify every warp (eligible, or the stall reason it is in) and issue one.
// When no warp can issue next cycle the SM sleeps until the earliest cycle anything can change
// (a dependency resolving, a pipe freeing) or until a memory response wakes it.
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include "config/gpu_spec.h"
#include "engine/component.h"
#include "engine/engine.h"
#include "frontend/kernel_source.h"
#include "mem/memory_system.h"
#include "observe/warp_observer.h"
#include "sm/cluster_barriers.h"
#include "sm/cta_footprint.h"
#include "sm/load_store_unit.h"
#include "sm/mbarrier_table.h"
#include "sm/sm_stats.h"
#include "sm/warp.h"
#include "sm/warp_scheduler.h"

namespace warpsim {

class Sm : public Component, public MemResponder, private LoadStoreClient {
 public:
  // A CTA that finished and released its resources.
  struct CtaEnd {
    uint32_t sm = 0;
    uint32_t kernel = 0;  // CtaFootprint::kernel_index
    Cycle launched = 0, now = 0;
    uint64_t warp_instructions = 0;  // issued by its warps
  };
  using CtaDone = std::function<void(const CtaEnd&)>;

  Sm(uint32_t id, const GpuSpec& spec, Engine& engine, MemorySystem& memory, StatRegistry& stats, ClusterBarriers& clusters,
     CtaDone on_cta_done);

  // A kernel boundary on an idle SM: L1 is invalidated and the unified array split into
  // `l1_bytes` of L1 and `shared_bytes` of shared memory (the carve-out).
  void start_kernel(uint32_t l1_bytes, uint32_t shared_bytes);
  // How many more CTAs like `f` fit beside those resident (sm/cta_footprint.h); an idle SM
  // counts the shared memory the kernel's own carve-out gives it.
  uint32_t room_for(const CtaFootprint& f) const;
  bool fits(const CtaFootprint& f) const { return room_for(f) > 0; }
  // The CTA holds its room from `now`; its warps take part from `start` (>= now) on.
  void launch_cta(std::unique_ptr<CtaWork> cta, const CtaFootprint& f, Cycle now, Cycle start);
  // The first cycle a CTA launched now would take part in: the next one during this SM's tick.
  Cycle first_cycle_of_launch(Cycle now) const { return in_tick_ || finishing_ ? now + 1 : now; }
  bool idle() const { return resident_ctas_ == 0; }

  void deliver(const MemResponse& response, Cycle arrival) override;
  // A tick in two parts. The first touches only this SM's state (so SMs may run it on several
  // host threads at once, gpu/sm_batch.h) and holds what the tick does to anything shared: the
  // requests it sends to memory, the CTAs that finished (whose completion launches the next),
  // wake-ups it asked for. The second applies those, in the order they happened, and returns the
  // cycle to tick next. tick() is both.
  Cycle tick_held(Cycle now);
  Cycle finish_tick(Cycle now, Cycle next);
  Cycle tick(Cycle now) override { return finish_tick(now, tick_held(now)); }
  std::string describe_state() const override;

  uint32_t id() const { return id_; }
  // Reports every warp's states to `o` (nullptr: nobody watches). Set before a kernel starts.
  void set_observer(WarpObserver* o) { observer_ = o; }
  uint64_t l1_bytes() const { return lsu_.l1_bytes(); }
  // The cluster barrier `warp` waited on completed: it may continue from cycle `at`.
  void release_cluster_wait(uint32_t warp, Cycle at);
  // Another CTA of the cluster signalled an mbarrier of this SM's CTA in `cta_slot`: arrivals and
  // transaction bytes counting at cycle `at` (sm_cluster.cpp).
  void mbarrier_signal(uint32_t cta_slot, const MbarrierSignal& signal, Cycle at);
  // A CTA pair's MMA issued on another SM computes this SM's CTA's half here: holds all the
  // tensor pipes for `interval` from `earliest` or when they are free; returns the start.
  Cycle hold_tensor_for_peer(Cycle earliest, Cycle interval);

 private:
  struct Verdict {
    StallReason reason;  // kSelected means eligible
    Cycle until;         // when a stalled warp may become eligible (kNever: on a message)
  };
  struct SubPartition {
    uint32_t index = 0;  // owns warp slots index, index + n, index + 2n, ...
    std::array<Cycle, kNumPipes> pipe_free{};
    uint32_t tensor_carry = 0;  // fraction of a cycle (of 2^16) the tensor pipe owes from earlier MMAs
    // Nothing to look at before `next_look` unless an event marked one of its warps dirty.
    bool needs_scan = true;
    Cycle next_look = 0;
    // Per warp slot it owns (slot index + i x n at i): the first cycle its warp needs a look
    // (kNever when no warp is there), so the scan reads one dense array, not each warp's state
    // (refresh_look keeps it; docs/performance.md).
    std::vector<Cycle> look_at;
    std::unique_ptr<WarpScheduler> scheduler;
  };
  struct CtaSlot {
    std::unique_ptr<CtaWork> work;
    CtaFootprint footprint;  // its kernel and what it holds of the SM
    uint64_t warp_instructions = 0;
    std::vector<uint32_t> warps;
    uint32_t live = 0;     // warps that have not exited
    // The CTA's 16 barriers (PTX bar/barrier): warps arrived in the phase under way, and the
    // warps it expects (0: every warp that has not exited).
    struct Barrier {
      uint32_t arrived = 0, expected = 0;
    };
    std::array<Barrier, 16> barriers{};
    uint32_t resident = 0; // warps not yet retired (exited warps may still drain)
    MbarrierTable mbarriers;
    uint64_t cluster = 0;  // KernelInfo::cluster_of its id (a CTA of a kernel without clusters is one of its own)
    uint32_t rank = 0;     // in the cluster
    Cycle launched = 0;
  };
  struct Response {
    Cycle arrival;
    uint64_t sequence;
    MemResponse response;
    bool operator>(const Response& o) const { return arrival != o.arrival ? arrival > o.arrival : sequence > o.sequence; }
  };

  void credit_population(Cycle now);
  void enter_population(Warp& w, StallReason r);
  void leave_population(Warp& w);
  void take_responses(Cycle now);
  bool issue_stage(SubPartition& sp, Cycle now, Cycle& next);
  Verdict classify(SubPartition& sp, Warp& w, Cycle now);
  std::optional<Verdict> sass_dependences(Warp& w, Cycle now);  // nullopt: ready to issue
  void apply_control(Warp& w, const WarpInst& in, Cycle now);
  void issue(SubPartition& sp, uint32_t slot, Cycle now);
  void issue_memory(Warp& w, uint32_t slot, const WarpInst& in, Cycle now);
  void issue_tensor(SubPartition& sp, Warp& w, const WarpInst& in, Cycle now);
  void issue_whole_sm_mma(Warp& w, const WarpInst& in, uint64_t flops_per_clk, Cycle now);  // sm_tensor.cpp
  void issue_tensor_copy(Warp& w, const WarpInst& in, Cycle now);
  Cycle occupy_all_tensor_pipes(Cycle now, Cycle interval);
  Cycle tensor_pipes_free(Cycle now) const;             // when every sub-partition's tensor pipe is free, at or after now
  void hold_tensor_pipes(Cycle start, Cycle interval);  // all of them, from start
  void issue_mbarrier(Warp& w, uint32_t slot, const WarpInst& in, Cycle now);
  void issue_cluster_barrier(Warp& w, uint32_t slot, const WarpInst& in, Cycle now);  // sm_cluster.cpp
  void require_clusters(const WarpInst& in) const;
  void require_hopper(const WarpInst& in) const;  // mbarrier transactions and bulk copies
  void release_waiters(const MbarrierTable::Release& released);
  void count_instruction(Warp& w, const WarpInst& in);
  void set_current(Warp& w, const WarpInst* in);  // also resets what was cached about the old one
  void advance(Warp& w, uint32_t slot, Cycle now);
  void exit_warp(Warp& w, uint32_t slot, Cycle now);
  void maybe_retire(Warp& w, uint32_t slot, Cycle now);
  void issue_barrier(Warp& w, const WarpInst& in, Cycle now);  // sm_barriers.cpp
  void check_barrier(CtaSlot& cta, uint32_t id, Cycle now);  // releases its waiting warps if the phase is complete
  void mark_dirty(uint32_t slot);
  // Recomputes the slot's look_at entry from its warp: not before first_cycle; a warp classified
  // as stalled (not dirty) not before its stall ends.
  void refresh_look(uint32_t slot) {
    const Warp& w = warps_[slot];
    const auto n = static_cast<uint32_t>(subs_.size());
    subs_[slot % n].look_at[slot / n] = !w.resident ? kNever : w.dirty ? w.first_cycle : std::max(w.first_cycle, w.until);
  }
  void wake_at(Cycle at);  // the engine, or, during this SM's own tick, its return value
  void load_done(uint32_t warp, std::span<const RegId> dsts, Cycle ready) override;
  void store_acked(uint32_t warp) override;
  void bulk_copy_done(uint32_t warp, uint32_t mbarrier, uint32_t bytes, uint16_t multicast, Cycle ready) override;
  // Applies `signal` to the mbarrier its address names: the CTA's own, or, with a cluster rank in
  // the address, another CTA's of the cluster (sm_cluster.cpp). It counts at `at`: callers add
  // the network's latency where the signal crosses it.
  void signal_mbarrier(CtaSlot& cta, const WarpInst& in, MbarrierSignal signal, Cycle at);
  static bool names_other_cta(const CtaSlot& cta, uint32_t address) {
    const uint32_t rank_plus_one = address >> kClusterRankShift;
    return rank_plus_one != 0 && rank_plus_one != cta.rank + 1;
  }

  uint32_t id_;
  const GpuSpec& spec_;
  Engine& engine_;
  ClusterBarriers& clusters_;
  CtaDone on_cta_done_;
  WarpObserver* observer_ = nullptr;
  SmStats stats_;
  MemOutbox outbox_;  // before lsu_, which sends through it
  LoadStoreUnit lsu_;
  std::vector<Warp> warps_;
  std::vector<SubPartition> subs_;
  std::vector<CtaSlot> ctas_;
  std::priority_queue<Response, std::vector<Response>, std::greater<>> inbox_;
  uint64_t response_sequence_ = 0;
  // The kernel of the instruction being issued, for messages (kernels running side by side may
  // come from different files).
  const KernelInfo* issuing_kernel_ = nullptr;
  const std::string& source_file(const CtaSlot& cta) const { return cta.footprint.kernel->source_file; }
  uint32_t resident_ctas_ = 0;
  // What the resident CTAs hold of the SM's registers and shared memory (the carve-out).
  uint32_t registers_held_ = 0, shared_held_ = 0, shared_capacity_ = 0;
  uint32_t resident_warps_ = 0;
  uint64_t next_age_ = 0;
  // Warp-state accounting: stalled warps stay in a population per state, and cycles are
  // credited population x elapsed, so a tick costs nothing for warps whose state did not change.
  std::array<uint32_t, kNumStallReasons> population_{};
  Cycle accounted_until_ = 0;  // first cycle not yet credited to the populations
  Cycle busy_since_ = 0;       // first cycle of the current stretch with resident warps
  Cycle last_tick_ = 0;
  bool ticked_ = false;
  bool in_tick_ = false;
  bool woke_work_ = false;  // something in this tick makes the next cycle busy
  // Held during tick_held, applied by finish_tick: each CTA that ended,
  // and the earliest wake-up asked for.
  std::vector<CtaEnd> ctas_done_held_;
  Cycle wake_held_ = kNever;
  bool finishing_ = false;  // in finish_tick: CTAs launched now start next cycle, as in a tick
  std::vector<uint32_t> eligible_;      // scratch
  std::vector<uint32_t> to_classify_;   // scratch
};

}  // namespace warpsim
