// Nsight Compute metric names for the simulator's statistics, so a user can set a warpsim run
// beside an ncu report. "modelled" means the simulator computes the same quantity by the same
// definition; "approximate" marks a stand-in whose definition differs (said in docs/metrics.md).
#include <algorithm>

#include "report/kernel_summary.h"

namespace warpsim {

std::vector<Metric> ncu_metrics(const GpuSpec& spec, const StatRegistry& st, const StatRegistry::Snapshot& s,
                                const Summary& k) {
  std::vector<Metric> m;
  auto add = [&](std::string name, double v, std::string unit, std::string kind = "modelled") {
    m.push_back(Metric{std::move(name), v, std::move(unit), std::move(kind)});
  };
  auto sum = [&](const std::string& g) { return double(st.sum("gpu.sm[*]." + g, s)); };
  const double sms = spec.topology.sms;
  add("gpu__time_duration.sum", k.time_us * 1000, "ns");
  add("gpc__cycles_elapsed.max", double(k.cycles), "cycle");
  add("sm__cycles_elapsed.avg", double(k.cycles), "cycle");
  // The Speed-of-Light headline: each the busiest of the units warpsim models on that side (Nsight
  // Compute takes the maximum over more sub-units, so these are stand-ins; docs/metrics.md).
  add("sm__throughput.avg.pct_of_peak_sustained_elapsed", std::max(k.issue_utilisation, k.busiest_pipe_utilisation) * 100, "%", "approximate");
  add("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", memory_utilisation(k) * 100, "%", "approximate");
  add("sm__cycles_active.avg", sum("cycles_active") / sms, "cycle");
  add("smsp__inst_executed.sum", double(k.warp_instructions), "inst");
  add("sm__inst_executed.avg.per_cycle_active", k.ipc, "inst/cycle");
  add("smsp__thread_inst_executed_per_inst_executed.ratio", k.warp_instructions ? double(k.thread_instructions) / k.warp_instructions : 0, "thread");
  add("sm__warps_active.avg.pct_of_peak_sustained_active", k.achieved_occupancy * 100, "%");
  if (k.ctas_per_sm) {
    add("sm__maximum_warps_per_active_cycle_pct", k.theoretical_occupancy * 100, "%");
    add("launch__occupancy_limit_" + k.occupancy_limiter, double(k.ctas_per_sm), "block");
    add("launch__grid_size", double(k.grid.count()), "block");
    add("launch__block_size", double(k.block.count()), "thread");
    add("launch__registers_per_thread", double(k.registers_per_thread), "register/thread");
    add("launch__shared_mem_per_block", double(k.shared_bytes_per_block), "byte/block");  // static + dynamic
  }
  add("l1tex__t_sector_hit_rate.pct", k.l1_hit_rate * 100, "%");
  add("lts__t_sector_hit_rate.pct", k.l2_hit_rate * 100, "%");
  add("dram__bytes_read.sum", double(k.dram_bytes_read), "byte");
  add("dram__bytes_write.sum", double(k.dram_bytes_written), "byte");
  add("dram__bytes.sum.per_second", k.dram_bandwidth_gbps * 1e9, "byte/second");
  add("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", k.dram_utilisation * 100, "%");
  add("lts__throughput.avg.pct_of_peak_sustained_elapsed", k.l2_utilisation * 100, "%", "approximate");
  // Over the SMs' active cycles, the busier of the tag stage and the MIO data path.
  const double active = sum("cycles_active");
  add("l1tex__throughput.avg.pct_of_peak_sustained_active",
      active ? std::max(sum("l1.tag_lookups") / spec.memory.l1.tag_lookups_per_clk, sum("mio.wavefronts")) / active * 100 : 0, "%", "approximate");
  add("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", sum("global_load.requests"), "request");
  add("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", sum("global_load.sectors"), "sector");
  add("l1tex__t_requests_pipe_tex_mem_texture.sum", sum("texture_load.requests"), "request");
  add("l1tex__t_sectors_pipe_tex_mem_texture.sum", sum("texture_load.sectors"), "sector");
  add("l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum", sum("surface_load.requests"), "request");
  add("l1tex__t_sectors_pipe_tex_mem_surface_op_ld.sum", sum("surface_load.sectors"), "sector");
  add("l1tex__t_requests_pipe_tex_mem_surface_op_st.sum", sum("surface_store.requests"), "request");
  add("l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum", sum("surface_store.sectors"), "sector");
  add("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", sum("global_store.requests"), "request");
  add("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", sum("global_store.sectors"), "sector");
  // Conflicts are the wavefronts beyond the ideal ones, as Nsight Compute counts them (a
  // conflict-free 128-bit load takes four wavefronts and no conflicts).
  add("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", sum("shared_load.wavefronts"), "");
  add("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", sum("shared_store.wavefronts"), "");
  add("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", sum("shared_load.wavefronts") - sum("shared_load.ideal_wavefronts"), "");
  add("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", sum("shared_store.wavefronts") - sum("shared_store.ideal_wavefronts"), "");
  for (Pipe p : {Pipe::kFma, Pipe::kAlu, Pipe::kFp16, Pipe::kFp64, Pipe::kXu, Pipe::kTensor, Pipe::kLsu, Pipe::kUniform}) {
    add("sm__inst_executed_pipe_" + std::string(pipe_name(p)) + ".sum", sum("pipe." + std::string(pipe_name(p)) + ".inst_executed"), "inst");
  }
  add("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
      k.counted_cycles() ? sum("tensor.busy_cycles") / (double(spec.topology.sub_partitions_per_sm) * sms * k.counted_cycles()) * 100 : 0, "%");
  add("sm__sass_thread_inst_executed_op_fadd_pred_on.sum", sum("fp32.add"), "inst");
  add("sm__sass_thread_inst_executed_op_fmul_pred_on.sum", sum("fp32.mul"), "inst");
  add("sm__sass_thread_inst_executed_op_ffma_pred_on.sum", sum("fp32.fma"), "inst");
  add("sm__sass_thread_inst_executed_op_dadd_pred_on.sum", sum("fp64.add"), "inst");
  add("sm__sass_thread_inst_executed_op_dmul_pred_on.sum", sum("fp64.mul"), "inst");
  add("sm__sass_thread_inst_executed_op_dfma_pred_on.sum", sum("fp64.fma"), "inst");
  add("smsp__inst_executed_op_branch.sum", sum("branches"), "inst");
  add("smsp__sass_branch_targets_threads_divergent.sum", sum("divergent_branches"), "", "approximate");
  const double branches = sum("branches");
  add("smsp__sass_average_branch_targets_threads_uniform.pct", branches ? (branches - sum("divergent_branches")) / branches * 100 : 100, "%",
      "approximate");
  for (int r = 0; r < kNumStallReasons; ++r) {
    auto reason = static_cast<StallReason>(r);
    add("smsp__average_warps_issue_stalled_" + std::string(stall_reason_name(reason)) + "_per_issue_active.ratio",
        k.stalls[r], "ratio");
  }
  return m;
}

}  // namespace warpsim
