#include "sm/dsmem.h"

#include <algorithm>
#include <array>

namespace warpsim {

DsmemAccess classify_dsmem(const WarpInst& inst, uint32_t own_rank) {
  DsmemAccess out;
  std::array<uint64_t, 64> seen;  // a lane's access spans at most two segments
  size_t count = 0;
  const uint32_t bytes = std::max<uint32_t>(1, inst.op->access_bytes);
  inst.for_each_address([&](int, uint64_t a) {
    const uint64_t rank_plus_one = a >> kClusterRankShift;
    if (rank_plus_one == 0 || rank_plus_one == uint64_t{own_rank} + 1) return;
    out.remote = true;
    for (uint64_t s = a / 32; s <= (a + bytes - 1) / 32; ++s) {
      if (std::find(seen.begin(), seen.begin() + static_cast<long>(count), s) == seen.begin() + static_cast<long>(count) &&
          count < seen.size())
        seen[count++] = s;
    }
  });
  out.segments = static_cast<uint32_t>(count);
  return out;
}

}  // namespace warpsim
