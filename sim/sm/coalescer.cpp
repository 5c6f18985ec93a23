#include "sm/coalescer.h"

namespace warpsim {

void coalesce(const WarpInst& inst, uint32_t line_bytes, uint32_t sector_bytes, std::vector<LineAccess>& out) {
  out.clear();
  const uint64_t bytes = inst.op->access_bytes ? inst.op->access_bytes : 1;
  auto add = [&](uint64_t address) {
    uint64_t line = address / line_bytes;
    uint32_t sector = 1u << ((address % line_bytes) / sector_bytes);
    // Lanes of a warp mostly touch few lines, and usually the one touched last: search backwards.
    for (size_t i = out.size(); i-- > 0;) {
      if (out[i].line == line) {
        out[i].sectors |= sector;
        return;
      }
    }
    out.push_back(LineAccess{line, sector});
  };
  inst.for_each_address([&](int, uint64_t a) {
    // An access may span sectors (16-byte loads at 16-byte alignment do not; unaligned lists may).
    uint64_t first = a / sector_bytes, last = (a + bytes - 1) / sector_bytes;
    for (uint64_t s = first; s <= last; ++s) add(s * sector_bytes);
  });
}

}  // namespace warpsim
