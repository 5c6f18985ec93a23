#pragma once
// Picks which eligible warp a sub-partition issues each cycle. Policies are chosen by name in
// the config (scheduler.policy) through make_warp_scheduler().
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "config/gpu_spec.h"
#include "sm/warp.h"

namespace warpsim {

class WarpScheduler {
 public:
  virtual ~WarpScheduler() = default;
  // `eligible` holds warp slots in ascending order, never empty. Returns the chosen slot.
  // Contract: must not change warp state; only its own bookkeeping.
  virtual uint32_t pick(std::span<const uint32_t> eligible, const std::vector<Warp>& warps) = 0;
};

std::unique_ptr<WarpScheduler> make_warp_scheduler(SchedulerPolicy policy);
std::unique_ptr<WarpScheduler> make_gto_scheduler();
std::unique_ptr<WarpScheduler> make_lrr_scheduler();

}  // namespace warpsim
