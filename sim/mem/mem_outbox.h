#pragma once
// An SM's door to the memory side. While the SM ticks (possibly on another host thread than
// its peers) the requests it sends wait here; they go to the memory side once its tick is over,
// in the order sent, with the other SMs' in a fixed order (gpu/sm_batch.h). The memory side
// only sees a request after the interconnect's latency, so holding it to the end of the cycle
// changes nothing it computes.
#include <utility>
#include <vector>

#include "mem/memory_system.h"

namespace warpsim {

class MemOutbox {
 public:
  explicit MemOutbox(MemorySystem& memory) : memory_(memory) {}

  void send(const MemRequest& request, Cycle depart) {
    if (holding_) {
      held_.emplace_back(request, depart);
    } else {
      memory_.send(request, depart);
    }
  }
  void hold() { holding_ = true; }
  // Sends what was held, in order, and stops holding.
  void release() {
    holding_ = false;
    for (const auto& [request, depart] : held_) memory_.send(request, depart);
    held_.clear();
  }

 private:
  MemorySystem& memory_;
  bool holding_ = false;
  std::vector<std::pair<MemRequest, Cycle>> held_;
};

}  // namespace warpsim
