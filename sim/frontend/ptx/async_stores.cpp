// Hopper's asynchronous stores into a cluster's shared memory, functionally (PTX ISA, "st.async"
// and "red.async"): each lane stores (or combines) its value into the shared memory of a CTA of
// the cluster and completes the bytes on an mbarrier in that same CTA. The store is done at
// once, which is one valid order for it; the record carries the addresses, the barrier and the
// bytes, so that the timing model lands them over the SM-to-SM network and completes the bytes
// on the barrier then.
#include <cstring>
#include <string>

#include "common/format.h"
#include "frontend/ptx/cta_emulator.h"

namespace warpsim::ptx {
namespace {

// Which CTA of the cluster a .shared::cluster address names: rank + 1, with this CTA's own
// rank written either way (no rank bits, or its own).
uint64_t target_of(uint64_t address, uint32_t own_rank) {
  const uint64_t r = address >> kClusterRankShift;
  return r == 0 ? uint64_t{own_rank} + 1 : r;
}

}  // namespace

// st.async.weak.shared::cluster.mbarrier::complete_tx::bytes{.v2,.v4}.type [a], b, [mbar]
// red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.op.type [a], b, [mbar]
void CtaEmulator::async_store(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  const auto& ops = in.operands;
  const EmuOperand &addr = ops.at(0), &data = ops.at(1), &bar = ops.at(2);
  const bool reduce = in.code == EmuOp::kRed;
  const uint32_t n = reduce ? 1 : in.vector, size = std::max<uint32_t>(1, in.type.bits / 8), bytes = size * n;
  MbarrierUse& use = out.inst.mbar;
  std::array<uint64_t, 32> lane_address;
  bool first = true;
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t a = address(w, addr, l), m = address(w, bar, l);
    lane_address[l] = a;
    // The PTX ISA requires the barrier in the CTA whose shared memory the store writes.
    if (target_of(a, rank_) != target_of(m, rank_)) {
      fault(in, w, l, "shared::cluster " + hex(a) + " and its mbarrier at " + hex(m) +
                          " are in different CTAs of the cluster; the PTX ISA requires the mbarrier in the CTA the store writes to");
    }
    if (a % bytes != 0) fault(in, w, l, "misaligned " + std::to_string(bytes) + "-byte " + in.base + ".async at shared::cluster " + hex(a));
    // The record names this CTA's own barrier by its offset, another's with its rank (mapa's form).
    const uint64_t own = target_of(m, rank_) == uint64_t{rank_} + 1;
    const uint64_t m_record = own ? (m & kClusterOffsetMask) : m;
    if (!first && m_record != use.address) {
      fault(in, w, l, "lanes of one warp complete on different mbarriers in one instruction (shared::cluster " + hex(use.address) + " and " +
                          hex(m_record) + "), which the timing model does not replay");
    }
    use.address = static_cast<uint32_t>(m_record), first = false;
    Mbarrier& b = mbarrier_at(m_record, w, l, in);
    uint8_t* p = cluster_shared_at(a, bytes, w, l, in);
    if (reduce) {
      uint64_t old = 0;
      std::memcpy(&old, p, size);
      const uint64_t r = combine_bits(in.atom_op, in.type, old, read(w, data, l));
      std::memcpy(p, &r, size);
    } else {
      for (uint32_t k = 0; k < n; ++k) {
        const uint64_t v = data.kind == EmuOperand::Kind::kVector ? w.regs.get(data.regs.at(k), l) : read(w, data, l);
        store_bits(p + k * size, v, size);
      }
    }
    // As for a bulk copy: into this CTA, a write that completes on the barrier (a warp that
    // waited for the phase is ordered after it); into a sibling, the words are marked written.
    if (own) {
      check_shared(w, l, a & kClusterOffsetMask, bytes, true, reduce, in);
      if (clocks_.enabled()) clocks_.release(w.index, b.clock);
    } else {
      check_remote_shared(w, l, a, bytes, true, in);
    }
    b.tx -= bytes;
    use.tx_bytes += bytes;
    complete_phase_if_done(b);
  });
  // The timing model sees a .shared::cluster store (or, all in this CTA, a shared one).
  if (exec) resolve_space(w, in, exec, lane_address, out);
  for_lanes(exec, [&](uint32_t l) { out.addresses.push_back(lane_address[l]); });
  compress_addresses(out);
}

}  // namespace warpsim::ptx
