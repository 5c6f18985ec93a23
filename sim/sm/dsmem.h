#pragma once
// Distributed shared memory (Hopper+): a .shared::cluster access either stays in the issuing
// CTA's own shared memory (banked, like any shared access) or crosses the GPC's SM-to-SM network
// to another CTA of the cluster. NVIDIA's Hopper tuning guide asks for DSMEM accesses
// "coalesced and aligned to 32-byte segments", so the network moves 32-byte segments.
#include <cstdint>

#include "frontend/warp_inst.h"

namespace warpsim {

struct DsmemAccess {
  bool remote = false;        // some active lane names another CTA's shared memory
  uint32_t segments = 0;      // distinct 32-byte segments those lanes touch (per target CTA)
};

// Classifies a kSharedCluster access by the rank bits of its addresses (op_info.h).
// `own_rank` is the issuing CTA's rank in its cluster.
DsmemAccess classify_dsmem(const WarpInst& inst, uint32_t own_rank);

}  // namespace warpsim
