#pragma once
// One HBM channel: banks with an open row each (open-page policy), the activate / precharge /
// column-access timings, the activation window (tRRD, tFAW), refresh, and a data bus shared by
// the banks. Requests are
// served in the order the controller hands them over (dram_controller.h picks it: FR-FCFS or
// FCFS); banks overlap their row operations with each other's data transfers.
#include <cstdint>
#include <vector>

#include "engine/cycle.h"
#include "mem/bus_calendar.h"

namespace warpsim {

// Timings in core cycles (converted from the config's nanoseconds at the core clock).
struct DramTiming {
  uint32_t banks = 16;
  Cycle rcd = 0;   // activate to column command
  Cycle rp = 0;    // precharge to activate
  Cycle cl = 0;    // column command to first data
  Cycle ras = 0;   // activate to precharge, at least
  Cycle refi = 0;  // refresh interval (0: no refresh)
  Cycle rfc = 0;   // refresh duration: the refreshed bank is busy and its row closes
  bool per_bank_refresh = false;  // banks take turns, staggered by refi / banks; else all at once
  // Activations share a pseudo-channel's power budget: two activates at least rrd apart, at
  // most four in any faw window (0: no limit). Banks split evenly into `activate_groups`
  // pseudo-channels, each with its own budget.
  Cycle rrd = 0;
  Cycle faw = 0;
  uint32_t activate_groups = 1;
};

class DramChannel {
 public:
  enum class RowResult : uint8_t { kHit, kEmpty, kConflict };
  struct Stats {
    uint64_t row_hits = 0, row_empty = 0, row_conflicts = 0;
    uint64_t refresh_wait_cycles = 0;  // cycles requests waited for a refresh to end
    uint64_t activate_wait_cycles = 0;  // cycles activates waited for tRRD / tFAW
  };

  DramChannel(double bytes_per_cycle, const DramTiming& timing);

  // Moves `bytes` of `row` in `bank` for a request reaching the controller at `arrival`; returns
  // the cycle the last byte crosses the bus.
  Cycle access(Cycle arrival, uint32_t bank, uint64_t row, uint64_t bytes, RowResult* result = nullptr);

  const Stats& stats() const { return stats_; }
  uint32_t banks() const { return static_cast<uint32_t>(banks_.size()); }
  // The first cycle at which `bank` can take its next column command.
  Cycle bank_ready(uint32_t bank) const { return (banks_[bank].ready + kScale - 1) / kScale; }
  // The row open in `bank` at cycle `at` (a refresh since the last access has closed it), or
  // kNoRow (~0: no row has that index).
  uint64_t open_row(uint32_t bank, Cycle at) const {
    // refreshes_before(t) <= b.refreshes, without its division: t lies before the start of the
    // refresh window after the ones the bank has seen.
    const Bank& b = banks_[bank];
    const uint64_t refi = timing_.refi * kScale;
    return b.row != kNoRow && (refi == 0 || at * kScale < refresh_offset(bank) + (b.refreshes + 1) * refi) ? b.row : kNoRow;
  }
  static constexpr uint64_t kNoRow = ~uint64_t{0};

 private:
  // Times below are in 2^-20 cycle (BusCalendar's unit), so that back-to-back transfers of a
  // fractional number of cycles each do not round up one by one.
  static constexpr uint64_t kScale = BusCalendar::kScale;
  struct Bank {
    uint64_t row = kNoRow;
    uint64_t ready = 0;      // the bank can take its next column command
    uint64_t activated = 0;  // when the open row was activated (tRAS)
    uint64_t refreshes = 0;  // refresh windows seen: a newer one has closed the row
  };
  // Bank `b` is refreshed during [offset + k refi, offset + k refi + rfc) for k >= 1.
  uint64_t refresh_offset(uint32_t b) const { return timing_.per_bank_refresh ? timing_.refi * kScale * b / banks_.size() : 0; }
  // The first time at or after `t` outside bank b's refresh windows.
  uint64_t outside_refresh(uint64_t t, uint32_t b) const;
  // The first time at or after `t` (2^-20 cycles) when bank b's pseudo-channel may activate
  // under tRRD and tFAW; records that activate.
  uint64_t book_activate(uint64_t t, uint32_t b);
  uint64_t refreshes_before(uint64_t t, uint32_t b) const {
    const uint64_t offset = refresh_offset(b), refi = timing_.refi * kScale;
    return refi && t >= offset + refi ? (t - offset) / refi : 0;
  }

  DramTiming timing_;
  BusCalendar bus_;
  std::vector<Bank> banks_;
  // Per pseudo-channel: recent activates, sorted; those before `first` are forgotten
  // (common/drop_forgotten.h).
  struct Activates {
    std::vector<uint64_t> times;
    size_t first = 0;
  };
  std::vector<Activates> activates_;
  Stats stats_;
};

}  // namespace warpsim
