#include "gpu/occupancy.h"

#include <algorithm>
#include <limits>

#include "common/error.h"

namespace warpsim {
namespace {
uint32_t round_up(uint32_t v, uint32_t unit) { return unit ? (v + unit - 1) / unit * unit : v; }
}  // namespace

double Occupancy::theoretical_occupancy() const {
  return max_warps_per_sm ? double(ctas_per_sm) * warps_per_cta / max_warps_per_sm : 0.0;
}

// A cluster's CTAs must all be resident at once on the SMs of one GPC (CUDA-PG, "Thread Block
// Clusters"); the driver refuses a launch whose cluster cannot be.
static void check_clusters(const GpuSpec& spec, const KernelInfo& k, const Occupancy& o, const SourceLocation& where) {
  if (!k.clustered()) return;
  const uint64_t size = k.cluster.count();
  if (!spec.clusters.supported()) {
    throw InputError(where, "kernel '" + k.name + "' is launched in clusters of " + k.cluster.str() + " CTAs; " + spec.name +
                                " has no thread-block clusters (compute capability 9.0 or later)");
  }
  if (size > spec.clusters.max_size) {
    throw InputError(where, "kernel '" + k.name + "': a cluster of " + std::to_string(size) + " CTAs; " + spec.name +
                                " allows at most " + std::to_string(spec.clusters.max_size) + " (" +
                                std::to_string(spec.clusters.max_portable_size) + " portable)");
  }
  if (k.grid.x % k.cluster.x || k.grid.y % k.cluster.y || k.grid.z % k.cluster.z) {
    throw InputError(where, "kernel '" + k.name + "': the grid " + k.grid.str() + " is not a whole number of clusters " + k.cluster.str());
  }
  uint64_t room = 0;
  for (uint32_t g = 0; g < spec.topology.gpcs; ++g) room = std::max<uint64_t>(room, uint64_t{spec.topology.sms_in_gpc(g)} * o.ctas_per_sm);
  if (size > room) {
    throw InputError(where, "kernel '" + k.name + "': a cluster of " + std::to_string(size) + " CTAs cannot be resident in one GPC of " +
                                spec.name + " (at most " + std::to_string(room) + ": " + std::to_string(o.ctas_per_sm) +
                                " per SM, limited by " + o.limiter + ")");
  }
}

Occupancy compute_occupancy(const GpuSpec& spec, const KernelInfo& k) {
  const LimitSpec& l = spec.limits;
  const SourceLocation where{k.source_file.empty() ? "kernel " + k.name : k.source_file, 0, 0};
  const uint64_t threads = k.block.count();
  if (threads > l.max_threads_per_cta) {
    throw InputError(where, "kernel '" + k.name + "' has " + std::to_string(threads) + " threads per block; " + spec.name +
                                " allows at most " + std::to_string(l.max_threads_per_cta));
  }
  if (k.registers_per_thread > l.max_registers_per_thread) {
    throw InputError(where, "kernel '" + k.name + "' uses " + std::to_string(k.registers_per_thread) +
                                " registers per thread; " + spec.name + " allows at most " +
                                std::to_string(l.max_registers_per_thread));
  }
  if (k.shared_bytes > l.max_shared_per_cta_bytes) {
    throw InputError(where, "kernel '" + k.name + "' needs " + std::to_string(k.shared_bytes) +
                                " bytes of shared memory per block; " + spec.name + " allows at most " +
                                std::to_string(l.max_shared_per_cta_bytes));
  }
  Occupancy o;
  o.max_warps_per_sm = l.max_warps_per_sm;
  o.warps_per_cta = k.warps_per_cta();
  o.limit_ctas = l.max_ctas_per_sm;
  o.limit_warps = l.max_warps_per_sm / o.warps_per_cta;
  constexpr uint32_t kUnlimited = std::numeric_limits<uint32_t>::max();
  o.registers_per_warp = round_up(k.registers_per_thread * 32, l.register_allocation_unit);
  o.limit_registers = o.registers_per_warp ? (l.registers_per_sm / o.registers_per_warp) / o.warps_per_cta : kUnlimited;
  o.shared_per_cta = round_up(k.shared_bytes + l.reserved_shared_per_cta_bytes, l.shared_allocation_unit_bytes);
  o.limit_shared = o.shared_per_cta ? l.max_shared_per_sm_bytes / o.shared_per_cta : kUnlimited;
  o.ctas_per_sm = o.limit_ctas;
  o.limiter = "blocks";
  auto consider = [&](uint32_t limit, const char* name) {
    if (limit < o.ctas_per_sm) {
      o.ctas_per_sm = limit;
      o.limiter = name;
    }
  };
  consider(o.limit_warps, "warps");
  consider(o.limit_registers, "registers");
  consider(o.limit_shared, "shared_mem");
  if (o.ctas_per_sm == 0) {
    throw InputError(where, "kernel '" + k.name + "' cannot fit one block on an SM of " + spec.name + " (limited by " +
                                o.limiter + ")");
  }
  // The driver picks the smallest shared-memory carve-out that holds the resident CTAs.
  const uint64_t needed = uint64_t{o.ctas_per_sm} * o.shared_per_cta;
  o.shared_carveout = spec.memory.l1.shared_carveouts_bytes.back();
  for (uint32_t c : spec.memory.l1.shared_carveouts_bytes) {
    if (c >= needed) {
      o.shared_carveout = c;
      break;
    }
  }
  o.l1_bytes = spec.memory.l1.unified_bytes - o.shared_carveout;
  check_clusters(spec, k, o, where);
  return o;
}

uint64_t resident_ctas(const GpuSpec& spec, const KernelInfo& k, const Occupancy& occupancy) {
  const uint64_t resident = uint64_t{occupancy.ctas_per_sm} * spec.topology.sms;
  if (k.cooperative && k.grid.count() > resident) {
    throw InputError(SourceLocation{k.source_file, 0, 0},
                     "cooperative launch of '" + k.name + "' with " + std::to_string(k.grid.count()) + " CTAs; at most " +
                         std::to_string(resident) + " (" + std::to_string(occupancy.ctas_per_sm) + " per SM x " +
                         std::to_string(spec.topology.sms) + " SMs) can be resident at once on " + spec.name +
                         ", and CUDA refuses the launch (cudaErrorCooperativeLaunchTooLarge)");
  }
  return resident;
}

}  // namespace warpsim
