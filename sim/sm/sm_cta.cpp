// An SM's CTAs arriving and leaving: a CTA takes free warp slots (and, on GPUs with clusters,
// its place in the cluster table); a warp exits, drains its outstanding accesses and retires;
// the last warp to retire frees the CTA's slot and reports it done (held until the end of the
// tick when it happens inside one: sm.h).
#include "sm/sm.h"

#include "common/error.h"

namespace warpsim {

void Sm::launch_cta(std::unique_ptr<CtaWork> work, const CtaFootprint& f, Cycle now, Cycle start) {
  if (!fits(f)) throw SimulationError(name() + ": no room for a CTA of '" + f.kernel->name + "' (occupancy bookkeeping is broken)");
  uint32_t c = 0;
  while (ctas_[c].work) ++c;
  CtaSlot& cta = ctas_[c];
  const KernelInfo& kernel = *f.kernel;
  const uint32_t n = work->num_warps();
  cta.warps.clear();
  for (uint32_t slot = 0; slot < warps_.size() && cta.warps.size() < n; ++slot) {
    if (!warps_[slot].resident) cta.warps.push_back(slot);
  }
  if (cta.warps.size() < n) throw SimulationError(name() + ": no free warp slots (occupancy bookkeeping is broken)");
  work->placed(id_, spec_.topology.sms);
  cta.work = std::move(work);
  cta.footprint = f;
  cta.warp_instructions = 0;
  registers_held_ += f.registers;
  shared_held_ += f.shared;
  cta.live = cta.resident = n;
  cta.launched = now;
  cta.barriers = {};
  cta.mbarriers.clear();
  cta.cluster = f.cluster_key(cta.work->id());
  cta.rank = kernel.rank_in_cluster(cta.work->id());
  // A kernel without clusters still runs each CTA as a cluster of one on GPUs that have them
  // (barrier.cluster then synchronises the CTA); clustered kernels' clusters are opened by the
  // CTA scheduler, which sees all their CTAs.
  if (!kernel.clustered() && spec_.clusters.supported()) clusters_.open(cta.cluster, 1, n);
  if (spec_.clusters.supported()) clusters_.place(cta.cluster, cta.rank, id_, c);
  ++resident_ctas_;
  ++stats_.ctas_launched;
  stats_.warps_launched += n;
  // Launched during (or right after) a tick, the CTA's warps begin next cycle.
  const bool ticked_now = first_cycle_of_launch(now) != now;
  if (!ticked_now) credit_population(now);
  const Cycle first = std::max(ticked_now ? now + 1 : now, start);
  if (resident_warps_ == 0) busy_since_ = first;
  for (uint32_t i = 0; i < n; ++i) {
    Warp& w = warps_[cta.warps[i]];
    w = Warp{};
    w.resident = true;
    w.cta_slot = c;
    w.warp_in_cta = i;
    w.age = next_age_++;
    w.first_cycle = first;
    w.stream = &cta.work->warp(i);
    if (observer_) observer_->warp_launched(id_, cta.warps[i], kernel, cta.work->id(), i, w.first_cycle);
    ++resident_warps_;
    subs_[cta.warps[i] % subs_.size()].needs_scan = true;
    refresh_look(cta.warps[i]);
    set_current(w, w.stream->next());
    if (!w.current) {
      w.exited = true;
      --cta.live;
      if (spec_.clusters.supported()) clusters_.exit(cta.cluster, 0, now);
    }
  }
  for (uint32_t slot : cta.warps) {
    if (warps_[slot].exited) maybe_retire(warps_[slot], slot, now);  // a warp with no instructions
  }
  if (in_tick_ || finishing_) {
    woke_work_ = true;
  } else {
    engine_.wake(*this, std::max(first, ticked_ && last_tick_ >= now ? last_tick_ + 1 : now));
  }
}

void Sm::exit_warp(Warp& w, uint32_t slot, Cycle now) {
  w.exited = true;
  w.drain_until = w.scoreboard.latest_fixed_ready();
  w.at_barrier = false;
  CtaSlot& cta = ctas_[w.cta_slot];
  --cta.live;
  for (uint32_t id = 0; id < cta.barriers.size(); ++id)
    if (cta.barriers[id].expected == 0) check_barrier(cta, id, now);
  if (spec_.clusters.supported()) clusters_.exit(cta.cluster, w.cluster_arrivals, std::max(now, w.cluster_writes_done));
  maybe_retire(w, slot, now);
}

void Sm::maybe_retire(Warp& w, uint32_t slot, Cycle now) {
  if (!w.exited || w.outstanding_loads || w.outstanding_stores || !w.resident || now < w.drain_until) return;
  if (observer_) observer_->warp_retired(id_, slot, now + 1);
  if (w.in_population) {
    // The population covers cycles before `now`; the warp is still resident in cycle `now`.
    ++stats_.stall_cycles[static_cast<int>(w.reason)];
    leave_population(w);
  }
  w.resident = false;
  refresh_look(slot);
  if (now >= w.first_cycle) stats_.warps_active_cycles += now - w.first_cycle + 1;
  if (--resident_warps_ == 0 && now >= busy_since_) stats_.cycles_active += now - busy_since_ + 1;
  CtaSlot& cta = ctas_[w.cta_slot];
  if (--cta.resident > 0) return;
  if (spec_.clusters.supported()) clusters_.cta_retired(cta.cluster, cta.rank);
  cta.work.reset();
  --resident_ctas_;
  registers_held_ -= cta.footprint.registers;
  shared_held_ -= cta.footprint.shared;
  const CtaEnd end{id_, cta.footprint.kernel_index, cta.launched, now, cta.warp_instructions};
  if (in_tick_) {
    ctas_done_held_.push_back(end);  // finish_tick reports it
  } else {
    on_cta_done_(end);
  }
}

}  // namespace warpsim
