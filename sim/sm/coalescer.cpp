#include "sm/coalescer.h"

#include <bit>

namespace warpsim {

void coalesce(const WarpInst& inst, uint32_t line_bytes, uint32_t sector_bytes, std::vector<LineAccess>& out) {
  out.clear();
  // Line and sector sizes are powers of two (checked when the config is read): shifts, not divisions.
  const int line_shift = std::countr_zero(line_bytes);
  const int sector_shift = std::countr_zero(sector_bytes);
  const uint64_t sector_in_line_mask = (line_bytes >> sector_shift) - 1;
  const uint64_t bytes = inst.op->access_bytes ? inst.op->access_bytes : 1;
  uint64_t last_sector = UINT64_MAX;
  auto add_sector = [&](uint64_t sector) {
    if (sector == last_sector) return;  // neighbouring lanes usually share a sector
    last_sector = sector;
    const uint64_t line = sector >> (line_shift - sector_shift);
    const uint32_t bit = 1u << (sector & sector_in_line_mask);
    // Lanes of a warp mostly touch few lines, and usually the one touched last: search backwards.
    for (size_t i = out.size(); i-- > 0;) {
      if (out[i].line == line) {
        out[i].sectors |= bit;
        return;
      }
    }
    out.push_back(LineAccess{line, bit});
  };
  auto add_bytes = [&](uint64_t a) {
    // An access may span sectors (a misaligned explicit address list can).
    const uint64_t first = a >> sector_shift, last = (a + bytes - 1) >> sector_shift;
    for (uint64_t s = first; s <= last; ++s) add_sector(s);
  };
  const uint64_t row = inst.op->tex_row_bytes, slice = inst.op->tex_slice_bytes;
  if (row == 0 && slice == 0) {
    if (inst.addr.list || inst.addr.stride < 0 || static_cast<uint64_t>(inst.addr.stride) > bytes) {
      inst.for_each_address([&](int, uint64_t a) { add_bytes(a); });
      return;
    }
    // Lanes no further apart than their width (unit-stride and broadcast accesses, the usual
    // case): each run of consecutive active lanes covers one unbroken byte range, taken sector by
    // sector instead of lane by lane. Sectors come in the order the lanes would give them.
    const auto stride = static_cast<uint64_t>(inst.addr.stride);
    for (uint64_t m = inst.active_mask; m;) {
      const int lo = std::countr_zero(m);
      const int hi = lo + std::countr_one(m >> lo);  // one past the run's last lane
      m &= ~((uint64_t{1} << hi) - 1);
      const uint64_t first = (inst.addr.base + stride * static_cast<uint64_t>(lo)) >> sector_shift;
      const uint64_t last = (inst.addr.base + stride * static_cast<uint64_t>(hi - 1) + bytes - 1) >> sector_shift;
      for (uint64_t s = first; s <= last; ++s) add_sector(s);
    }
    return;
  }
  // A filtered texture fetch's footprint: the same bytes of the next row and slice too.
  inst.for_each_address([&](int, uint64_t a) {
    add_bytes(a);
    if (row) add_bytes(a + row);
    if (slice) add_bytes(a + slice);
    if (row && slice) add_bytes(a + row + slice);
  });
}

}  // namespace warpsim
