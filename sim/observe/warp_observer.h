#pragma once
// What the timing model tells a watcher about each warp, for timelines and divergence views.
// The SM calls these only when an observer is attached, so an unobserved run pays one branch.
//
// States form a gap-free sequence per warp slot: `warp_state(..., at, reason)` says the warp is
// in `reason` from cycle `at` until its next `warp_state` or `warp_retired`. `kSelected` means
// it issued `issued` in cycle `at` (and nothing else that cycle). Cycles add up to the SM's
// stall counters (tests check this), so a timeline and the summary tell the same story.
#include <cstdint>

#include "common/dim3.h"
#include "engine/cycle.h"
#include "frontend/kernel_source.h"
#include "stats/stall_reason.h"

namespace warpsim {

class WarpObserver {
 public:
  virtual ~WarpObserver() = default;
  virtual void kernel_started(const KernelInfo& kernel, Cycle start) = 0;
  virtual void kernel_finished(const KernelInfo& kernel, Cycle end) = 0;
  // A warp of CTA `cta` of `kernel` (the object kernel_started named: kernels of streams run
  // side by side) moved into slot `slot` of SM `sm`; it takes part from cycle `first`.
  virtual void warp_launched(uint32_t sm, uint32_t slot, const KernelInfo& kernel, Dim3 cta, uint32_t warp_in_cta, Cycle first) = 0;
  virtual void warp_state(uint32_t sm, uint32_t slot, Cycle at, StallReason reason, const WarpInst* issued) = 0;
  // The warp left its slot; `end` is the first cycle it no longer occupies.
  virtual void warp_retired(uint32_t sm, uint32_t slot, Cycle end) = 0;
};

}  // namespace warpsim
