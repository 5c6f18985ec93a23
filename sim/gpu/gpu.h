#pragma once
// The whole GPU: builds the SMs and the memory side from a GpuSpec, hands CTAs to SMs as they
// free up (the CTA scheduler; whole clusters to one GPC for clustered kernels), and runs
// kernels on the event engine: one after another, or side by side for kernels of CUDA streams
// (gpu_streams.cpp).
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "config/gpu_spec.h"
#include "engine/engine.h"
#include "frontend/kernel_source.h"
#include "gpu/cta_sampler.h"
#include "gpu/occupancy.h"
#include "gpu/sm_batch.h"
#include "mem/memory_system.h"
#include "sm/sm.h"
#include "stats/stat_registry.h"

namespace warpsim {

// One kernel of several that ran side by side (streams): its own span and counts; the
// statistics cover them together (KernelRun::concurrent).
struct ConcurrentKernel {
  KernelInfo info;
  Occupancy occupancy;
  Cycle start = 0, end = 0;  // its first CTA's first cycle; the cycle after its last CTA retired
  uint64_t ctas = 0;
  uint64_t warp_instructions = 0;
  Cycle cycles() const { return end - start; }
};

struct KernelRun {
  KernelInfo info;
  Occupancy occupancy;
  Cycle start = 0, end = 0;   // end: the cycle after the last CTA retired
  uint64_t ctas = 0;
  StatRegistry::Snapshot stats;  // counters accumulated during this kernel (the timed CTAs' only, when sampled)
  SamplingResult sampling;
  // Dirty bytes in L2 when the kernel started and when its timed part ended: with the bytes written
  // to DRAM they tell how much a sampled kernel stored (report/kernel_summary.cpp).
  uint64_t l2_dirty_bytes_start = 0, l2_dirty_bytes_end = 0;
  // Kernels of named streams whose runs overlapped (each with the next, in a chain): this run
  // then stands for all of them, from the first one's start to the last one's end, with the
  // statistics of that stretch; `info` names them together. Empty for a kernel that ran alone.
  std::vector<ConcurrentKernel> concurrent;
  Cycle cycles() const { return end - start; }  // the timed part's
  // The kernel's time as reported: the projection when sampled.
  Cycle reported_cycles() const { return sampling.sampled ? sampling.estimated_cycles : cycles(); }
};

class Gpu {
 public:
  // Called after each CTA completes (for progress displays); ctas_done counts cancelled CTAs too.
  using Progress = std::function<void(const KernelInfo&, uint64_t ctas_done, uint64_t ctas_total)>;

  explicit Gpu(const GpuSpec& spec);
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  // Simulates one kernel to completion. Throws InputError for input the model rejects and
  // SimulationError if the model deadlocks.
  KernelRun run_kernel(KernelSource& kernel);
  // Whether a kernel runs with the GPU to itself: one of the default stream, or one whose CTAs
  // must be placed together (clusters, cooperative launches), which the model does for one
  // kernel at a time.
  static bool runs_alone(const KernelInfo& info) { return info.stream.empty() || info.clustered() || info.cooperative; }
  // Runs `first`, a kernel of a named stream, and the kernels after it in `workload` as CUDA
  // streams would: side by side where their streams allow and the SMs have room
  // (gpu_streams.cpp). Appends to `runs` and returns the first kernel it did not run (one that
  // runs alone), or nullptr at the workload's end.
  std::unique_ptr<KernelSource> run_streams(std::unique_ptr<KernelSource> first, Workload& workload, std::vector<KernelRun>& runs);
  void set_progress(Progress p) { progress_ = std::move(p); }
  // Sampled timing of large grids (gpu/cta_sampler.h): off unless set.
  void set_sampling(const SamplingOptions& o) { sampling_ = o; }
  // Every SM reports its warps' states to `o` (nullptr: none); the model's results do not change.
  void set_observer(WarpObserver* o);
  // Kernels of named streams one at a time, as if all were in the default stream (to see what
  // running them side by side buys).
  void set_serial_streams(bool on) { serial_streams_ = on; }
  bool serial_streams() const { return serial_streams_; }
  // Host threads that tick the SMs (gpu/sm_batch.h); the results do not depend on it.
  void set_host_threads(unsigned threads) { host_threads_ = threads < 1 ? 1 : threads; }
  unsigned host_threads() const { return host_threads_; }
  // Whether the last kernel used several threads (ticking its SMs, reading its trace ahead);
  // some kernels cannot (sm_batch.h).
  bool ran_parallel() const { return ran_parallel_; }

  const StatRegistry& stats() const { return stats_; }
  const GpuSpec& spec() const { return spec_; }
  uint64_t engine_ticks() const { return engine_.ticks_executed(); }

 private:
  KernelRun run_source(KernelSource& kernel);  // run_kernel, once it chose how to read the kernel
  // Places `cta` on `sm` now; its warps start when the CTA scheduler gets to it
  // (GpuSpec::cta_scheduler: one CTA every dispatch_cycles, GPU-wide).
  void launch(uint32_t sm, std::unique_ptr<CtaWork> cta, const CtaFootprint& f, Cycle now);
  void cta_done(const Sm::CtaEnd& end);
  CtaFootprint footprint(const KernelInfo& info, const Occupancy& o);  // numbers the kernel too
  void start_clusters();          // ClusterBarriers emptied and wired to the SMs
  std::string stuck_sms() const;  // each SM with warps left, described ("" when none)
  // Streams (gpu_streams.cpp).
  struct StreamKernel;
  struct StreamRun;
  void stream_cta_done(const Sm::CtaEnd& end);
  void dispatch_streams(Cycle now);
  bool start_stream_kernel();  // the next kernel, if its stream allows it now
  bool launch_from(StreamKernel& k, uint32_t sm, Cycle now);  // false when it had no CTA left
  void kernel_finished(StreamKernel& k);
  void close_stretch();  // the KernelRun of the kernels that overlapped
  // Clustered kernels: the CTA scheduler takes a whole cluster at a time and places it on one
  // GPC with room for all of it (gpu_clusters.cpp).
  void dispatch_clusters(Cycle now);
  bool take_cluster();         // the next cluster's CTAs into pending_; false at the grid's end
  bool place_cluster(Cycle now);
  int gpc_with_room(uint32_t ctas) const;  // the first GPC from next_gpc_ with that many free CTA slots, or -1

  const GpuSpec& spec_;
  StatRegistry stats_;
  Engine engine_;
  SmBatch batch_;
  MemorySystem memory_;
  ClusterBarriers clusters_;
  std::vector<std::unique_ptr<Sm>> sms_;
  KernelSource* kernel_ = nullptr;
  CtaFootprint footprint_;  // kernel_'s CTAs'
  uint32_t kernels_started_ = 0;
  std::vector<uint32_t> sm_split_for_;  // the kernel each SM's L1 and shared memory were last split for
  StreamRun* streams_ = nullptr;        // while run_streams runs
  uint64_t ctas_done_ = 0;
  uint64_t ctas_total_ = 0;
  uint64_t ctas_cancelled_ = 0;  // over all kernels (gpu.ctas_cancelled)
  Cycle last_retire_ = 0;
  double next_dispatch_ = 0;  // the earliest cycle the CTA scheduler hands out its next CTA
  std::vector<std::unique_ptr<CtaWork>> pending_;  // a cluster waiting for a GPC with room
  uint32_t next_gpc_ = 0;
  bool grid_done_ = false;
  bool dispatching_ = false;
  bool ran_before_ = false;
  bool ran_parallel_ = false;
  bool serial_streams_ = false;
  unsigned host_threads_ = 1;
  Progress progress_;
  WarpObserver* observer_ = nullptr;
  SamplingOptions sampling_;
  std::optional<CtaSampler> sampler_;  // this kernel's, when sampled
};

}  // namespace warpsim
