#pragma once
// Several observers watching one run (a timeline and a divergence view together).
#include <vector>

#include "observe/warp_observer.h"

namespace warpsim {

class ObserverFanout : public WarpObserver {
 public:
  void add(WarpObserver* o) { all_.push_back(o); }
  bool empty() const { return all_.empty(); }
  void kernel_started(const KernelInfo& k, Cycle c) override { for (auto* o : all_) o->kernel_started(k, c); }
  void kernel_finished(const KernelInfo& k, Cycle c) override { for (auto* o : all_) o->kernel_finished(k, c); }
  void warp_launched(uint32_t sm, uint32_t slot, const KernelInfo& k, Dim3 cta, uint32_t w, Cycle c) override {
    for (auto* o : all_) o->warp_launched(sm, slot, k, cta, w, c);
  }
  void warp_state(uint32_t sm, uint32_t slot, Cycle at, StallReason r, const WarpInst* in) override {
    for (auto* o : all_) o->warp_state(sm, slot, at, r, in);
  }
  void warp_retired(uint32_t sm, uint32_t slot, Cycle end) override { for (auto* o : all_) o->warp_retired(sm, slot, end); }

 private:
  std::vector<WarpObserver*> all_;
};

}  // namespace warpsim
