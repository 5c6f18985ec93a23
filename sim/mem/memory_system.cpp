#include "mem/memory_system.h"

#include <bit>
#include <cmath>
#include <sstream>

#include "common/bit_count.h"

namespace warpsim {
namespace {
// Mixes address bits so that power-of-two strides spread over slices and channels, as the
// hardware's (unpublished) hash functions do.
uint64_t mix(uint64_t x) {
  x ^= x >> 17;
  x *= 0xed5ad4bbULL;
  x ^= x >> 11;
  x *= 0xac4c1b51ULL;
  x ^= x >> 15;
  return x;
}
}  // namespace

MemorySystem::MemorySystem(const GpuSpec& spec, Engine& engine, StatRegistry& stats)
    : Component("gpu.mem", kMemoryPriority), spec_(spec), engine_(engine) {
  const auto& m = spec.memory;
  partitions_ = std::max<uint32_t>(1, m.l2.partitions);
  slices_per_partition_ = m.l2.slices / partitions_;
  for (uint32_t sm = 0; sm < spec.topology.sms; ++sm) sm_partition_.push_back(static_cast<uint32_t>(uint64_t{sm} * partitions_ / spec.topology.sms));
  uint64_t slice_bytes = m.l2.size_bytes / m.l2.slices;
  for (uint32_t i = 0; i < m.l2.slices; ++i) {
    slices_.emplace_back(slice_bytes, m.l2.associativity, m.line_bytes, m.sector_bytes, true);
    slice_ports_.emplace_back(double(m.l2.bytes_per_clk_per_slice));
    far_ports_.emplace_back(double(m.l2.bytes_per_clk_per_slice));  // assumed: the slice's own rate
    atomic_units_.emplace_back(m.l2.atomic_ops_per_clk_per_slice);
  }
  double channel_bytes_per_cycle = m.hbm.peak_bytes_per_second() / m.hbm.channels / spec.cycles_per_second();
  auto cycles = [&](double ns) { return static_cast<Cycle>(std::ceil(ns * spec.cycles_per_second() * 1e-9 - 1e-9)); };
  DramTiming timing;
  timing.banks = m.hbm.banks_per_channel;
  timing.rcd = cycles(m.hbm.t_rcd_ns), timing.rp = cycles(m.hbm.t_rp_ns), timing.cl = cycles(m.hbm.t_cl_ns);
  timing.ras = cycles(m.hbm.t_ras_ns), timing.refi = cycles(m.hbm.t_refi_ns), timing.rfc = cycles(m.hbm.t_rfc_ns);
  timing.per_bank_refresh = m.hbm.per_bank_refresh;
  timing.rrd = cycles(m.hbm.t_rrd_ns), timing.faw = cycles(m.hbm.t_faw_ns), timing.activate_groups = m.hbm.pseudo_channels;
  const DramPolicy policy = m.hbm.fr_fcfs ? DramPolicy::kFrFcfs : DramPolicy::kFcfs;
  channels_.assign(m.hbm.channels, DramController(channel_bytes_per_cycle, timing, policy, m.hbm.scheduler_queue));
  channel_bytes_.assign(m.hbm.channels, 0);
  channel_turn_.assign(m.hbm.channels, kNever);
  sm_request_ports_.assign(spec.topology.sms, BandwidthGate(m.interconnect.request_bytes_per_clk_per_sm));
  sm_response_ports_.assign(spec.topology.sms, BandwidthGate(double(m.interconnect.bytes_per_clk_per_sm)));

  stats.add("gpu.l2.requests", &stats_.requests, "requests", "requests that reached L2 (one per line per instruction)");
  stats.add("gpu.l2.sector_reads", &stats_.sector_reads, "sectors", "sectors read at L2 (loads and atomics)");
  stats.add("gpu.l2.sector_read_hits", &stats_.sector_read_hits, "sectors", "sectors read that hit in L2 (or were already on their way)");
  stats.add("gpu.l2.sector_writes", &stats_.sector_writes, "sectors", "sectors written at L2");
  stats.add("gpu.l2.far_sector_hits", &stats_.far_sector_hits, "sectors", "sectors read from another L2 partition's copy (with the far-partition latency)");
  stats.add("gpu.l2.atomic_ops", &stats_.atomic_ops, "operations", "lane read-modify-writes performed by the slices' atomic units");
  stats.add("gpu.l2.atomics", &stats_.atomics, "requests", "atomic and reduction requests executed at L2");
  stats.add("gpu.l2.slice_busy_cycles", &stats_.slice_busy_cycles, "cycles", "summed busy cycles of all L2 slice ports");
  stats.add("gpu.dram.bytes_read", &stats_.dram_bytes_read, "bytes", "bytes read from HBM");
  stats.add("gpu.dram.bytes_written", &stats_.dram_bytes_written, "bytes", "bytes written to HBM (L2 write-backs)");
  for (uint32_t c = 0; c < m.hbm.channels; ++c) {
    const std::string channel = "gpu.dram.channel[" + std::to_string(c) + "].";
    const DramChannel::Stats& row = channels_[c].channel_stats();
    const DramController::Stats& order = channels_[c].stats();
    stats.add(channel + "bytes", &channel_bytes_[c], "bytes", "bytes moved by this HBM channel");
    stats.add(channel + "row_hits", &row.row_hits, "accesses", "accesses to the row already open in their bank");
    stats.add(channel + "row_empty", &row.row_empty, "accesses", "accesses to a bank with no open row (activate only)");
    stats.add(channel + "row_conflicts", &row.row_conflicts, "accesses", "accesses that closed another row first (precharge + activate)");
    stats.add(channel + "refresh_wait_cycles", &row.refresh_wait_cycles, "cycles", "cycles requests waited for their bank's refresh to end");
    stats.add(channel + "activate_wait_cycles", &row.activate_wait_cycles, "cycles", "cycles activates waited for the activation window (tRRD, tFAW)");
    stats.add(channel + "reordered", &order.reordered, "accesses", "row hits the controller served ahead of an older request to the same bank (FR-FCFS)");
    stats.add(channel + "queue_cycles", &order.queue_cycles, "cycles", "summed cycles requests waited in the controller's queue for their bank");
  }
}

uint32_t MemorySystem::partition_of_sm(uint32_t sm) const { return sm_partition_[sm]; }

uint32_t MemorySystem::home_partition(uint64_t line) const {
  return static_cast<uint32_t>(uint64_t{channel_of(line)} * partitions_ / channels_.size());
}

uint32_t MemorySystem::slice_in(uint64_t line, uint32_t partition) const {
  return partition * slices_per_partition_ + static_cast<uint32_t>(mix(line) % slices_per_partition_);
}

uint32_t MemorySystem::channel_of(uint64_t line) const {
  // Interleave 256-byte chunks (two lines) across channels.
  return static_cast<uint32_t>(mix((line * spec_.memory.line_bytes) >> 8 ^ 0x9e3779b97f4a7c15ULL) % channels_.size());
}

uint64_t MemorySystem::dram_row_of(uint64_t line) const {
  const auto& h = spec_.memory.hbm;
  return line * spec_.memory.line_bytes / (uint64_t{h.row_bytes} * h.channels);
}

uint32_t MemorySystem::dram_bank_of(uint64_t line) const {
  // Controllers hash row bits into the bank index so that strides do not pile onto one bank.
  return static_cast<uint32_t>(mix(dram_row_of(line) * 2 + 1) % spec_.memory.hbm.banks_per_channel);
}

void MemorySystem::dram_enqueue(uint64_t line, Cycle arrival, uint64_t bytes, uint64_t tag) {
  const uint32_t c = channel_of(line);
  channels_[c].enqueue(DramController::Request{arrival, dram_bank_of(line), dram_row_of(line), bytes, tag});
  channel_bytes_[c] += bytes;
  update_turn(c);
}

void MemorySystem::update_turn(uint32_t c) {
  const Cycle turn = channels_[c].next_decision();
  if (turn == channel_turn_[c]) return;
  if (turn != kNever) turns_.push({turn, c});
  channel_turn_[c] = turn;
}

std::pair<Cycle, uint32_t> MemorySystem::next_turn() {
  while (!turns_.empty() && channel_turn_[turns_.top().second] != turns_.top().first) turns_.pop();
  return turns_.empty() ? std::pair<Cycle, uint32_t>{kNever, 0} : turns_.top();
}

void MemorySystem::issue_dram(uint32_t c, Cycle now) {
  issued_.clear();
  channels_[c].issue_until(now, issued_);
  update_turn(c);
  for (const auto& [tag, done] : issued_) {
    if (tag == kWriteTag) continue;
    const Cycle arrives = done + spec_.memory.hbm.latency;
    mshrs_.close_fetch(tag, arrives, waiters_);
    for (const auto& [id, extra] : waiters_) {
      auto& response = mshrs_.response(id);
      response.data = std::max(response.data, arrives + extra);
      if (--response.outstanding == 0) finish(id);
    }
  }
}

void MemorySystem::send(const MemRequest& request, Cycle depart) {
  const auto& m = spec_.memory;
  uint64_t payload = (request.op == MemOp::kWrite || request.op == MemOp::kAtomic || request.op == MemOp::kReduce)
                         ? uint64_t(bit_count(request.sectors)) * m.sector_bytes
                         : 8;  // a read request is a header only
  Cycle sent = sm_request_ports_[request.sm].serve(depart, payload);
  Cycle arrival = sent + m.interconnect.latency;
  inbox_.push(arrival, request);
  engine_.wake(*this, arrival);
}

Cycle MemorySystem::tick(Cycle now) {
  now_ = now;
  for (MemRequest r; inbox_.pop_due(now, r);) handle(r, now);
  // Requests handled above reach HBM at or after now, so every request a bank could take by now
  // is already queued.
  for (auto turn = next_turn(); turn.first <= now; turn = next_turn()) issue_dram(turn.second, now);
  return std::min(inbox_.next_arrival(), next_turn().first);
}

void MemorySystem::handle(const MemRequest& r, Cycle now) {
  const auto& m = spec_.memory;
  ++stats_.requests;
  // Reads and stores are served by the requester's partition (from its copy of the line). An
  // atomic is performed at one place whichever SM asks, the line's home partition, so that
  // same-address atomics from both halves of the GPU queue at one atomic unit; a request from
  // the other half crosses to it (the far-partition latency).
  const bool atomic = r.op == MemOp::kAtomic || r.op == MemOp::kReduce;
  const uint32_t partition = atomic ? home_partition(r.line) : partition_of_sm(r.sm);
  const Cycle crossing = partition != partition_of_sm(r.sm) ? m.l2.far_partition_extra_latency : 0;
  const uint32_t slice = slice_in(r.line, partition);
  uint32_t sectors = static_cast<uint32_t>(bit_count(r.sectors));
  Cycle port_done = slice_ports_[slice].serve(now + crossing, uint64_t(sectors) * m.sector_bytes);
  stats_.slice_busy_cycles += (uint64_t(sectors) * m.sector_bytes + m.l2.bytes_per_clk_per_slice - 1) / m.l2.bytes_per_clk_per_slice;
  Cycle lookup_done = port_done + m.l2.hit_latency - 1;

  switch (r.op) {
    case MemOp::kRead: {
      const uint32_t response = mshrs_.open_response(r, slice, lookup_done);
      read_sectors(r.line, r.sectors, lookup_done, partition, r.evict_first, response);
      if (mshrs_.response(response).outstanding == 0) finish(response);
      break;
    }
    case MemOp::kAtomic:
    case MemOp::kReduce: {
      ++stats_.atomics;
      stats_.atomic_ops += r.ops;
      const uint32_t response = mshrs_.open_response(r, slice, lookup_done);
      read_sectors(r.line, r.sectors, lookup_done, partition, false, response);
      auto& cache = slices_[slice];
      int way = cache.find(r.line);
      if (way >= 0) cache.mark_dirty(r.line, way, r.sectors);
      drop_other_copies(r.line, partition);
      if (mshrs_.response(response).outstanding == 0) finish(response);
      break;
    }
    case MemOp::kWrite: {
      stats_.sector_writes += sectors;
      auto& cache = slices_[slice];
      int way = cache.find(r.line);
      if (way < 0) {
        SectoredCache::Victim victim;
        way = cache.allocate(r.line, victim);
        evict(victim, lookup_done, partition);
      }
      // Stores write whole sectors here (byte masks are not modelled), so no fetch is needed.
      cache.fill(r.line, way, r.sectors, lookup_done);
      cache.mark_dirty(r.line, way, r.sectors);
      cache.use(r.line, way, r.evict_first);
      drop_other_copies(r.line, partition);
      respond(r, lookup_done, 0);
      break;
    }
  }
}

void MemorySystem::finish(uint32_t id) {
  const L2Mshrs::Response response = mshrs_.response(id);
  mshrs_.close_response(id);
  const MemRequest& r = response.request;
  if (r.op == MemOp::kRead) return respond(r, response.data, r.sectors);
  // The slice's atomic unit performs the lanes' read-modify-writes one after another once the
  // data is there: same-address atomics from many warps queue here.
  const Cycle done = atomic_units_[response.slice].serve(response.data, r.updates);
  respond(r, done, r.op == MemOp::kAtomic ? r.sectors : 0);
}

Cycle MemorySystem::arrival(Cycle ready) const {
  if (!SectoredCache::is_pending(ready)) return ready;
  const Cycle arrives = mshrs_.arrival_of(SectoredCache::fetch_of(ready));
  return arrives == kNever ? ready : arrives;
}

// A read in the requester's partition; what it lacks comes from another partition's copy (after
// the far-partition latency) before HBM is asked.
void MemorySystem::read_sectors(uint64_t line, uint32_t sectors, Cycle lookup_done, uint32_t partition, bool evict_first, uint32_t response) {
  const auto& m = spec_.memory;
  const uint32_t slice = slice_in(line, partition);
  auto& cache = slices_[slice];
  stats_.sector_reads += static_cast<uint64_t>(bit_count(sectors));
  int way = cache.find(line);
  uint32_t present = way >= 0 ? cache.valid_sectors(line, way) : 0;
  Cycle data = lookup_done;
  for (uint32_t s = 0; s < cache.sectors_per_line(); ++s) {
    if ((sectors & present) & (1u << s)) {
      ++stats_.sector_read_hits;
      const Cycle ready = arrival(cache.sector_ready(line, way, static_cast<int>(s)));
      // On its way from HBM, its bank not having taken the fetch yet: wait for the fetch.
      if (SectoredCache::is_pending(ready)) mshrs_.wait_for(SectoredCache::fetch_of(ready), response, 0);
      else data = std::max(data, ready);
    }
  }
  uint32_t missing = sectors & ~present;
  uint32_t from_far = 0, far_pending = 0;
  Cycle far_data = lookup_done;
  for (uint32_t other = 0; other < partitions_ && missing & ~from_far; ++other) {
    if (other == partition) continue;
    const uint32_t far_slice = slice_in(line, other);
    auto& far = slices_[far_slice];
    const int far_way = far.find(line);
    const uint32_t found = far_way >= 0 ? far.valid_sectors(line, far_way) & missing & ~from_far : 0;
    if (!found) continue;
    const Cycle served = far_ports_[far_slice].serve(lookup_done, uint64_t(bit_count(found)) * m.sector_bytes);
    far_data = std::max(far_data, served);
    for (uint32_t s = 0; s < far.sectors_per_line(); ++s) {
      if (!(found & (1u << s))) continue;
      const Cycle ready = arrival(far.sector_ready(line, far_way, static_cast<int>(s)));
      if (SectoredCache::is_pending(ready)) {
        // Copied over once it arrives there; this partition does not keep a copy of it.
        mshrs_.wait_for(SectoredCache::fetch_of(ready), response, m.l2.far_partition_extra_latency);
        far_pending |= 1u << s;
      } else {
        far_data = std::max(far_data, ready);
      }
    }
    far.touch(line, far_way);
    from_far |= found;
  }
  if (from_far) {
    far_data += m.l2.far_partition_extra_latency;
    const auto n = static_cast<uint64_t>(bit_count(from_far));
    stats_.sector_read_hits += n;
    stats_.far_sector_hits += n;
    data = std::max(data, far_data);
  }
  if (missing) {
    if (way < 0) {
      SectoredCache::Victim victim;
      way = cache.allocate(line, victim);
      evict(victim, lookup_done, partition);
    }
    if (const uint32_t copied = from_far & ~far_pending) cache.fill(line, way, copied, far_data);
    uint32_t from_dram = missing & ~from_far;
    if (from_dram) {
      // A fetch wider than a sector brings the rest of its aligned group of sectors too, where
      // L2 lacks them.
      const uint32_t per_fetch = m.hbm.fetch_bytes / m.sector_bytes;
      for (uint32_t s = 0; per_fetch > 1 && s < cache.sectors_per_line(); s += per_fetch) {
        const auto group = static_cast<uint32_t>(((uint64_t{1} << per_fetch) - 1) << s);
        if (from_dram & group) from_dram |= group & ~present & ~from_far;
      }
      uint64_t bytes = uint64_t(bit_count(from_dram)) * m.sector_bytes;
      stats_.dram_bytes_read += bytes;
      const uint64_t fetch = mshrs_.open_fetch(now_);
      cache.fill(line, way, from_dram, SectoredCache::pending(fetch));
      mshrs_.wait_for(fetch, response, 0);
      dram_enqueue(line, lookup_done, bytes, fetch);
    }
  }
  cache.use(line, way, evict_first);
  auto& r = mshrs_.response(response);
  r.data = std::max(r.data, data);
}

// With partitions, a line leaving one partition moves to the next one (which keeps what its own
// SMs and the other partitions let go of: together they hold a working set as large as the whole
// L2); what leaves that one, if dirty, is written to HBM. Sectors still on their way from HBM
// move as if they had arrived (their fetch still answers its own waiters).
void MemorySystem::evict(const SectoredCache::Victim& victim, Cycle when, uint32_t partition) {
  if (!victim.valid) return;
  if (partitions_ == 1) return write_back(victim, when);
  const uint32_t next = (partition + 1) % partitions_;
  auto& cache = slices_[slice_in(victim.line, next)];
  int way = cache.find(victim.line);
  if (way < 0) {
    SectoredCache::Victim displaced;
    way = cache.allocate(victim.line, displaced);
    write_back(displaced, when);
  }
  // Sectors the copy there already holds keep their arrival time; the rest arrive now.
  const uint32_t held = cache.valid_sectors(victim.line, way);
  if (const uint32_t added = victim.valid_sectors & ~held) cache.fill(victim.line, way, added, when);
  cache.mark_dirty(victim.line, way, victim.dirty_sectors);
  cache.touch(victim.line, way);
}

// After a write, copies of the line in other partitions are stale: they are dropped (their dirty
// sectors are superseded by the new data, so nothing is written back).
void MemorySystem::drop_other_copies(uint64_t line, uint32_t partition) {
  for (uint32_t other = 0; other < partitions_; ++other) {
    if (other == partition) continue;
    auto& cache = slices_[slice_in(line, other)];
    const int way = cache.find(line);
    if (way >= 0) cache.invalidate(line, way);
  }
}

void MemorySystem::write_back(const SectoredCache::Victim& victim, Cycle when) {
  if (!victim.valid || !victim.dirty_sectors) return;
  uint64_t bytes = uint64_t(bit_count(victim.dirty_sectors)) * spec_.memory.sector_bytes;
  dram_enqueue(victim.line, when, bytes, kWriteTag);
  stats_.dram_bytes_written += bytes;
}

uint64_t MemorySystem::l2_dirty_bytes() const {
  uint64_t sectors = 0;
  for (const auto& slice : slices_) sectors += slice.dirty_sectors();
  return sectors * spec_.memory.sector_bytes;
}

void MemorySystem::respond(const MemRequest& r, Cycle leave_l2, uint32_t data_sectors) {
  const auto& m = spec_.memory;
  uint64_t bytes = data_sectors ? uint64_t(bit_count(data_sectors)) * m.sector_bytes : 8;
  Cycle at_sm = sm_response_ports_[r.sm].serve(leave_l2 + m.interconnect.latency, bytes);
  sms_[r.sm]->deliver(MemResponse{r.line, r.sectors, r.token, r.op}, at_sm);
}

std::string MemorySystem::describe_state() const {
  std::ostringstream s;
  size_t waiting = 0;
  for (const auto& c : channels_) waiting += c.waiting();
  s << name() << ": " << inbox_.size() << " requests in flight to L2, " << waiting << " waiting for an HBM bank, "
    << mshrs_.responses_waiting() << " responses waiting for HBM";
  return s.str();
}

}  // namespace warpsim
