#pragma once
// Counters of one SM, registered under gpu.sm[i]. Names follow Nsight Compute where one applies
// (the report maps them to ncu metric names).
#include <array>
#include <cstdint>
#include <string>

#include "isa/flop_counts.h"
#include "isa/op_info.h"
#include "stats/stall_reason.h"
#include "stats/stat_registry.h"

namespace warpsim {

struct SmStats {
  uint64_t inst_executed = 0;         // warp instructions issued
  uint64_t thread_inst_executed = 0;  // sum of active lanes
  uint64_t cycles_active = 0;         // cycles with at least one resident warp
  uint64_t warps_active_cycles = 0;   // sum over cycles of resident warps
  uint64_t ctas_launched = 0;
  uint64_t warps_launched = 0;
  std::array<uint64_t, kNumPipes> pipe_inst{};
  std::array<uint64_t, kNumStallReasons> stall_cycles{};
  FlopCounts flops;                   // FLOP-producing thread instructions and FLOPs, as ncu's roofline counts them
  uint64_t tensor_busy_cycles = 0;    // summed over sub-partitions
  uint64_t tensor_smem_bound_cycles = 0;  // MMAs' cycles beyond their FLOPs, reading operands from shared memory (per sub-partition)
  uint64_t branches = 0;
  uint64_t divergent_branches = 0;    // the next instruction ran with fewer lanes than the branch
  // Memory.
  uint64_t global_load_requests = 0, global_load_sectors = 0;
  uint64_t texture_load_requests = 0, texture_load_sectors = 0;  // tex, tld4
  uint64_t surface_load_requests = 0, surface_load_sectors = 0;  // suld
  uint64_t surface_store_requests = 0, surface_store_sectors = 0;  // sust
  uint64_t global_store_requests = 0, global_store_sectors = 0;
  uint64_t l1_sector_hits = 0, l1_sector_misses = 0;   // global/local loads through L1
  uint64_t l1_mshr_merges = 0;                          // sectors already requested by another miss
  uint64_t atomic_requests = 0;
  uint64_t shared_load_requests = 0, shared_store_requests = 0;
  uint64_t l1_tag_lookups = 0;  // lines through the L1 tag stage
  uint64_t mio_wavefronts = 0;  // passes through the MIO data path
  uint64_t shared_load_wavefronts = 0, shared_store_wavefronts = 0;  // passes incl. conflict replays
  uint64_t shared_load_ideal_wavefronts = 0, shared_store_ideal_wavefronts = 0;  // passes without conflicts
  uint64_t barriers = 0;
  uint64_t bulk_copies = 0, bulk_copy_sectors = 0;    // cp.async.bulk (TMA): copies and sectors read from L2
  uint64_t mbarrier_ops = 0;                          // mbarrier instructions
  uint64_t dsmem_requests = 0, dsmem_segments = 0;    // accesses to other CTAs' shared memory; 32-byte segments moved
  uint64_t cluster_barriers = 0;                      // barrier.cluster.wait instructions
  uint64_t remote_mbarrier_signals = 0;               // mbarrier signals to another CTA of the cluster

  void register_with(StatRegistry& r, const std::string& prefix) const;
};

}  // namespace warpsim
