#pragma once
// Shared-memory bank conflicts: the number of passes ("wavefronts") a warp's shared access
// needs. Each pass serves one distinct word per bank; lanes reading the same word share it
// (broadcast). 64- and 128-bit accesses cover 2 or 4 consecutive words per lane.
#include <cstdint>

#include "frontend/warp_inst.h"

namespace warpsim {

uint32_t shared_wavefronts(const WarpInst& inst, uint32_t banks, uint32_t bank_bytes);

// Distinct addresses among the active lanes (constant-cache accesses serialise on them).
uint32_t distinct_addresses(const WarpInst& inst);

}  // namespace warpsim
