#pragma once
// One dynamic warp instruction as the timing model sees it: the decoded operation, the lanes
// that execute it, its registers, and for memory operations the address of every active lane.
#include <array>
#include <bit>
#include <cstdint>

#include "common/bit_count.h"
#include "isa/op_info.h"

namespace warpsim {

using RegId = uint16_t;

// Addresses of the active lanes: either base + lane * stride (lane = 0..31, so an inactive lane
// leaves a gap), or an explicit list holding one address per active lane in lane order.
struct LaneAddresses {
  uint64_t base = 0;
  int64_t stride = 0;
  const uint64_t* list = nullptr;
};

// An mbarrier operation or bulk copy (OpInfo::mbarrier): the mbarrier's shared-memory address;
// arrivals (arrive) or the expected count (init); transaction bytes (arrive.expect_tx,
// expect_tx, and a bulk copy's size per issuing lane); and for a wait, the phase it saw complete
// (-1: incomplete, the wait returned false). Frontends know these; the timing model replays the
// barrier's phases in its own order from them.
// A bulk copy's global footprint per issuing lane: rows of `row_bytes` (0: tx_bytes) from the
// lane's address, nested over up to four box dimensions: rows[d] indices of dimension d + 1,
// row_stride[d] bytes apart. cp.async.bulk is one row; a tensor copy (cp.async.bulk.tensor, load
// or store) is its box's in-bounds rows (rows[0] = 0 when the box lies wholly out of bounds).
// An mbarrier address with a rank in bits 24 and up (kClusterRankShift) is another CTA's in the
// cluster (a remote arrive).
struct MbarrierUse {
  static constexpr int kRowDims = 4;
  uint32_t address = 0;
  uint32_t arrivals = 0;
  uint32_t tx_bytes = 0;
  int32_t phase = -1;
  uint32_t row_bytes = 0;
  uint16_t multicast = 0;  // .multicast::cluster: the CTAs (bit = rank) whose shared memory and mbarrier the copy fills
  uint8_t elem_bytes = 0;  // cp.reduce.async.bulk: bytes per element L2 combines
  std::array<uint16_t, kRowDims> rows{1, 1, 1, 1};
  // In units of 16 bytes (tensor maps' strides are multiples of 16): 32 bits reach 64 GiB, and
  // the record stays small (every WarpInst carries one).
  std::array<uint32_t, kRowDims> row_stride16{};

  // Whether a bulk copy fills the CTA of cluster rank `rank`, the issuer's own being `rank`.
  bool fills(uint32_t rank) const { return multicast == 0 || (multicast >> rank & 1); }
  uint64_t row_count() const { return uint64_t{rows[0]} * rows[1] * rows[2] * rows[3]; }
  uint64_t row_stride(int d) const { return uint64_t{row_stride16[d]} * 16; }
  // False when `bytes` is not a multiple of 16 below 64 GiB.
  bool set_row_stride(int d, uint64_t bytes) {
    if (bytes % 16 != 0 || bytes / 16 > UINT32_MAX) return false;
    row_stride16[d] = static_cast<uint32_t>(bytes / 16);
    return true;
  }
  // Calls f(first byte, bytes) for each row, innermost box dimension first.
  template <class F>
  void for_each_row(uint64_t base, F&& f) const {
    const uint64_t bytes = row_bytes ? row_bytes : tx_bytes;
    for (uint32_t d = 0; d < rows[3]; ++d)
      for (uint32_t c = 0; c < rows[2]; ++c)
        for (uint32_t b = 0; b < rows[1]; ++b)
          for (uint32_t a = 0; a < rows[0]; ++a)
            f(base + a * row_stride(0) + b * row_stride(1) + c * row_stride(2) + d * row_stride(3), bytes);
  }
};

struct WarpInst {
  const OpInfo* op = nullptr;
  uint32_t active_mask = 0;
  uint8_t num_dst = 0;
  uint8_t num_src = 0;
  // bar.sync/arrive/red (OpClass::kBarrier): which of the CTA's 16 barriers, and the warps its
  // phase expects (at most 32; 0: every warp of the CTA that has not exited, as when no thread
  // count is given). Here, in what would be padding: the record's size is speed.
  uint8_t barrier_id = 0;
  uint8_t barrier_warps = 0;
  const RegId* regs = nullptr;  // num_dst destinations, then num_src sources
  LaneAddresses addr;
  uint32_t line = 0;            // source line in the trace/PTX file, for messages and views
  uint32_t pc = 0;              // PTX frontend: index of the static instruction (0 for traces)
  uint32_t source_line = 0;     // PTX frontend: CUDA source line from the latest .loc (0 if none)
  uint32_t sleep_ns = 0;        // nanosleep: how long the warp sleeps
  // SASS: the scheduling bits ptxas wrote (isa/control_bits.h, as ControlBits::pack
  // packs them); 0 when the frontend has none (PTX, traces), and the scoreboard decides alone.
  uint32_t control = 0;
  MbarrierUse mbar;             // only for OpInfo::mbarrier operations

  RegId dst(int i) const { return regs[i]; }
  RegId src(int i) const { return regs[num_dst + i]; }
  int active_lanes() const { return bit_count(active_mask); }

  // True when every active lane's address is base + lane * stride (always so for the base and
  // stride form; for a list, when it happens to follow one stride). Sets base and stride.
  bool strided_form(uint64_t& base, int64_t& stride) const {
    if (!addr.list) {
      base = addr.base;
      stride = addr.stride;
      return true;
    }
    const uint32_t m = active_mask;
    if (m == 0) return false;
    const int l0 = std::countr_zero(m);
    stride = 0;
    if (m & (m - 1)) {
      const int l1 = std::countr_zero(m & (m - 1));
      const int64_t diff = static_cast<int64_t>(addr.list[1] - addr.list[0]);
      if (diff % (l1 - l0) != 0) return false;
      stride = diff / (l1 - l0);
    }
    base = addr.list[0] - static_cast<uint64_t>(stride * l0);
    int index = 0;
    for (uint32_t r = m; r; r &= r - 1, ++index)
      if (addr.list[index] != base + static_cast<uint64_t>(stride * std::countr_zero(r))) return false;
    return true;
  }

  // Calls f(lane, address) for each active lane in lane order.
  template <class F>
  void for_each_address(F&& f) const {
    uint32_t m = active_mask;
    int index = 0;
    while (m) {
      int lane = std::countr_zero(m);
      m &= m - 1;
      uint64_t a = addr.list ? addr.list[index] : addr.base + static_cast<uint64_t>(addr.stride * lane);
      f(lane, a);
      ++index;
    }
  }
};

}  // namespace warpsim
