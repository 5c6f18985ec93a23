#pragma once
// An SM's memory pipeline: the LSU/L1TEX path for global, local and atomic accesses (coalescer,
// sectored L1 with MSHRs, write-through stores) and the MIO path for shared and constant memory
// (bank conflicts). It tells the SM when loads complete and stores are acknowledged.
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "config/gpu_spec.h"
#include "mem/bandwidth_gate.h"
#include "mem/mem_outbox.h"
#include "mem/sectored_cache.h"
#include "sm/coalescer.h"
#include "sm/sm_stats.h"

namespace warpsim {

class LoadStoreClient {
 public:
  virtual ~LoadStoreClient() = default;
  virtual void load_done(uint32_t warp, std::span<const RegId> dsts, Cycle ready) = 0;
  virtual void store_acked(uint32_t warp) = 0;
  // A bulk copy's bytes have all arrived: they complete that many transaction bytes on the
  // mbarrier at `mbarrier` (a shared-memory address of the warp's CTA).
  // `multicast`: 0 for the warp's own CTA, else the cluster ranks whose mbarriers take the bytes.
  virtual void bulk_copy_done(uint32_t warp, uint32_t mbarrier, uint32_t bytes, uint16_t multicast, Cycle ready) = 0;
};

class LoadStoreUnit {
 public:
  LoadStoreUnit(uint16_t sm_id, const GpuSpec& spec, MemOutbox& memory, SmStats& stats, LoadStoreClient& client);

  void start_kernel(uint32_t l1_bytes);

  // Cycle from which the LSU can take `inst` (now if it can already); kNever while the MSHRs
  // are full (a response frees them).
  Cycle lsu_available(const WarpInst& inst, Cycle now);
  Cycle mio_available(Cycle now) const;

  // Issue paths. Loads either set `ready` (the data's cycle, when nothing must be fetched) and
  // return false, or return true when the result will come through load_done().
  bool issue_global_load(const WarpInst& inst, uint32_t warp, Cycle now, Cycle& ready);
  // Returns the number of acknowledgements the warp must wait for.
  uint32_t issue_global_store(const WarpInst& inst, uint32_t warp, Cycle now);
  bool issue_atomic(const WarpInst& inst, uint32_t warp, Cycle now, Cycle& ready, uint32_t& acks);
  // cp.async.bulk: each active lane copies inst.mbar.tx_bytes from its address, read from L2 by
  // the SM's copy engine (not through L1 or its tag stage); completion goes to bulk_copy_done().
  void issue_bulk_copy(const WarpInst& inst, uint32_t warp, Cycle now);
  // cp.async.bulk.global.shared::cta: each active lane writes inst.mbar.tx_bytes from shared
  // memory to L2 at its address; returns the acknowledgements the warp must wait for.
  uint32_t issue_bulk_store(const WarpInst& inst, uint32_t warp, Cycle now);
  // Shared/constant/param/shuffle through MIO; returns when a load's data is ready.
  // `cluster_rank`: the issuing CTA's rank in its cluster, which tells a .shared::cluster
  // access to the CTA's own shared memory from one that crosses the SM-to-SM network.
  Cycle issue_mio(const WarpInst& inst, Cycle now, uint32_t cluster_rank = 0);

  void on_response(const MemResponse& r, Cycle now);
  size_t mshr_in_use() const { return mshr_.size(); }
  uint64_t l1_bytes() const { return l1_bytes_; }

 private:
  struct Token {
    uint32_t warp = 0;
    uint32_t pending = 0;
    Cycle floor = 0;  // not before the L1 hit path delivers
    std::vector<RegId> dsts;
    bool bulk = false;      // a bulk copy: completes `bytes` on `mbarrier` instead of registers
    uint32_t mbarrier = 0, bytes = 0;
    uint16_t multicast = 0;  // MbarrierUse::multicast
  };
  struct MshrEntry {
    uint32_t requested = 0;  // sectors asked of L2 and not yet back
    bool evict_first = true; // every load waiting on it was .cs/.lu: the fill is the next to go
    std::vector<std::pair<uint32_t, uint32_t>> waiters;  // token, sectors still missing
  };
  static constexpr uint32_t kDirectToken = 0x80000000u;  // response goes straight to a token, not via L1

  uint32_t new_token(uint32_t warp, const WarpInst& inst, Cycle floor);
  void finish_part(uint32_t token, Cycle now);
  Cycle lsu_start(size_t lines, Cycle now);

  uint16_t sm_id_;
  const GpuSpec& spec_;
  MemOutbox& memory_;
  SmStats& stats_;
  LoadStoreClient& client_;
  SectoredCache l1_;
  uint64_t l1_bytes_ = 0;
  BandwidthGate lsu_gate_;  // L1 tag stage: lines per cycle
  BandwidthGate mio_gate_;  // shared-memory wavefronts per cycle
  BandwidthGate dsmem_gate_;  // the SM's port into the SM-to-SM network: bytes per cycle
  std::unordered_map<uint64_t, MshrEntry> mshr_;
  std::vector<Token> tokens_;
  std::vector<uint32_t> free_tokens_;
  std::vector<LineAccess> lines_;  // scratch
};

}  // namespace warpsim
