#include "sm/load_store_unit.h"

#include <algorithm>
#include <array>
#include <bit>

#include "common/bit_count.h"
#include "sm/dsmem.h"
#include "sm/shared_banks.h"

namespace warpsim {
namespace {

// Calls f(line, sectors, bytes) for each line the bytes [from, to) touch, with the sectors they
// cover and how many of the bytes fall in it (the copy engine's transfers: whole ranges, not one
// address per lane).
template <class F>
void for_each_line(uint64_t from, uint64_t to, const MemorySpec& m, F&& f) {
  for (uint64_t line = from / m.line_bytes; line * m.line_bytes < to; ++line) {
    const uint64_t begin = std::max<uint64_t>(from, line * m.line_bytes), end = std::min<uint64_t>(to, (line + 1) * m.line_bytes);
    uint32_t sectors = 0;
    for (uint64_t s = (begin % m.line_bytes) / m.sector_bytes; s * m.sector_bytes < end - line * m.line_bytes; ++s) sectors |= 1u << s;
    f(line, sectors, end - begin);
  }
}

}  // namespace

LoadStoreUnit::LoadStoreUnit(uint16_t sm_id, const GpuSpec& spec, MemOutbox& memory, SmStats& stats,
                             LoadStoreClient& client)
    : sm_id_(sm_id),
      spec_(spec),
      memory_(memory),
      stats_(stats),
      client_(client),
      l1_(0, spec.memory.l1.associativity, spec.memory.line_bytes, spec.memory.sector_bytes, false),
      lsu_gate_(double(spec.memory.l1.tag_lookups_per_clk)),
      mio_gate_(1.0),
      dsmem_gate_(double(std::max<uint32_t>(1, spec.clusters.dsmem_bytes_per_clk_per_sm))) {}

void LoadStoreUnit::start_kernel(uint32_t l1_bytes) {
  // L1 is not coherent and is invalidated at kernel boundaries (CUDA-PG memory model).
  l1_ = SectoredCache(l1_bytes, spec_.memory.l1.associativity, spec_.memory.line_bytes, spec_.memory.sector_bytes, false);
  l1_bytes_ = l1_bytes;
}

Cycle LoadStoreUnit::lsu_available(const WarpInst& inst, Cycle now) {
  const auto& l1 = spec_.memory.l1;
  if (mshr_.size() + 32 > l1.mshr_lines && inst.op->op_class == OpClass::kLoad) return kNever;
  Cycle backlog = lsu_gate_.backlog(now);
  if (backlog < l1.lsu_queue_lines) return now;
  return now + (backlog - l1.lsu_queue_lines) + 1;
}

Cycle LoadStoreUnit::mio_available(Cycle now) const {
  Cycle backlog = mio_gate_.backlog(now);
  uint32_t limit = spec_.memory.shared.mio_queue_cycles;
  return backlog < limit ? now : now + (backlog - limit) + 1;
}

uint32_t LoadStoreUnit::new_token(uint32_t warp, const WarpInst& inst, Cycle floor) {
  uint32_t id;
  if (!free_tokens_.empty()) {
    id = free_tokens_.back();
    free_tokens_.pop_back();
  } else {
    id = static_cast<uint32_t>(tokens_.size());
    tokens_.emplace_back();
  }
  Token& t = tokens_[id];
  t.warp = warp;
  t.pending = 0;
  t.floor = floor;
  t.dsts.assign(inst.regs, inst.regs + inst.num_dst);
  t.bulk = false;
  return id;
}

void LoadStoreUnit::finish_part(uint32_t id, Cycle now) {
  Token& t = tokens_[id];
  if (--t.pending > 0) return;
  if (t.bulk) {
    client_.bulk_copy_done(t.warp, t.mbarrier, t.bytes, t.multicast, std::max(now, t.floor));
  } else {
    client_.load_done(t.warp, t.dsts, std::max(now, t.floor));
  }
  free_tokens_.push_back(id);
}

Cycle LoadStoreUnit::lsu_start(size_t lines, Cycle now) {
  // The tag stage handles tag_lookups_per_clk lines per cycle; serve() returns when the last
  // line has been looked up.
  stats_.l1_tag_lookups += lines;
  return lsu_gate_.serve(now, lines);
}

bool LoadStoreUnit::issue_global_load(const WarpInst& inst, uint32_t warp, Cycle now, Cycle& ready) {
  const auto& m = spec_.memory;
  coalesce(inst, m.line_bytes, m.sector_bytes, lines_);
  Cycle looked_up = lsu_start(lines_.size(), now);
  Cycle data = looked_up + m.l1.hit_latency - 1;
  // Texture fetches and surface loads go through L1TEX like loads, counted apart as Nsight Compute
  // counts them (pipe tex).
  const TexPath path = inst.op->tex_path;
  ++(path == TexPath::kTexture ? stats_.texture_load_requests : path == TexPath::kSurface ? stats_.surface_load_requests : stats_.global_load_requests);
  uint64_t& sectors = path == TexPath::kTexture ? stats_.texture_load_sectors : path == TexPath::kSurface ? stats_.surface_load_sectors : stats_.global_load_sectors;
  if (inst.op->bypass_l1) {
    uint32_t token = new_token(warp, inst, data);
    for (const auto& la : lines_) {
      sectors += static_cast<uint64_t>(bit_count(la.sectors));
      stats_.l1_sector_misses += static_cast<uint64_t>(bit_count(la.sectors));
      ++tokens_[token].pending;
      MemRequest req{la.line, la.sectors, token | kDirectToken, sm_id_, MemOp::kRead};
      req.evict_first = inst.op->evict_first;
      memory_.send(req, data);
    }
    return true;
  }
  uint32_t token = UINT32_MAX;
  for (const auto& la : lines_) {
    sectors += static_cast<uint64_t>(bit_count(la.sectors));
    int way = l1_.find(la.line);
    uint32_t present = way >= 0 ? l1_.valid_sectors(la.line, way) : 0;
    uint32_t hit = la.sectors & present, miss = la.sectors & ~present;
    stats_.l1_sector_hits += static_cast<uint64_t>(bit_count(hit));
    stats_.l1_sector_misses += static_cast<uint64_t>(bit_count(miss));
    if (way >= 0) l1_.use(la.line, way, inst.op->evict_first);
    if (!miss) continue;
    if (token == UINT32_MAX) token = new_token(warp, inst, data);
    MshrEntry& e = mshr_[la.line];
    e.evict_first = e.evict_first && inst.op->evict_first;
    uint32_t to_request = miss & ~e.requested;
    stats_.l1_mshr_merges += static_cast<uint64_t>(bit_count(miss & e.requested));
    if (to_request) {
      e.requested |= to_request;
      MemRequest req{la.line, to_request, 0, sm_id_, MemOp::kRead};
      req.evict_first = inst.op->evict_first;
      memory_.send(req, data);
    }
    e.waiters.emplace_back(token, miss);
    ++tokens_[token].pending;
  }
  if (token == UINT32_MAX) {
    ready = data;
    return false;
  }
  return true;
}

void LoadStoreUnit::issue_bulk_copy(const WarpInst& inst, uint32_t warp, Cycle now) {
  const auto& m = spec_.memory;
  const MbarrierUse& use = inst.mbar;
  inst.for_each_address([&](int, uint64_t a) {
    ++stats_.bulk_copies;
    // Floor: the data are written to shared memory after they arrive (one shared access).
    const Cycle floor = now + m.shared.latency;
    uint32_t token = new_token(warp, inst, floor);
    Token& t = tokens_[token];
    t.bulk = true, t.mbarrier = use.address, t.bytes = use.tx_bytes, t.multicast = use.multicast;
    use.for_each_row(a, [&](uint64_t from, uint64_t bytes) {
      for_each_line(from, from + bytes, m, [&](uint64_t line, uint32_t sectors, uint64_t) {
        stats_.bulk_copy_sectors += static_cast<uint64_t>(bit_count(sectors));
        ++tokens_[token].pending;
        memory_.send(MemRequest{line, sectors, token | kDirectToken, sm_id_, MemOp::kRead}, now + 1);
      });
    });
    if (tokens_[token].pending == 0) {  // a box wholly out of bounds: zeros, nothing to read
      ++tokens_[token].pending;
      finish_part(token, floor);
    }
  });
}

uint32_t LoadStoreUnit::issue_bulk_store(const WarpInst& inst, uint32_t warp, Cycle now) {
  const auto& m = spec_.memory;
  uint32_t acks = 0;
  inst.for_each_address([&](int, uint64_t a) {
    ++stats_.bulk_copies;
    // The copy engine reads shared memory first (one shared access), then writes each line's
    // sectors to L2, past L1 (a tensor store: its box's in-bounds rows).
    const Cycle sent = now + m.shared.latency;
    // A reduction's sectors are combined by L2's atomic unit, one operation per element.
    const bool reduce = inst.op->bulk_reduce;
    const uint32_t elem = std::max<uint32_t>(1, inst.mbar.elem_bytes ? inst.mbar.elem_bytes : inst.op->access_bytes);
    inst.mbar.for_each_row(a, [&](uint64_t from, uint64_t bytes) {
      for_each_line(from, from + bytes, m, [&](uint64_t line, uint32_t sectors, uint64_t inside) {
        stats_.bulk_copy_sectors += static_cast<uint64_t>(bit_count(sectors));
        MemRequest req{line, sectors, warp, sm_id_, reduce ? MemOp::kReduce : MemOp::kWrite};
        if (reduce) {
          req.ops = static_cast<uint8_t>(std::clamp<uint64_t>(inside / elem, 1, 255));
          req.updates = static_cast<uint8_t>(std::max(1, bit_count(sectors)));  // distinct elements: one update per sector
        }
        memory_.send(req, sent);
        ++acks;
      });
    });
  });
  return acks;
}

uint32_t LoadStoreUnit::issue_global_store(const WarpInst& inst, uint32_t warp, Cycle now) {
  const auto& m = spec_.memory;
  coalesce(inst, m.line_bytes, m.sector_bytes, lines_);
  Cycle looked_up = lsu_start(lines_.size(), now);
  const bool surface = inst.op->tex_path == TexPath::kSurface;  // sust: counted apart (Nsight Compute's pipe tex)
  ++(surface ? stats_.surface_store_requests : stats_.global_store_requests);
  uint64_t& sectors = surface ? stats_.surface_store_sectors : stats_.global_store_sectors;
  for (const auto& la : lines_) {
    sectors += static_cast<uint64_t>(bit_count(la.sectors));
    // Write-through, no allocate: a line already in L1 is updated in place.
    int way = l1_.find(la.line);
    if (way >= 0) l1_.fill(la.line, way, la.sectors, looked_up);
    MemRequest req{la.line, la.sectors, warp, sm_id_, MemOp::kWrite};
    req.evict_first = inst.op->evict_first;  // st.cs: streaming, evict-first in L2
    memory_.send(req, looked_up);
  }
  return static_cast<uint32_t>(lines_.size());
}

bool LoadStoreUnit::issue_atomic(const WarpInst& inst, uint32_t warp, Cycle now, Cycle& ready, uint32_t& acks) {
  const auto& m = spec_.memory;
  coalesce(inst, m.line_bytes, m.sector_bytes, lines_);
  Cycle looked_up = lsu_start(lines_.size(), now);
  ++stats_.atomic_requests;
  acks = 0;
  bool returns = inst.op->op_class == OpClass::kAtomic;
  uint32_t token = returns ? new_token(warp, inst, looked_up) : 0;
  for (const auto& la : lines_) {
    // Atomics are performed at L2 (drop any stale L1 copy), one operation per active lane; the
    // atomic unit takes a sector's distinct words in one update and repeats it for each lane
    // more on the same word (the most-used word of each sector sets its count).
    uint32_t ops = 0;
    std::array<uint8_t, 32> sector_updates{};  // a line has at most 32 sectors (config check)
    std::array<uint64_t, 32> words{};  // the addresses of this line's lanes so far (one per active lane)
    inst.for_each_address([&](int, uint64_t a) {
      if (a / m.line_bytes != la.line) return;
      uint8_t same = 1;
      for (uint32_t i = 0; i < ops; ++i) same += words[i] == a;
      words[ops] = a;
      const auto sector = static_cast<uint32_t>(a % m.line_bytes / m.sector_bytes);
      sector_updates[sector] = std::max(sector_updates[sector], same);
      ++ops;
    });
    const auto lane_ops = static_cast<uint8_t>(std::max<uint32_t>(1, ops));
    uint32_t updates = 0;
    for (uint8_t u : sector_updates) updates += u;
    MemRequest req{la.line, la.sectors, returns ? token | kDirectToken : warp, sm_id_, returns ? MemOp::kAtomic : MemOp::kReduce, lane_ops};
    req.updates = static_cast<uint8_t>(std::clamp<uint32_t>(updates, 1, 255));
    if (returns) {
      ++tokens_[token].pending;
    } else {
      ++acks;
    }
    memory_.send(req, looked_up);
  }
  if (returns && lines_.empty()) {
    free_tokens_.push_back(token);
    ready = looked_up;
    return false;
  }
  return returns;
}

Cycle LoadStoreUnit::issue_mio(const WarpInst& inst, Cycle now, uint32_t cluster_rank) {
  const auto& m = spec_.memory;
  const OpInfo& op = *inst.op;
  uint32_t passes = 1, latency = m.shared.latency;
  if (op.space == MemSpace::kSharedCluster && inst.active_mask) {
    const DsmemAccess d = classify_dsmem(inst, cluster_rank);
    if (d.remote) {
      // One MIO pass hands the request to the SM-to-SM network, whose port moves the segments;
      // the remote SM's banks are not modelled (their conflicts are not charged).
      ++stats_.dsmem_requests;
      stats_.dsmem_segments += d.segments;
      ++stats_.mio_wavefronts;
      const Cycle handed = mio_gate_.serve(now, 1);
      const Cycle sent = dsmem_gate_.serve(handed, uint64_t{d.segments} * 32);
      return sent + spec_.clusters.dsmem_latency - 1;
    }
  }
  if ((op.space == MemSpace::kShared || op.space == MemSpace::kSharedCluster) && inst.active_mask) {
    const SharedPasses p = shared_passes(inst, m.shared.banks, m.shared.bank_bytes);
    passes = p.wavefronts;
    bool load = op.op_class == OpClass::kLoad || op.op_class == OpClass::kAtomic;
    (load ? stats_.shared_load_requests : stats_.shared_store_requests)++;
    (load ? stats_.shared_load_wavefronts : stats_.shared_store_wavefronts) += passes;
    (load ? stats_.shared_load_ideal_wavefronts : stats_.shared_store_ideal_wavefronts) += p.ideal;
  } else if (op.space == MemSpace::kConst || op.space == MemSpace::kParam) {
    passes = inst.addr.list || inst.addr.stride ? distinct_addresses(inst) : 1;
    latency = m.constant.latency;
  }
  stats_.mio_wavefronts += passes;
  Cycle done = mio_gate_.serve(now, passes);
  return done + latency - 1;
}

void LoadStoreUnit::on_response(const MemResponse& r, Cycle now) {
  if (r.op == MemOp::kWrite || r.op == MemOp::kReduce) {
    client_.store_acked(r.token);
    return;
  }
  if (r.token & kDirectToken) {
    finish_part(r.token & ~kDirectToken, now);
    return;
  }
  // An L1 fill: install the sectors, then wake every load that waited for them.
  int way = l1_.find(r.line);
  if (way < 0) {
    SectoredCache::Victim victim;
    way = l1_.allocate(r.line, victim);
  }
  if (way >= 0) l1_.fill(r.line, way, r.sectors, now);
  auto it = mshr_.find(r.line);
  if (it == mshr_.end()) return;
  MshrEntry& e = it->second;
  if (way >= 0 && e.evict_first) l1_.demote(r.line, way);
  e.requested &= ~r.sectors;
  size_t keep = 0;
  for (auto& [token, missing] : e.waiters) {
    missing &= ~r.sectors;
    if (missing == 0) {
      finish_part(token, now);
    } else {
      e.waiters[keep++] = {token, missing};
    }
  }
  e.waiters.resize(keep);
  if (e.requested == 0 && e.waiters.empty()) mshr_.erase(it);
}

}  // namespace warpsim
