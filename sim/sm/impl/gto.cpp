// Greedy-then-oldest: keep issuing from the same warp while it can, else the oldest eligible
// warp (Rogers et al., MICRO 2012; GPGPU-Sim's default). A warp whose last SASS instruction
// carries the yield hint gives up its turn when another warp is eligible.
#include "sm/warp_scheduler.h"

namespace warpsim {
namespace {

class GtoScheduler : public WarpScheduler {
 public:
  uint32_t pick(std::span<const uint32_t> eligible, const std::vector<Warp>& warps) override {
    uint32_t best = UINT32_MAX;
    for (uint32_t slot : eligible) {
      if (slot == last_) {
        if (!warps[slot].yielded) return last_;
        continue;
      }
      if (best == UINT32_MAX || warps[slot].age < warps[best].age) best = slot;
    }
    if (best == UINT32_MAX) best = last_;  // the yielding warp is the only one eligible
    last_ = best;
    return best;
  }

 private:
  uint32_t last_ = UINT32_MAX;
};

}  // namespace

std::unique_ptr<WarpScheduler> make_gto_scheduler() { return std::make_unique<GtoScheduler>(); }

}  // namespace warpsim
