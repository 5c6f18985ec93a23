#pragma once
// The numbers a user reads about one kernel (or a whole run), computed from the statistics
// registry alone: reports never look at components.
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/gpu_spec.h"
#include "gpu/gpu.h"
#include "stats/stall_reason.h"
#include "stats/stat_registry.h"

namespace warpsim {

struct Metric {
  std::string name;   // Nsight Compute metric name
  double value = 0;
  std::string unit;
  std::string kind;   // "modelled": the simulator computes this quantity; "approximate": a stand-in
};

struct Summary {
  std::string name;
  Dim3 grid, block;
  uint64_t cycles = 0;
  double time_us = 0;
  uint64_t warp_instructions = 0, thread_instructions = 0;
  double ipc = 0;          // warp instructions per SM per active cycle (ncu's IPC)
  double gpu_ipc = 0;      // warp instructions per elapsed cycle, whole GPU
  double achieved_occupancy = 0, theoretical_occupancy = 0;
  double simt_efficiency = 0;
  double l1_hit_rate = 0, l2_hit_rate = 0;
  uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
  double dram_bandwidth_gbps = 0;
  uint64_t dram_row_hits = 0, dram_row_empty = 0, dram_row_conflicts = 0;  // HBM accesses by row-buffer outcome
  double dram_utilisation = 0, l2_utilisation = 0, issue_utilisation = 0;
  // The L1TEX unit's two stages warpsim models, as fractions of their peak over elapsed cycles:
  // the tag stage (lines per cycle) and the MIO data path (shared-memory wavefronts and the rest).
  double l1_tag_utilisation = 0, mio_utilisation = 0;
  double l1tex_utilisation() const { return std::max(l1_tag_utilisation, mio_utilisation); }
  std::string busiest_pipe;
  double busiest_pipe_utilisation = 0;
  // Of the tensor pipes' busy time, the share tcgen05 MMAs spent reading their operands from
  // shared memory beyond their FLOPs' time (tensor.smem_bound_cycles).
  double tensor_smem_bound_share = 0;
  // FLOPs as ncu's roofline counts them (an FMA is two), per kind.
  double fp32_flops = 0, fp64_flops = 0, fp16_flops = 0, tensor_flops = 0;
  std::string bound;         // "memory", "compute" or "latency"
  std::string bound_reason;
  std::array<double, kNumStallReasons> stalls{};  // warp-cycles per issued instruction
  uint64_t ctas = 0;
  // Sampled timing (warpsim run --sample; gpu/cta_sampler.h): `cycles` and `time_us` are then
  // the projection, while every count and rate above covers the timed CTAs over `timed_cycles`.
  bool sampled = false;
  uint64_t ctas_timed = 0, ctas_untimed = 0, untimed_warp_instructions = 0;
  uint64_t timed_cycles = 0, spread_cycles = 0;
  // The whole kernel's totals, timed and untimed CTAs together: instructions and FLOPs counted
  // (the untimed CTAs' as the SMs count them: isa/flop_counts.h), DRAM bytes estimated (the
  // timed part's bytes per warp instruction times the whole count: traffic needs the timing).
  struct WholeKernel {
    uint64_t warp_instructions = 0, thread_instructions = 0;
    double fp32_flops = 0, fp64_flops = 0, fp16_flops = 0, tensor_flops = 0;
    double dram_bytes_read_estimate = 0, dram_bytes_written_estimate = 0;
  } whole;
  // What counts are divided by to give rates: the timed part's cycles and time when sampled.
  uint64_t counted_cycles() const { return sampled ? timed_cycles : cycles; }
  double counted_time_us() const { return sampled && cycles ? time_us * double(timed_cycles) / double(cycles) : time_us; }
  std::vector<Metric> metrics;
  std::string occupancy_limiter;
  uint32_t ctas_per_sm = 0;
  uint32_t l1_kib = 0, shared_carveout_kib = 0;
  uint32_t registers_per_thread = 0, shared_bytes_per_block = 0;  // the launch's (one kernel's summary only)
  std::string stream;  // the CUDA stream it was issued to; empty for the default stream
  // Kernels that ran side by side (KernelRun::concurrent): every figure above covers them
  // together, from the first one's start to the last one's end.
  std::vector<ConcurrentKernel> concurrent;
};

// One kernel's summary. `snapshot` holds that kernel's counters.
Summary summarize_kernel(const GpuSpec& spec, const StatRegistry& stats, const KernelRun& run);
// The whole run: counters summed over kernels, cycles added (kernels run back to back).
Summary summarize_run(const GpuSpec& spec, const StatRegistry& stats, const std::vector<KernelRun>& runs);

// The memory side's busiest unit: DRAM, L2 or L1TEX (Nsight Compute's Speed-of-Light "Memory
// Throughput" takes the same maximum).
inline double memory_utilisation(const Summary& s) { return std::max({s.dram_utilisation, s.l2_utilisation, s.l1tex_utilisation()}); }
// Sets bound and bound_reason from the utilisations and stalls (bound.cpp).
void classify_bound(Summary& s);
// Nsight Compute metrics for `s` (metrics.cpp).
std::vector<Metric> ncu_metrics(const GpuSpec& spec, const StatRegistry& stats, const StatRegistry::Snapshot& snap,
                                const Summary& s);

}  // namespace warpsim
