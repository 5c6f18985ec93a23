#pragma once
// Turns a warp's per-lane addresses into the 128-byte lines and 32-byte sectors it touches, as
// the L1TEX unit does: each lane's access covers access_bytes from its address; the request is
// one "line access" per distinct line, each with a mask of sectors.
#include <cstdint>
#include <vector>

#include "frontend/warp_inst.h"

namespace warpsim {

struct LineAccess {
  uint64_t line;     // address / line_bytes
  uint32_t sectors;  // bit i = sector i of the line
};

// Appends to `out` (cleared first) in order of first touch by ascending lane.
void coalesce(const WarpInst& inst, uint32_t line_bytes, uint32_t sector_bytes, std::vector<LineAccess>& out);

}  // namespace warpsim
