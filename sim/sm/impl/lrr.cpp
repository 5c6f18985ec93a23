// Loose round-robin: the first eligible warp after the one issued last, wrapping around.
#include "sm/warp_scheduler.h"

namespace warpsim {
namespace {

class LrrScheduler : public WarpScheduler {
 public:
  uint32_t pick(std::span<const uint32_t> eligible, const std::vector<Warp>&) override {
    for (uint32_t slot : eligible) {
      if (last_ == UINT32_MAX || slot > last_) return last_ = slot;
    }
    return last_ = eligible[0];
  }

 private:
  uint32_t last_ = UINT32_MAX;
};

}  // namespace

std::unique_ptr<WarpScheduler> make_lrr_scheduler() { return std::make_unique<LrrScheduler>(); }

}  // namespace warpsim
