#pragma once
// Shared-memory bank conflicts: the number of passes ("wavefronts") a warp's shared access
// needs. Each pass serves one distinct word per bank; lanes reading the same word share it
// (broadcast). 64- and 128-bit accesses cover 2 or 4 consecutive words per lane.
#include <cstdint>

#include "frontend/warp_inst.h"

namespace warpsim {

struct SharedPasses {
  uint32_t wavefronts = 1;  // passes taken, conflict replays included
  // Passes the distinct words would need at best (one word per bank per pass). Nsight Compute
  // counts bank conflicts as the wavefronts beyond this: a conflict-free 128-bit load of a full
  // warp takes 4 wavefronts and reports 0 conflicts.
  uint32_t ideal = 1;
};

SharedPasses shared_passes(const WarpInst& inst, uint32_t banks, uint32_t bank_bytes);

// Distinct addresses among the active lanes (constant-cache accesses serialise on them).
uint32_t distinct_addresses(const WarpInst& inst);

}  // namespace warpsim
