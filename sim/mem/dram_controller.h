#pragma once
// One HBM channel's controller: the requests waiting for their bank, and the policy that picks
// which one a bank serves next. The channel (dram_channel.h) owns the banks, rows, timings and
// the bus; this decides the order.
//
// A bank takes its next request when it can take a command (dram_channel.h's `ready`) and one has
// arrived. FR-FCFS (Rixner et al., ISCA 2000) serves the oldest request to the bank's open row
// first, else the oldest; FCFS serves the oldest. Only the `window` oldest requests handed to the
// channel (by arrival time, whether or not that time has come) are candidates: the scheduler's
// queue is finite, and a request beyond it waits outside in arrival order (so a run of row hits
// cannot pass more than `window` older requests).
#include <cstdint>
#include <deque>
#include <vector>

#include "engine/cycle.h"
#include "mem/dram_channel.h"

namespace warpsim {

enum class DramPolicy : uint8_t { kFrFcfs, kFcfs };

class DramController {
 public:
  struct Request {
    Cycle arrival = 0;  // reaches the controller
    uint32_t bank = 0;
    uint64_t row = 0;
    uint64_t bytes = 0;
    uint64_t tag = 0;  // the owner's handle, returned when the request is issued
  };
  struct Issued {
    uint64_t tag;
    Cycle done;  // the last byte has crossed the bus
  };
  struct Stats {
    uint64_t reordered = 0;   // row hits served ahead of an older request to the same bank
    uint64_t queue_cycles = 0;  // summed cycles from arrival to the bank taking the request
  };

  DramController(double bytes_per_cycle, const DramTiming& timing, DramPolicy policy, uint32_t window);

  // `arrival` must not lie before the last cycle passed to issue_until (requests reach the
  // controller in the future of the memory side's clock, never its past).
  void enqueue(const Request& request);
  // Lets every bank whose turn comes at or before `now` take its request, in time order, and
  // appends what was issued.
  void issue_until(Cycle now, std::vector<Issued>& issued);
  // The cycle of the next bank's turn (kNever when nothing waits). May be early after an
  // enqueue (a spurious turn issues nothing), never late.
  Cycle next_decision() const { return next_; }
  size_t waiting() const { return in_window_ + outside_.size(); }

  const DramChannel::Stats& channel_stats() const { return channel_.stats(); }
  const Stats& stats() const { return stats_; }

 private:
  struct Waiting {
    Request request;
    uint64_t sequence;  // arrival order among requests with the same arrival cycle
  };
  template <typename Queue>
  static void insert_sorted(Queue& q, const Waiting& w);
  void admit(const Waiting& w);
  void update_bank_turn(uint32_t bank);
  // The earliest turn among banks with a candidate: {cycle, bank}; {kNever, 0} if none.
  std::pair<Cycle, uint32_t> next_turn() const;
  // Index into the bank's queue of the request it takes at `turn`.
  size_t choose(uint32_t bank, Cycle turn) const;

  DramChannel channel_;
  DramPolicy policy_;
  uint32_t window_;
  uint32_t banks_;
  // The window: the oldest `window_` requests, per bank, each sorted by (arrival, sequence);
  // the rest wait outside in the same order.
  std::vector<std::vector<Waiting>> queues_;
  std::deque<Waiting> outside_;
  uint32_t in_window_ = 0;
  // No request in the window is younger than this one (it may have left: a bound, made exact
  // whenever a request older than it arrives).
  Waiting youngest_bound_{};
  std::vector<Cycle> bank_turn_;  // per bank: max(ready, first candidate's arrival); kNever if none
  uint64_t sequence_ = 0;
  Cycle last_turn_ = 0;  // decisions are made in time order
  Cycle next_ = kNever;
  Stats stats_;
};

}  // namespace warpsim
