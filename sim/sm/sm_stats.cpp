#include "sm/sm_stats.h"

namespace warpsim {

void SmStats::register_with(StatRegistry& r, const std::string& p) const {
  r.add(p + ".inst_executed", &inst_executed, "warp instructions", "warp instructions issued");
  r.add(p + ".thread_inst_executed", &thread_inst_executed, "thread instructions", "active lanes summed over issued instructions");
  r.add(p + ".cycles_active", &cycles_active, "cycles", "cycles with at least one resident warp");
  r.add(p + ".warps_active_cycles", &warps_active_cycles, "warp-cycles", "resident warps summed over cycles");
  r.add(p + ".ctas_launched", &ctas_launched, "CTAs", "CTAs launched on this SM");
  r.add(p + ".warps_launched", &warps_launched, "warps", "warps launched on this SM");
  for (int i = 0; i < kNumPipes; ++i) {
    auto pipe = static_cast<Pipe>(i);
    r.add(p + ".pipe." + std::string(pipe_name(pipe)) + ".inst_executed", &pipe_inst[i], "warp instructions",
          "warp instructions issued to this pipe, as Nsight Compute counts them (a SASS opcode on its own pipe)");
  }
  for (int i = 0; i < kNumStallReasons; ++i) {
    auto reason = static_cast<StallReason>(i);
    r.add(p + ".warp_state." + std::string(stall_reason_name(reason)), &stall_cycles[i], "warp-cycles",
          "cycles resident warps spent in this state");
  }
  r.add(p + ".fp32.add", &flops.fp32_add, "thread instructions", "FP32 add/sub thread instructions");
  r.add(p + ".fp32.mul", &flops.fp32_mul, "thread instructions", "FP32 mul thread instructions");
  r.add(p + ".fp32.fma", &flops.fp32_fma, "thread instructions", "FP32 fma/mad thread instructions");
  r.add(p + ".fp64.add", &flops.fp64_add, "thread instructions", "FP64 add/sub thread instructions");
  r.add(p + ".fp64.mul", &flops.fp64_mul, "thread instructions", "FP64 mul thread instructions");
  r.add(p + ".fp64.fma", &flops.fp64_fma, "thread instructions", "FP64 fma thread instructions");
  r.add(p + ".fp16.flops", &flops.fp16_flops, "FLOP", "half-precision non-tensor FLOPs");
  r.add(p + ".tensor.flops", &flops.tensor_flops, "FLOP", "tensor-core FLOPs (or integer OPs) performed: a 2:4 sparse MMA's are half its shape's");
  r.add(p + ".tensor.busy_cycles", &tensor_busy_cycles, "cycles", "tensor pipe busy cycles summed over sub-partitions");
  r.add(p + ".tensor.smem_bound_cycles", &tensor_smem_bound_cycles, "cycles",
        "cycles wgmma and tcgen05 MMAs held the tensor pipe beyond their FLOPs' time, reading A and B from shared memory, "
        "summed over sub-partitions");
  r.add(p + ".branches", &branches, "warp instructions", "branch instructions");
  r.add(p + ".divergent_branches", &divergent_branches, "warp instructions", "branches after which fewer lanes ran");
  r.add(p + ".global_load.requests", &global_load_requests, "requests", "global/local load instructions");
  r.add(p + ".global_load.sectors", &global_load_sectors, "sectors", "sectors requested by global/local loads");
  r.add(p + ".texture_load.requests", &texture_load_requests, "requests", "texture fetch instructions (tex, tld4)");
  r.add(p + ".texture_load.sectors", &texture_load_sectors, "sectors", "sectors requested by texture fetches");
  r.add(p + ".surface_load.requests", &surface_load_requests, "requests", "surface load instructions (suld)");
  r.add(p + ".surface_load.sectors", &surface_load_sectors, "sectors", "sectors requested by surface loads");
  r.add(p + ".surface_store.requests", &surface_store_requests, "requests", "surface store instructions (sust)");
  r.add(p + ".surface_store.sectors", &surface_store_sectors, "sectors", "sectors written by surface stores");
  r.add(p + ".global_store.requests", &global_store_requests, "requests", "global/local store instructions");
  r.add(p + ".global_store.sectors", &global_store_sectors, "sectors", "sectors written by global/local stores");
  r.add(p + ".l1.sector_hits", &l1_sector_hits, "sectors", "load sectors found in L1");
  r.add(p + ".l1.sector_misses", &l1_sector_misses, "sectors", "load sectors missing in L1");
  r.add(p + ".l1.mshr_merges", &l1_mshr_merges, "sectors", "missing sectors already requested by an earlier miss");
  r.add(p + ".atomic.requests", &atomic_requests, "requests", "global atomic and reduction instructions");
  r.add(p + ".shared_load.requests", &shared_load_requests, "requests", "shared-memory load instructions");
  r.add(p + ".shared_store.requests", &shared_store_requests, "requests", "shared-memory store instructions");
  r.add(p + ".shared_load.wavefronts", &shared_load_wavefronts, "wavefronts", "shared load passes, conflicts included");
  r.add(p + ".shared_store.wavefronts", &shared_store_wavefronts, "wavefronts", "shared store passes, conflicts included");
  r.add(p + ".shared_load.ideal_wavefronts", &shared_load_ideal_wavefronts, "wavefronts",
        "shared load passes the distinct words need at best (one word per bank per pass)");
  r.add(p + ".shared_store.ideal_wavefronts", &shared_store_ideal_wavefronts, "wavefronts",
        "shared store passes the distinct words need at best (one word per bank per pass)");
  r.add(p + ".l1.tag_lookups", &l1_tag_lookups, "lines", "cache lines through the L1 tag stage (global and local loads, stores and atomics)");
  r.add(p + ".mio.wavefronts", &mio_wavefronts, "wavefronts",
        "passes through the MIO data path: shared-memory wavefronts (conflicts included), constant reads, shuffles, mbarrier operations, "
        "requests handed to the SM-to-SM network");
  r.add(p + ".barriers", &barriers, "warp instructions", "bar.sync instructions");
  r.add(p + ".bulk_copy.copies", &bulk_copies, "copies", "cp.async.bulk copies, both directions (one per issuing lane)");
  r.add(p + ".bulk_copy.sectors", &bulk_copy_sectors, "sectors", "sectors bulk copies read from or wrote to L2");
  r.add(p + ".mbarrier.instructions", &mbarrier_ops, "warp instructions", "mbarrier instructions");
  r.add(p + ".dsmem.requests", &dsmem_requests, "requests", "shared::cluster instructions reaching another CTA's shared memory");
  r.add(p + ".dsmem.segments", &dsmem_segments, "segments", "32-byte segments moved over the SM-to-SM network");
  r.add(p + ".cluster_barriers", &cluster_barriers, "warp instructions", "barrier.cluster.wait instructions");
  r.add(p + ".remote_mbarrier_signals", &remote_mbarrier_signals, "warp instructions", "mbarrier arrives, expect_tx and complete_tx (st.async, red.async) on another CTA of the cluster");
}

}  // namespace warpsim
