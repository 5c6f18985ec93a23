#include "report/kernel_summary.h"

#include <algorithm>

namespace warpsim {
namespace {

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

Summary summarize(const GpuSpec& spec, const StatRegistry& st, const StatRegistry::Snapshot& s, uint64_t cycles) {
  Summary out;
  auto sum = [&](const std::string& g) { return double(st.sum(g, s)); };
  const std::string sm = "gpu.sm[*].";
  const double subs = double(spec.topology.sms) * spec.topology.sub_partitions_per_sm;
  out.cycles = cycles;
  out.time_us = cycles / spec.cycles_per_second() * 1e6;
  out.warp_instructions = st.sum(sm + "inst_executed", s);
  out.thread_instructions = st.sum(sm + "thread_inst_executed", s);
  const double active = sum(sm + "cycles_active");
  out.ipc = ratio(out.warp_instructions, active);
  out.gpu_ipc = ratio(out.warp_instructions, double(cycles));
  out.achieved_occupancy = ratio(sum(sm + "warps_active_cycles"), active * spec.limits.max_warps_per_sm);
  out.simt_efficiency = ratio(out.thread_instructions, 32.0 * out.warp_instructions);
  const double l1_hits = sum(sm + "l1.sector_hits");
  out.l1_hit_rate = ratio(l1_hits, l1_hits + sum(sm + "l1.sector_misses"));
  const double l2_reads = sum("gpu.l2.sector_reads"), l2_writes = sum("gpu.l2.sector_writes");
  out.l2_hit_rate = ratio(sum("gpu.l2.sector_read_hits") + l2_writes, l2_reads + l2_writes);
  out.dram_bytes_read = st.sum("gpu.dram.bytes_read", s);
  out.dram_bytes_written = st.sum("gpu.dram.bytes_written", s);
  out.dram_row_hits = st.sum("gpu.dram.channel[*].row_hits", s);
  out.dram_row_empty = st.sum("gpu.dram.channel[*].row_empty", s);
  out.dram_row_conflicts = st.sum("gpu.dram.channel[*].row_conflicts", s);
  const double seconds = cycles / spec.cycles_per_second();
  out.dram_bandwidth_gbps = ratio(double(out.dram_bytes_read + out.dram_bytes_written), seconds) / 1e9;
  out.dram_utilisation = ratio(out.dram_bandwidth_gbps * 1e9, spec.memory.hbm.peak_bytes_per_second());
  out.l2_utilisation = ratio(sum("gpu.l2.slice_busy_cycles"), double(spec.memory.l2.slices) * cycles);
  out.issue_utilisation = ratio(out.warp_instructions, subs * cycles);
  const double sm_cycles = double(spec.topology.sms) * cycles;
  out.l1_tag_utilisation = ratio(sum(sm + "l1.tag_lookups"), spec.memory.l1.tag_lookups_per_clk * sm_cycles);
  out.mio_utilisation = ratio(sum(sm + "mio.wavefronts"), sm_cycles);  // one pass per cycle (load_store_unit.cpp)
  for (Pipe p : {Pipe::kFma, Pipe::kAlu, Pipe::kFp16, Pipe::kFp64, Pipe::kXu, Pipe::kBranch}) {
    double busy = sum(sm + "pipe." + std::string(pipe_name(p)) + ".inst_executed") * spec.pipe(p).issue_interval();
    double u = ratio(busy, subs * cycles);
    if (u > out.busiest_pipe_utilisation) {
      out.busiest_pipe_utilisation = u;
      out.busiest_pipe = std::string(pipe_name(p));
    }
  }
  double tensor = ratio(sum(sm + "tensor.busy_cycles"), subs * cycles);
  // Both counted per sub-partition (a whole-SM MMA's interval once for each).
  out.tensor_smem_bound_share = ratio(sum(sm + "tensor.smem_bound_cycles"), sum(sm + "tensor.busy_cycles"));
  if (tensor > out.busiest_pipe_utilisation) {
    out.busiest_pipe_utilisation = tensor;
    out.busiest_pipe = "tensor";
  }
  out.fp32_flops = sum(sm + "fp32.add") + sum(sm + "fp32.mul") + 2 * sum(sm + "fp32.fma");
  out.fp64_flops = sum(sm + "fp64.add") + sum(sm + "fp64.mul") + 2 * sum(sm + "fp64.fma");
  out.fp16_flops = sum(sm + "fp16.flops");
  out.tensor_flops = sum(sm + "tensor.flops");
  for (int r = 0; r < kNumStallReasons; ++r) {
    auto reason = static_cast<StallReason>(r);
    out.stalls[r] = ratio(sum(sm + "warp_state." + std::string(stall_reason_name(reason))), out.warp_instructions);
  }
  classify_bound(out);
  return out;
}

// A sampled kernel's (or run's) time is the projection; the rates stay those of the timed part.
// `sampled` holds the runs' sums (ctas_timed: the timed CTAs, as KernelRun::ctas counts them).
void apply_sampling(const GpuSpec& spec, Summary& out, uint64_t timed_cycles, uint64_t reported_cycles, const SamplingResult& sampled) {
  out.sampled = true;
  out.timed_cycles = timed_cycles;
  out.cycles = reported_cycles;
  out.time_us = reported_cycles / spec.cycles_per_second() * 1e6;
  out.spread_cycles = sampled.spread_cycles;
  out.ctas_timed = sampled.ctas_timed;
  out.ctas_untimed = sampled.ctas_untimed;
  out.untimed_warp_instructions = sampled.untimed_warp_instructions;
  Summary::WholeKernel& whole = out.whole;
  whole.warp_instructions = out.warp_instructions + sampled.untimed_warp_instructions;
  whole.thread_instructions = out.thread_instructions + sampled.untimed_thread_instructions;
  whole.fp32_flops = out.fp32_flops + sampled.untimed_flops.fp32();
  whole.fp64_flops = out.fp64_flops + sampled.untimed_flops.fp64();
  whole.fp16_flops = out.fp16_flops + double(sampled.untimed_flops.fp16_flops);
  whole.tensor_flops = out.tensor_flops + double(sampled.untimed_flops.tensor_flops);
}

// Adds one kernel's DRAM bytes to the whole-kernel estimates (a kernel that ran whole adds its
// own). Reads: the timed part's, scaled by the whole instruction count over the timed one.
// Writes cannot be scaled the same way: L2 is write-back, so the timed part's stores partly sit
// in L2, and at the start of a streaming kernel none have reached DRAM yet (scaling undercounted
// a 32 Mi saxpy's writes by 30%). What the timed part stored is what it wrote plus what L2 holds
// dirty beyond its start; the untimed part stores that times the scale. Once dirty lines have
// begun to leave L2 its dirty share has settled, so all of those reach DRAM; until then L2 takes
// them up to its size.
void add_dram_estimate(const GpuSpec& spec, Summary::WholeKernel& whole, const Summary& timed, const KernelRun& run) {
  const uint64_t untimed = run.sampling.untimed_warp_instructions;
  const double scale = timed.warp_instructions ? double(timed.warp_instructions + untimed) / double(timed.warp_instructions) : 1.0;
  whole.dram_bytes_read_estimate += double(timed.dram_bytes_read) * scale;
  const double written = double(timed.dram_bytes_written), dirty = double(run.l2_dirty_bytes_end);
  const double stored = std::max(0.0, written + dirty - double(run.l2_dirty_bytes_start));
  const double untimed_stored = stored * (scale - 1.0);
  const double room = written > 0 ? 0.0 : std::max(0.0, double(spec.memory.l2.size_bytes) - dirty);
  whole.dram_bytes_written_estimate += written + std::max(0.0, untimed_stored - room);
}

}  // namespace

Summary summarize_kernel(const GpuSpec& spec, const StatRegistry& stats, const KernelRun& run) {
  Summary out = summarize(spec, stats, run.stats, run.cycles());
  out.name = run.info.name;
  out.grid = run.info.grid;
  out.block = run.info.block;
  out.ctas = run.ctas;
  out.theoretical_occupancy = run.occupancy.theoretical_occupancy();
  out.occupancy_limiter = run.occupancy.limiter;
  out.ctas_per_sm = run.occupancy.ctas_per_sm;
  out.l1_kib = run.occupancy.l1_bytes / 1024;
  out.shared_carveout_kib = run.occupancy.shared_carveout / 1024;
  out.registers_per_thread = run.info.registers_per_thread;
  out.shared_bytes_per_block = run.info.shared_bytes;
  out.stream = run.info.stream;
  out.concurrent = run.concurrent;
  if (run.sampling.sampled) {
    apply_sampling(spec, out, run.cycles(), run.reported_cycles(), run.sampling);
    add_dram_estimate(spec, out.whole, out, run);
  }
  // After the sampling: the durations are the projection, the rest the timed part's.
  out.metrics = ncu_metrics(spec, stats, run.stats, out);
  return out;
}

Summary summarize_run(const GpuSpec& spec, const StatRegistry& stats, const std::vector<KernelRun>& runs) {
  StatRegistry::Snapshot total(stats.entries().size(), 0);
  uint64_t cycles = 0, reported = 0, ctas = 0;
  SamplingResult sampled;
  for (const auto& r : runs) {
    for (size_t i = 0; i < total.size(); ++i) total[i] += r.stats[i];
    cycles += r.cycles();
    reported += r.reported_cycles();
    ctas += r.ctas;
    sampled.sampled = sampled.sampled || r.sampling.sampled;
    sampled.spread_cycles += r.sampling.spread_cycles;
    sampled.ctas_untimed += r.sampling.ctas_untimed;
    sampled.untimed_warp_instructions += r.sampling.untimed_warp_instructions;
    sampled.untimed_thread_instructions += r.sampling.untimed_thread_instructions;
    sampled.untimed_flops += r.sampling.untimed_flops;
  }
  sampled.ctas_timed = ctas;
  Summary out = summarize(spec, stats, total, cycles);
  out.name = runs.size() == 1 ? runs.front().info.name : "all kernels";
  out.ctas = ctas;
  if (sampled.sampled) {
    apply_sampling(spec, out, cycles, reported, sampled);
    // Kernel by kernel: one that ran whole keeps its own bytes, not scaled by another's sample.
    for (const auto& r : runs) add_dram_estimate(spec, out.whole, summarize(spec, stats, r.stats, r.cycles()), r);
  }
  out.metrics = ncu_metrics(spec, stats, total, out);
  return out;
}

}  // namespace warpsim
