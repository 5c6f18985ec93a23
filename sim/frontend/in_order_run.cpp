#include "frontend/in_order_run.h"

#include <numeric>
#include <vector>

#include "common/error.h"

namespace warpsim {
namespace {

void one_at_a_time(KernelSource& kernel, const KernelInfo& info, const InOrderVisitor& visit) {
  std::vector<std::unique_ptr<CtaWork>> cluster;
  while (true) {
    cluster.clear();
    while (cluster.size() < info.cluster.count()) {
      auto cta = kernel.next_cta();
      if (!cta) break;
      cluster.push_back(std::move(cta));
    }
    if (cluster.empty()) return;
    for (auto& cta : cluster) {
      if (visit.cta) visit.cta(cta->id());
      for (uint32_t w = 0; w < cta->num_warps(); ++w) {
        if (visit.warp) visit.warp(w);
        const uint32_t full = info.full_mask(w);
        while (const WarpInst* inst = cta->warp(w).next())
          if (visit.instruction) visit.instruction(*inst, full);
      }
    }
  }
}

// A cluster the run holds (a lone CTA when the kernel has none), kept until all its CTAs end:
// while one runs it may reach the others' shared memory.
struct HeldCluster {
  std::vector<std::unique_ptr<CtaWork>> ctas;
  std::vector<std::vector<uint32_t>> running;  // per CTA, its warps that have not ended
};

// Instructions a warp issues before the next takes its turn (fewer at a barrier). A GPU's worth
// of resident warps does not fit in the host's caches, so each turn starts with cache misses on
// the warp's registers and records; with 64 rather than 4, the 32 Mi saxpy's functional run took
// 11.3 s against 14.1 s (docs/performance.md, "Functional runs"), while a spinning warp still
// hands over within 64 steps.
constexpr uint32_t kTurn = 64;

void as_resident(KernelSource& kernel, const KernelInfo& info, uint64_t resident, const InOrderVisitor& visit) {
  const uint64_t per_cluster = info.cluster.count();
  if (!info.clustered()) kernel.resident_ctas(resident);  // as the GPU tells it (gpu.cpp)
  std::vector<HeldCluster> held;
  uint64_t held_ctas = 0;
  bool more = true;
  while (true) {
    // Whole clusters while there is room (always at least one).
    while (more && (held.empty() || held_ctas + per_cluster <= resident)) {
      HeldCluster c;
      while (c.ctas.size() < per_cluster) {
        auto cta = kernel.next_cta();
        if (!cta) break;
        if (visit.cta) visit.cta(cta->id());
        c.running.emplace_back(cta->num_warps());
        std::iota(c.running.back().begin(), c.running.back().end(), 0u);
        c.ctas.push_back(std::move(cta));
      }
      if (c.ctas.empty()) {
        more = false;
        break;
      }
      held_ctas += c.ctas.size();
      held.push_back(std::move(c));
    }
    if (held.empty()) return;
    // Every held warp takes its turn, in launch order; a cluster whose warps have all ended
    // leaves, making room.
    size_t kept = 0;
    for (size_t h = 0; h < held.size(); ++h) {
      HeldCluster& c = held[h];
      bool alive = false;
      for (size_t i = 0; i < c.ctas.size(); ++i) {
        CtaWork& cta = *c.ctas[i];
        std::vector<uint32_t>& running = c.running[i];
        // A warp at a barrier the others have not reached waits for them, as the timing model
        // holds it; were it asked, the emulator would run the others to the barrier at once,
        // and one spinning on another CTA would never get there. If all wait, asking them lets
        // the emulator report the barrier that can never complete.
        bool all_wait = true;
        for (const uint32_t w : running) all_wait = all_wait && cta.waiting_at_barrier(w);
        size_t still = 0;
        for (const uint32_t w : running) {
          if (!all_wait && cta.waiting_at_barrier(w)) {
            running[still++] = w;
            continue;
          }
          // A run of instructions a turn: the warp's state stays in the cache, while spins and
          // the warps they wait for still take turns.
          bool ended = false;
          for (uint32_t k = 0; k < kTurn; ++k) {
            const WarpInst* inst = cta.warp(w).next();
            if (!inst) {
              ended = true;
              break;
            }
            if (visit.instruction) visit.instruction(*inst, info.full_mask(w));
            if (inst->op->op_class == OpClass::kBarrier) break;
          }
          if (!ended) running[still++] = w;
        }
        running.resize(still);
        alive = alive || still > 0;
      }
      if (!alive) {
        held_ctas -= c.ctas.size();
        continue;
      }
      if (kept != h) held[kept] = std::move(c);
      ++kept;
    }
    held.resize(kept);
  }
}

}  // namespace

void finish_in_order(KernelSource& kernel, uint64_t resident, const InOrderVisitor& visit) {
  as_resident(kernel, kernel.info(), resident, visit);
}

void run_in_order(Workload& workload, const InOrderVisitor& visit) {
  while (auto kernel = workload.next_kernel()) {
    const KernelInfo& info = kernel->info();
    if (info.cooperative && !visit.resident) {
      throw InputError(SourceLocation{info.source_file, 0, 0},
                       "'" + info.name + "' is a cooperative launch, whose CTAs wait for each other through memory; emulated one CTA "
                       "at a time, the first would wait for the others forever (warpsim trace records it through the timing model)");
    }
    if (visit.kernel) visit.kernel(info);
    if (visit.resident) {
      as_resident(*kernel, info, visit.resident(info), visit);
    } else {
      one_at_a_time(*kernel, info, visit);
    }
    if (visit.kernel_done) visit.kernel_done(*kernel);
  }
}

}  // namespace warpsim
