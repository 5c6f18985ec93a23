// The tensor memory accelerator's tensor copies, functionally (PTX ISA, "cp.async.bulk.tensor";
// CUDA driver API, cuTensorMapEncodeTiled): a box of a tensor of rank 1 to 5, at signed
// coordinates, moves between global memory and shared memory, where it lies row-major (innermost
// dimension first) and, under a swizzle mode, with its 16-byte chunks permuted (swizzle.h).
// Loads read out-of-bounds elements as zeros and complete the whole box's bytes on an mbarrier;
// stores write only the in-bounds elements. Either is done at once, one valid order for it; the
// record carries the box's in-bounds rows for the timing model (WarpInst::mbar).
#include <algorithm>
#include <cstring>
#include <span>
#include <string>

#include "common/format.h"
#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/swizzle.h"
#include "frontend/ptx/tensor_map.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {
namespace {

// A box placed in its tensor: the in-bounds index range per dimension (lo <= hi).
struct BoxPlacement {
  int64_t coord[5] = {}, lo[5] = {}, hi[5] = {};
  bool any = true;
};

BoxPlacement place(const TensorMap& t, const int64_t* coords) {
  BoxPlacement p;
  for (uint32_t d = 0; d < t.rank; ++d) {
    p.coord[d] = coords[d];
    p.lo[d] = std::max<int64_t>(coords[d], 0);
    p.hi[d] = std::min<int64_t>(coords[d] + t.box[d], t.dims[d]);
    p.any = p.any && p.lo[d] < p.hi[d];
  }
  return p;
}

// Calls f(global address of the row's first in-bounds byte, the box byte offset of that byte in
// shared memory, in-bounds bytes) for each in-bounds row of the box.
template <class F>
void for_each_box_row(const TensorMap& t, const BoxPlacement& p, F&& f) {
  if (!p.any) return;
  const uint64_t e = t.elem_bytes, row_bytes = static_cast<uint64_t>(p.hi[0] - p.lo[0]) * e;
  int64_t i[5] = {0, p.lo[1], p.lo[2], p.lo[3], p.lo[4]};
  for (uint32_t d = t.rank; d < 5; ++d) i[d] = 0;
  while (true) {
    uint64_t global = t.address + static_cast<uint64_t>(p.lo[0]) * e, box_row = 0;
    for (uint32_t d = t.rank; d-- > 1;) {
      global += static_cast<uint64_t>(i[d]) * t.strides[d - 1];
      box_row = box_row * t.box[d] + static_cast<uint64_t>(i[d] - p.coord[d]);
    }
    f(global, (box_row * t.box[0] + static_cast<uint64_t>(p.lo[0] - p.coord[0])) * e, row_bytes);
    uint32_t d = 1;
    for (; d < t.rank; ++d) {
      if (++i[d] < p.hi[d]) break;
      i[d] = p.lo[d];
    }
    if (d >= t.rank) return;
  }
}

}  // namespace

// Reads the lane's tensor map and coordinates ([tensorMap, {c0, ...}]) and checks them against
// the instruction's rank.
void CtaEmulator::tensor_operand(WarpState& w, const EmuInst& in, const EmuOperand& map, uint32_t l, TensorMap& t, int64_t* coords) {
  // The map's generic address: a __grid_constant__ parameter (as CUDA passes it) or global memory.
  const uint64_t map_at = address(w, map, l);
  const bool in_params = map_at + 128 <= launch_.params.size();
  if (!decode_tensor_map(bytes_at(in_params ? MemSpace::kParam : MemSpace::kGlobal, map_at, 128, w, l, in), t)) {
    fault(in, w, l, "the tensor map at " + hex(map_at) + " is not one a launch file's tensor_map: argument made");
  }
  size_t rank = 0;
  for (const char* r : {"1d", "2d", "3d", "4d", "5d"})
    if (in.has(r)) rank = static_cast<size_t>(r[0] - '0');
  if (rank != t.rank || map.regs.size() != rank) {
    fault(in, w, l, "a " + std::to_string(rank) + "D tensor copy with " + std::to_string(map.regs.size()) + " coordinates on a rank-" +
                        std::to_string(t.rank) + " tensor map");
  }
  for (size_t i = 0; i < rank; ++i) {
    const uint64_t v = element(w, map, i, l);
    coords[i] = static_cast<int32_t>(static_cast<uint32_t>(v));
  }
}

// The timing model's view of a box: its in-bounds rows from the first in-bounds byte.
uint64_t CtaEmulator::box_footprint(const TensorMap& t, const int64_t* coords, MbarrierUse& use) {
  const BoxPlacement p = place(t, coords);
  use.tx_bytes = static_cast<uint32_t>(t.box_elements() * t.elem_bytes);
  use.row_bytes = p.any ? static_cast<uint32_t>((p.hi[0] - p.lo[0]) * t.elem_bytes) : 0;
  use.rows = {1, 1, 1, 1};
  use.row_stride16 = {};
  uint64_t first = t.address + static_cast<uint64_t>(p.lo[0]) * t.elem_bytes;  // lo is clipped at 0
  for (uint32_t d = 1; d < t.rank; ++d) {
    use.rows[d - 1] = static_cast<uint16_t>(p.hi[d] > p.lo[d] ? p.hi[d] - p.lo[d] : 0);
    use.set_row_stride(static_cast<int>(d - 1), t.strides[d - 1]);  // launch.cpp keeps strides representable
    first += static_cast<uint64_t>(p.lo[d]) * t.strides[d - 1];
  }
  if (!p.any) use.rows = {0, 1, 1, 1};
  return p.any ? first : t.address;
}

// Keeps the lane's copy as the instruction's: every issuing lane of a warp must make the same
// one (footprint, size, mbarrier, CTAs), since the timing model replays one per instruction.
void CtaEmulator::record_lane_copy(const WarpState& w, const EmuInst& in, uint32_t lane, const MbarrierUse& here, bool& first, MbarrierUse& use) const {
  if (!first && (here.address != use.address || here.tx_bytes != use.tx_bytes || here.rows != use.rows || here.row_bytes != use.row_bytes ||
                 here.multicast != use.multicast || here.elem_bytes != use.elem_bytes)) {
    fault(in, w, lane, "lanes of one warp issue different bulk copies in one instruction, which the timing model does not replay");
  }
  first = false;
  use = here;
}

// A box of `bytes` at shared address `s` read row-major, gathered from its swizzled chunks.
std::vector<uint8_t> CtaEmulator::shared_box(const WarpState& w, const EmuInst& in, uint32_t lane, uint64_t s, uint32_t bytes, uint32_t swizzle) {
  std::vector<uint8_t> box(bytes);
  for (uint32_t b = 0; b < bytes; b += 16) std::memcpy(box.data() + b, bytes_at(MemSpace::kShared, swizzled(s + b, swizzle), 16, w, lane, in), 16);
  return box;
}

// The CTAs a copy fills: its own, or with .multicast::cluster those of the 16-bit CTA mask
// (operand `mask_operand`), each at the same shared-memory offset.
uint16_t CtaEmulator::copy_destinations(WarpState& w, const EmuInst& in, size_t mask_operand, uint32_t l) {
  const uint64_t own = uint64_t{1} << rank_;
  if (!in.has("multicast::cluster")) return static_cast<uint16_t>(own);
  const uint64_t mask = read(w, in.operands.at(mask_operand), l) >> (in.sass_async ? 16 : 0) & 0xffff, ctas = cluster_ ? cluster_->ctas.size() : 1;
  if (mask == 0 || mask >> ctas) {
    fault(in, w, l, "multicast CTA mask " + hex(mask) + " for a cluster of " + std::to_string(ctas) + " CTA" + (ctas == 1 ? "" : "s"));
  }
  return static_cast<uint16_t>(mask);
}

// Lands a copy's `bytes` (a box row-major, or a plain copy) at shared offset `d` of each CTA in
// `ctas`, 16-byte chunks placed by the swizzle, and completes them on each one's mbarrier at `m`.
void CtaEmulator::land_copy(WarpState& w, const EmuInst& in, uint32_t l, std::span<const uint8_t> bytes, uint64_t d, uint32_t swizzle,
                            uint64_t m, uint16_t ctas) {
  const auto size = static_cast<uint32_t>(bytes.size());
  for (uint32_t rank = 0; ctas >> rank; ++rank) {
    if (!(ctas >> rank & 1)) continue;
    const uint64_t cta = uint64_t{rank + 1} << kClusterRankShift;
    // In 16-byte pieces, the alignment a bulk copy's destination has (PTX ISA, cp.async.bulk).
    for (uint32_t b = 0; b < size; b += 16) {
      const uint64_t at = swizzle == 0 ? d + b : swizzled(d + b, swizzle);
      std::memcpy(cluster_shared_at(cta | at, 16, w, l, in), bytes.data() + b, 16);
    }
    // Into this CTA, the checker sees the copy as a write by the issuing warp that completes on
    // the mbarrier: a warp that waited for the phase is ordered after it, and the copy after
    // the accesses the issuing warp had acquired. Into a sibling, the words are only marked
    // written (races across CTAs are not checked).
    Mbarrier& bar = mbarrier_at(cta | m, w, l, in);
    if (rank == rank_) {
      check_shared(w, l, d, size, true, false, in);
      if (clocks_.enabled()) clocks_.release(w.index, bar.clock);
    } else if (CtaEmulator* owner = cluster_->ctas[rank]) {
      owner->check_shared(w, l, d, size, true, true, in);
    }
    bar.tx -= size;
    complete_phase_if_done(bar);
  }
}

// cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// [dst], [tensorMap, {c0, ...}], [mbar][, ctaMask with .multicast::cluster]
void CtaEmulator::bulk_tensor_copy(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  const auto& ops = in.operands;
  MbarrierUse& use = out.inst.mbar;
  bool first = true;
  for_lanes(exec, [&](uint32_t l) {
    TensorMap t;
    int64_t c[5] = {};
    tensor_operand(w, in, ops.at(1), l, t, c);
    const uint64_t d = address(w, ops.at(0), l) & kClusterOffsetMask, m = address(w, ops.at(2), l) & kClusterOffsetMask;
    if (d % 128 != 0) fault(in, w, l, "tensor copy to shared " + hex(d) + ": the PTX ISA requires 128-byte alignment");
    MbarrierUse here = use;
    const uint64_t from = box_footprint(t, c, here);
    here.address = static_cast<uint32_t>(m);
    const uint16_t ctas = copy_destinations(w, in, 3, l);
    here.multicast = in.has("multicast::cluster") ? ctas : 0;
    record_lane_copy(w, in, l, here, first, use);
    std::vector<uint8_t> box(here.tx_bytes, 0);
    for_each_box_row(t, place(t, c), [&](uint64_t global, uint64_t at, uint64_t bytes) {
      std::memcpy(box.data() + at, global_bytes(global, static_cast<uint32_t>(bytes), true, false, w, l, in), bytes);
    });
    land_copy(w, in, l, box, d, t.swizzle_bytes, m, ctas);
    out.addresses.push_back(from);
  });
  compress_addresses(out);
}

// cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group [tensorMap, {c0, ...}], [src]: the
// box's in-bounds elements are written; the rest of the box is not.
void CtaEmulator::bulk_tensor_store(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  const auto& ops = in.operands;
  MbarrierUse& use = out.inst.mbar;
  bool first = true;
  for_lanes(exec, [&](uint32_t l) {
    TensorMap t;
    int64_t c[5] = {};
    tensor_operand(w, in, ops.at(0), l, t, c);
    const uint64_t s = address(w, ops.at(1), l);
    if (s % 128 != 0) fault(in, w, l, "tensor copy from shared " + hex(s) + ": the PTX ISA requires 128-byte alignment");
    MbarrierUse here = use;
    const uint64_t to = box_footprint(t, c, here);
    record_lane_copy(w, in, l, here, first, use);
    check_shared(w, l, s, here.tx_bytes, false, false, in);  // read by the copy engine after the threads wrote it
    const std::vector<uint8_t> box = shared_box(w, in, l, s, here.tx_bytes, t.swizzle_bytes);
    for_each_box_row(t, place(t, c), [&](uint64_t global, uint64_t at, uint64_t bytes) {
      std::memcpy(global_bytes(global, static_cast<uint32_t>(bytes), false, true, w, l, in), box.data() + at, bytes);
    });
    out.addresses.push_back(to);
  });
  compress_addresses(out);
}

// cp.reduce.async.bulk.global.shared::cta.bulk_group.op.type [dst], [src], size, and
// cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op.tile.bulk_group [tensorMap, {c0, ...}], [src]:
// each element in global memory becomes op(itself, the element from shared memory), in the
// instruction's type (the tensor map's for a tensor), done at once like a TMA store.
void CtaEmulator::bulk_reduce(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  const auto& ops = in.operands;
  const bool tensor = in.has("tensor");
  MbarrierUse& use = out.inst.mbar;
  bool first = true;
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t s = address(w, ops.at(1), l);
    MbarrierUse here = use;
    ValueType type = in.type;
    std::vector<uint8_t> box;
    uint64_t to = 0;
    TensorMap t;
    int64_t c[5] = {};
    if (tensor) {
      tensor_operand(w, in, ops.at(0), l, t, c);
      if (s % 128 != 0) fault(in, w, l, "tensor reduction from shared " + hex(s) + ": the PTX ISA requires 128-byte alignment");
      to = box_footprint(t, c, here);
      type = ValueType{t.elem_kind, t.elem_bytes * 8, 1};
      box = shared_box(w, in, l, s, here.tx_bytes, t.swizzle_bytes);
    } else {
      to = address(w, ops.at(0), l);
      const auto size = static_cast<uint32_t>(read(w, ops.at(2), l));
      if (size == 0 || size % 16 != 0 || to % 16 != 0 || s % 16 != 0) {
        fault(in, w, l, "cp.reduce.async.bulk of " + std::to_string(size) + " bytes from shared " + hex(s) + " to " + hex(to) +
                            ": the PTX ISA requires addresses and size that are multiples of 16");
      }
      here.tx_bytes = size;
    }
    const uint32_t e = type.bits / 8;
    if (in.atom_op.empty() || e == 0 || (type.kind == 'b' && in.atom_op != "and" && in.atom_op != "or" && in.atom_op != "xor")) {
      fault(in, w, l, "a bulk reduction needs an operation (add, min, max, inc, dec, and, or, xor) and an element type");
    }
    here.elem_bytes = static_cast<uint8_t>(e);
    record_lane_copy(w, in, l, here, first, use);
    check_shared(w, l, s, here.tx_bytes, false, false, in);  // read by the copy engine after the threads wrote it
    auto combine = [&](uint64_t global, const uint8_t* src, uint64_t bytes) {
      uint8_t* dst = global_bytes(global, static_cast<uint32_t>(bytes), true, true, w, l, in);
      for (uint64_t k = 0; k < bytes; k += e) {
        const uint64_t r = combine_bits(in.atom_op, type, load_bits(dst + k, e), load_bits(src + k, e));
        store_bits(dst + k, r, e);
      }
    };
    if (tensor) {
      for_each_box_row(t, place(t, c), [&](uint64_t global, uint64_t at, uint64_t bytes) { combine(global, box.data() + at, bytes); });
    } else {
      combine(to, bytes_at(MemSpace::kShared, s, here.tx_bytes, w, l, in), here.tx_bytes);
    }
    out.addresses.push_back(to);
  });
  compress_addresses(out);
}

}  // namespace warpsim::ptx
