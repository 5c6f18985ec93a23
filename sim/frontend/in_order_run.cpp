#include "frontend/in_order_run.h"

#include <vector>

#include "common/error.h"

namespace warpsim {

void run_in_order(Workload& workload, const InOrderVisitor& visit) {
  while (auto kernel = workload.next_kernel()) {
    const KernelInfo& info = kernel->info();
    if (info.cooperative) {
      throw InputError(SourceLocation{info.source_file, 0, 0},
                       "'" + info.name + "' is a cooperative launch, whose CTAs wait for each other through memory; run one CTA at a "
                       "time without the timing model, the first would wait for the others forever (the timing model runs them "
                       "side by side: warpsim run without --functional, or warpsim trace)");
    }
    if (visit.kernel) visit.kernel(info);
    std::vector<std::unique_ptr<CtaWork>> cluster;
    while (true) {
      cluster.clear();
      while (cluster.size() < info.cluster.count()) {
        auto cta = kernel->next_cta();
        if (!cta) break;
        cluster.push_back(std::move(cta));
      }
      if (cluster.empty()) break;
      for (auto& cta : cluster) {
        if (visit.cta) visit.cta(cta->id());
        if (visit.interleave_warps) {
          std::vector<uint32_t> running(cta->num_warps());
          for (uint32_t w = 0; w < running.size(); ++w) running[w] = w;
          while (!running.empty()) {
            size_t kept = 0;
            for (const uint32_t w : running) {
              const WarpInst* inst = cta->warp(w).next();
              if (!inst) continue;
              if (visit.instruction) visit.instruction(*inst, info.full_mask(w));
              running[kept++] = w;
            }
            running.resize(kept);
          }
          continue;
        }
        for (uint32_t w = 0; w < cta->num_warps(); ++w) {
          if (visit.warp) visit.warp(w);
          const uint32_t full = info.full_mask(w);
          while (const WarpInst* inst = cta->warp(w).next())
            if (visit.instruction) visit.instruction(*inst, full);
        }
      }
    }
    if (visit.kernel_done) visit.kernel_done(*kernel);
  }
}

}  // namespace warpsim
