#include "sm/mbarrier_table.h"

#include <algorithm>

#include "common/format.h"

namespace warpsim {

MbarrierTable::Barrier* MbarrierTable::find(uint32_t address, std::string& error) {
  auto it = barriers_.find(address);
  if (it != barriers_.end()) return &it->second;
  error = "mbarrier at shared " + hex(address) + " is used before mbarrier.init in this CTA";
  return nullptr;
}

bool MbarrierTable::init(uint32_t address, uint32_t count, std::string& error) {
  if (count == 0) {
    error = "mbarrier.init at shared " + hex(address) + " with an expected count of 0 (the PTX ISA requires 1 or more)";
    return false;
  }
  Barrier& b = barriers_[address];
  b = Barrier{};
  b.expected = b.pending = count;
  return true;
}

void MbarrierTable::maybe_complete(Barrier& b, Cycle at, Release& released) {
  // Contributions replay in issue order, but one may count later than the next (a tcgen05.commit
  // arrives when its MMAs finish): the phase completes at the latest of them.
  b.latest = std::max(b.latest, at);
  if (b.pending != 0 || b.tx != 0) return;
  b.completed_at.push_back(b.latest);
  b.latest = 0;
  b.pending = b.expected;
  const auto done = static_cast<uint32_t>(b.completed_at.size());
  auto ready = std::stable_partition(b.waiters.begin(), b.waiters.end(), [&](const Waiter& w) { return w.phase >= done; });
  for (auto it = ready; it != b.waiters.end(); ++it) released.emplace_back(*it, b.completed_at[it->phase]);
  b.waiters.erase(ready, b.waiters.end());
}

bool MbarrierTable::signal(const MbarrierSignal& s, Cycle at, Release& released, std::string& error) {
  Barrier* b = find(s.address, error);
  if (!b) return false;
  // Bytes may land before the matching expect_tx: the count goes negative and the phase waits
  // for the expect_tx (and its arrivals) to bring it back (PTX ISA: tx-count range is signed).
  b->tx += int64_t{s.tx_expected} - int64_t{s.tx_landed};
  if (s.arrivals > b->pending) {
    error = "mbarrier at shared " + hex(s.address) + ": " + std::to_string(s.arrivals) + " arrivals when only " +
            std::to_string(b->pending) + " of its phase are pending";
    return false;
  }
  b->pending -= s.arrivals;
  if (s.drop) b->expected -= s.arrivals;  // expected >= pending >= arrivals
  maybe_complete(*b, at, released);
  return true;
}

Cycle MbarrierTable::wait(uint32_t address, const Waiter& waiter, std::string& error) {
  Barrier* b = find(address, error);
  if (!b) return 0;
  if (waiter.phase < b->completed_at.size()) return b->completed_at[waiter.phase];
  b->waiters.push_back(waiter);
  return kNever;
}

}  // namespace warpsim
