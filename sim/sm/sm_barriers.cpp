// The CTA's 16 barriers in the timing model (PTX bar/barrier): a phase expects the warps its
// first arrival names (WarpInst::barrier_warps; 0: every warp that has not exited, exited warps
// counting as arrived), holds only the warps that wait at it, and bar.arrive does not wait.
#include "sm/sm.h"

namespace warpsim {

void Sm::issue_barrier(Warp& w, const WarpInst& in, Cycle now) {
  ++stats_.barriers;
  CtaSlot& cta = ctas_[w.cta_slot];
  const uint32_t id = in.barrier_id & 15u;
  CtaSlot::Barrier& b = cta.barriers[id];
  if (b.arrived == 0) b.expected = in.barrier_warps;
  ++b.arrived;
  if (!in.op->barrier_arrive) {
    w.at_barrier = true;
    w.barrier_id = static_cast<uint8_t>(id);
  }
  check_barrier(cta, id, now);
}

void Sm::check_barrier(CtaSlot& cta, uint32_t id, Cycle now) {
  CtaSlot::Barrier& b = cta.barriers[id];
  if (b.arrived == 0 || b.arrived < (b.expected ? b.expected : cta.live)) return;
  for (uint32_t slot : cta.warps) {
    Warp& w = warps_[slot];
    if (!w.at_barrier || w.barrier_id != id) continue;
    w.at_barrier = false;
    mark_dirty(slot);
  }
  b = CtaSlot::Barrier{};
  woke_work_ = true;
  // Every warp of the phase has now arrived in the frontend too, so the released warps' next
  // instructions follow the barrier without anyone running ahead.
  for (uint32_t slot : cta.warps) {
    Warp& w = warps_[slot];
    if (!w.fetch_deferred || w.at_barrier) continue;
    w.fetch_deferred = false;
    set_current(w, w.stream->next());
    if (!w.current) exit_warp(w, slot, now);
  }
}

}  // namespace warpsim
