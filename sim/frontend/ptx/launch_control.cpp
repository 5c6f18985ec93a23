// Cluster launch control (Blackwell; PTX ISA, "clusterlaunchcontrol"), functionally: a running
// CTA asks to cancel the launch of a cluster the CTA scheduler has not launched yet and, when it
// gets one, does that cluster's work itself (work stealing; CUTLASS's and CCCL's
// for_each_canceled_block persistent schedulers use it).
//
// try_cancel cancels the next cluster in launch order that the GPU has not taken yet
// (grid_state.h) at the moment the emulator runs it, which is when the timing model issues it;
// the answer lands in shared memory at once and its 16 bytes complete on the mbarrier, and the
// record carries the barrier so that the timing model completes them after the scheduler's
// round trip (clusters.launch_control_latency). With .multicast::cluster::all the answer goes to
// the same offset in every CTA of the cluster, each completing on its own mbarrier there.
//
// The answer is opaque in the PTX ISA; warpsim's is four 32-bit words: the first CTA of the
// cancelled cluster's x, y and z, then 1 (cancelled) or 0 (nothing left to cancel).
#include <array>
#include <cstring>
#include <string>

#include "common/format.h"
#include "frontend/ptx/cta_emulator.h"

namespace warpsim::ptx {

// The .shared::cta offset an operand names: with .shared::cta the value itself; without, a
// generic address, which must fall in this CTA's shared-memory window.
uint64_t CtaEmulator::own_shared_offset(const WarpState& w, const EmuInst& in, const EmuOperand& o, uint32_t lane) {
  uint64_t a = address(w, o, lane);
  if (!in.has("shared::cta")) {
    if (a < kGenericSharedBase || a - kGenericSharedBase >= kGenericSharedSize) {
      fault(in, w, lane, "generic address " + hex(a) + " is not in shared memory; the PTX ISA requires both operands in .shared::cta");
    }
    a -= kGenericSharedBase;
  }
  const uint64_t rank = a >> kClusterRankShift;
  if (rank != 0 && rank != uint64_t{rank_} + 1) fault(in, w, lane, "address " + hex(a) + " is in another CTA's shared memory; expected this CTA's (.shared::cta)");
  return a & kClusterOffsetMask;
}

void CtaEmulator::launch_control(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  const auto& ops = in.operands;
  if (in.mods.at(0) == "try_cancel") {  // try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128 [addr], [mbar]
    if (std::popcount(exec) > 1) {
      fault(in, w, static_cast<uint32_t>(std::countr_zero(exec)),
            std::to_string(std::popcount(exec)) + " lanes issue clusterlaunchcontrol.try_cancel in one instruction; the timing model replays one "
            "request per instruction (issue it from one elected lane, as CUTLASS and CCCL do)");
    }
    if (failed_cancel_seen_at_ && exec && launch_.findings && launch_.findings->enabled) {
      const uint32_t l = static_cast<uint32_t>(std::countr_zero(exec));
      launch_.findings->add("try-cancel-after-failure", in.line,
                            launch_.file + ":" + std::to_string(in.line) + ": " + thread_name(w, l) +
                                " issues clusterlaunchcontrol.try_cancel after its CTA saw a request fail (query_cancel.is_canceled false at line " +
                                std::to_string(failed_cancel_seen_at_) + "), which the PTX ISA leaves undefined: stop asking once one fails");
    }
    for_lanes(exec, [&](uint32_t l) {
      const uint64_t a = own_shared_offset(w, in, ops.at(0), l), m = own_shared_offset(w, in, ops.at(1), l);
      if (a % 16 != 0) fault(in, w, l, "the answer's address " + hex(a) + " is not 16-byte aligned (the PTX ISA requires it)");
      if (!grid_) fault(in, w, l, "clusterlaunchcontrol.try_cancel outside a launch's grid");
      std::array<uint32_t, 4> words{};
      if (const auto first = grid_->cancel_next_cluster()) words = {first->x, first->y, first->z, 1};
      std::array<uint8_t, 16> answer;
      std::memcpy(answer.data(), words.data(), answer.size());
      const uint32_t ctas = cluster_ ? static_cast<uint32_t>(cluster_->ctas.size()) : 1;
      const bool multicast = in.has("multicast::cluster::all") && ctas > 1;
      const auto destinations = static_cast<uint16_t>(multicast ? (1u << ctas) - 1 : 1u << rank_);
      MbarrierUse& use = out.inst.mbar;
      use.address = static_cast<uint32_t>(m);
      use.tx_bytes = 16;
      use.multicast = multicast ? destinations : 0;
      land_copy(w, in, l, answer, a, 0, m, destinations);
    });
    return;
  }
  // query_cancel.is_canceled.pred.b128 p, answer
  // query_cancel.get_first_ctaid{::x,::y,::z}.b32.b128 d, answer | .get_first_ctaid.v4.b32.b128 {x, y, z, _}, answer
  const EmuOperand& answer = ops.at(1);
  const EmuOperand& d = ops.at(0);
  const std::string& what = in.mods.at(1);
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t lo = element(w, answer, 0, l), hi = element(w, answer, 1, l);
    const std::array<uint32_t, 4> words{static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32), static_cast<uint32_t>(hi),
                                        static_cast<uint32_t>(hi >> 32)};
    if (what == "is_canceled") {
      write(w, d.reg, l, words[3] & 1);
      if (!(words[3] & 1) && !failed_cancel_seen_at_) failed_cancel_seen_at_ = in.line;
    } else if (what == "get_first_ctaid") {
      for (size_t k = 0; k < d.regs.size() && k < 3; ++k)
        if (d.regs[k] >= 0) write(w, d.regs[k], l, words[k]);
    } else {
      write(w, d.reg, l, words[what.back() - 'x']);  // get_first_ctaid::x, ::y or ::z
    }
  });
}

}  // namespace warpsim::ptx
