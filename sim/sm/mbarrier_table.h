#pragma once
// The timing side of one CTA's mbarriers (PTX ISA, "Parallel synchronization and communication
// instructions: mbarrier"). A phase completes when its pending arrivals reach zero and its
// transaction count is back to zero; then the next phase starts with the expected count again.
//
// The frontend has already run the barrier functionally and tells, per instruction, what it
// contributed (WarpInst::mbar). Here the same contributions are replayed in the order the timing
// model issues arrivals and lands bulk-copy bytes, so a phase completes at the cycle its last
// contribution does in the model, and a wait the frontend saw succeed cannot finish earlier.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/cycle.h"
#include "frontend/warp_inst.h"

namespace warpsim {

// What one instruction (or a copy landing) does to an mbarrier: bytes expected (expect_tx), bytes
// landed (complete_tx), then arrivals; `drop` (arrive_drop) also takes the arrivals out of every
// later phase's expected count.
struct MbarrierSignal {
  uint32_t address = 0;
  uint32_t arrivals = 0;
  uint32_t tx_expected = 0;
  uint32_t tx_landed = 0;
  bool drop = false;
};

class MbarrierTable {
 public:
  struct Waiter {
    uint32_t warp;   // SM warp slot
    RegId reg;       // the wait's destination predicate
    uint32_t phase;  // it waits for this phase to complete
  };
  // Each completion hands over the waiters it releases.
  using Release = std::vector<std::pair<Waiter, Cycle>>;

  void clear() { barriers_.clear(); }
  // False and `error` set when the address holds no initialised mbarrier or arrivals exceed the
  // expected count: a trace (or frontend) inconsistent with itself.
  bool init(uint32_t address, uint32_t count, std::string& error);
  bool signal(const MbarrierSignal& s, Cycle at, Release& released, std::string& error);
  bool arrive(uint32_t address, uint32_t arrivals, uint32_t tx_bytes, Cycle at, Release& released, std::string& error) {
    return signal(MbarrierSignal{address, arrivals, tx_bytes, 0, false}, at, released, error);
  }
  bool complete_tx(uint32_t address, uint32_t bytes, Cycle at, Release& released, std::string& error) {
    return signal(MbarrierSignal{address, 0, 0, bytes, false}, at, released, error);
  }
  void inval(uint32_t address) { barriers_.erase(address); }
  bool known(uint32_t address, std::string& error) { return find(address, error) != nullptr; }
  // The cycle `phase` completed, or kNever while it has not; in that case `waiter` is queued.
  Cycle wait(uint32_t address, const Waiter& waiter, std::string& error);

 private:
  struct Barrier {
    uint32_t expected = 0, pending = 0;
    int64_t tx = 0;                    // transaction bytes expected and not yet landed
    Cycle latest = 0;                  // the latest cycle a contribution to the open phase counts at
    std::vector<Cycle> completed_at;   // per completed phase
    std::vector<Waiter> waiters;
  };
  Barrier* find(uint32_t address, std::string& error);
  void maybe_complete(Barrier& b, Cycle at, Release& released);

  std::unordered_map<uint32_t, Barrier> barriers_;
};

}  // namespace warpsim
