#pragma once
// The memory side shared by all SMs: interconnect (latency + per-SM port bandwidth), L2 slices
// (address-hashed, sectored, write-back, per-slice bandwidth) and HBM channels (bandwidth +
// latency). Requests arrive as messages; data and acknowledgements go back as messages.
//
// L2 partitions (A100 and later): each partition caches for the SMs wired to it; a line another
// partition holds is copied over after the far-partition latency, and lines a partition evicts
// move to the next one (docs/memory-model.md). HBM channels have banks with row buffers,
// activate/precharge/column timings and refresh (dram_channel.h), and a controller that picks
// which waiting request a bank serves next (dram_controller.h: FR-FCFS or FCFS); reads waiting
// for HBM, and the responses waiting for them, are L2's MSHRs (l2_mshrs.h). Atomics read their
// sectors, then each slice's atomic unit performs the lane operations one per clock (configurable).
#include <cstdint>
#include <queue>
#include <vector>

#include "config/gpu_spec.h"
#include "engine/component.h"
#include "engine/engine.h"
#include "mem/arrival_queue.h"
#include "mem/bandwidth_gate.h"
#include "mem/dram_controller.h"
#include "mem/l2_mshrs.h"
#include "mem/mem_request.h"
#include "mem/sectored_cache.h"
#include "stats/stat_registry.h"

namespace warpsim {

class MemorySystem : public Component {
 public:
  MemorySystem(const GpuSpec& spec, Engine& engine, StatRegistry& stats);

  void connect(std::vector<MemResponder*> sms) { sms_ = std::move(sms); }
  // Called by an SM: the request leaves the SM at `depart`.
  void send(const MemRequest& request, Cycle depart);

  Cycle tick(Cycle now) override;
  std::string describe_state() const override;

  uint32_t partition_of_sm(uint32_t sm) const;  // SMs split evenly, in index order
  // The partition whose memory controllers serve the line (channels split evenly, in index
  // order): where its atomics are performed, whichever partition asks.
  uint32_t home_partition(uint64_t line) const;
  uint32_t slice_in(uint64_t line, uint32_t partition) const;
  uint32_t channel_of(uint64_t line) const;
  // Where a line lives inside its channel: a row of row_bytes in each channel holds the lines of
  // one row_bytes x channels stretch of addresses that hash to it; rows spread over the banks.
  uint64_t dram_row_of(uint64_t line) const;
  uint32_t dram_bank_of(uint64_t line) const;
  // Bytes L2 holds dirty now (all partitions): stores it has absorbed and not yet written to HBM.
  uint64_t l2_dirty_bytes() const;

 private:
  static constexpr uint64_t kWriteTag = ~uint64_t{0};  // a write-back: nothing waits for it
  void handle(const MemRequest& r, Cycle now);
  // Looks up (and on a miss fetches) `sectors` of `line` for `response`: what is in L2 or on its
  // way at a known time moves the response's data time; sectors HBM has still to deliver make it
  // wait for their fetch.
  void read_sectors(uint64_t line, uint32_t sectors, Cycle lookup_done, uint32_t partition, bool evict_first, uint32_t response);
  // Answers a response whose data is all there (or known to arrive): atomics take their turn at
  // the slice's atomic unit first.
  void finish(uint32_t response);
  // A sector's ready time as the slice holds it, with a fetch's mark replaced by the fetch's
  // arrival once its bank has taken it (still the mark before then).
  Cycle arrival(Cycle ready) const;
  void evict(const SectoredCache::Victim& victim, Cycle when, uint32_t partition);
  void drop_other_copies(uint64_t line, uint32_t partition);
  void write_back(const SectoredCache::Victim& victim, Cycle when);
  void dram_enqueue(uint64_t line, Cycle arrival, uint64_t bytes, uint64_t tag);
  // Lets channel c's banks take the requests whose turn has come by `now`, and answers those waiting.
  void issue_dram(uint32_t c, Cycle now);
  void update_turn(uint32_t c);
  void respond(const MemRequest& r, Cycle leave_l2, uint32_t data_sectors);

  const GpuSpec& spec_;
  Engine& engine_;
  std::vector<MemResponder*> sms_;
  // Requests crossing the interconnect, by arrival then send order. A window of 512 cycles holds
  // the latency and the SM ports' usual backlog; a larger one spreads its buckets over more of the
  // host's cache (with 4096, cachegrind counted 1.5% more last-level write misses in the bench).
  ArrivalQueue<MemRequest> inbox_{9};

  uint32_t partitions_ = 1, slices_per_partition_ = 1;
  std::vector<uint32_t> sm_partition_;
  std::vector<SectoredCache> slices_;  // partition p owns slices [p x slices/partitions, (p + 1) x ...)
  std::vector<BandwidthGate> slice_ports_;
  // Per slice, the port serving copies to the other partitions. Kept apart from slice_ports_
  // because a far lookup reserves it only after the requester's own lookup (in the future of the
  // requests its slice is taking now): on one busy-until server that reservation would hold up
  // every later near request to the slice (a 2-5x collapse of re-reading data larger than L2).
  std::vector<BandwidthGate> far_ports_;
  std::vector<BandwidthGate> atomic_units_;  // per slice: lane operations per clock
  std::vector<DramController> channels_;
  L2Mshrs mshrs_;
  Cycle now_ = 0;  // the cycle being handled
  // (next decision, channel) of channels with requests waiting, smallest first. An entry whose
  // cycle is no longer its channel's channel_turn_ is stale and skipped (cheaper than a tree).
  std::priority_queue<std::pair<Cycle, uint32_t>, std::vector<std::pair<Cycle, uint32_t>>, std::greater<>> turns_;
  std::vector<Cycle> channel_turn_;  // per channel: its live entry in turns_, or kNever
  // The earliest live entry of turns_ ({kNever, 0} if none), dropping stale ones on the way.
  std::pair<Cycle, uint32_t> next_turn();
  std::vector<DramController::Issued> issued_;  // scratch
  L2Mshrs::Waiters waiters_;                     // scratch
  std::vector<BandwidthGate> sm_request_ports_;
  std::vector<BandwidthGate> sm_response_ports_;

  struct Stats {
    uint64_t requests = 0, sector_reads = 0, sector_read_hits = 0, sector_writes = 0, atomics = 0, atomic_ops = 0, far_sector_hits = 0;
    uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
    uint64_t slice_busy_cycles = 0;
  };
  Stats stats_;
  std::vector<uint64_t> channel_bytes_;
};

}  // namespace warpsim
