#pragma once
// The timing model's state of one resident warp.
#include <cstdint>

#include "frontend/kernel_source.h"
#include "sm/dependence_barriers.h"
#include "sm/scoreboard.h"
#include "stats/stall_reason.h"

namespace warpsim {

// Laid out for the scheduler's scan: every cycle each sub-partition looks at its warps, and what
// that look and classify() read (the flags, first_cycle, until, current and its registers, the
// scoreboard's bounds) fills the first 64 bytes, one host cache line (the struct is aligned to
// it), so a scan costs one miss per warp, not two or three (docs/performance.md).
struct alignas(64) Warp {
  bool resident = false;
  bool exited = false;      // executed exit or ran out of instructions; may still be draining
  bool at_barrier = false;
  // Held until held_until, in state held_for: barrier.cluster.wait (kNever until its phase
  // completes) or nanosleep.
  bool held = false;
  bool at_membar = false;
  // Every operand of `current` was found ready. Only the warp's own issue can make a ready
  // register busy again, so an eligible warp left waiting keeps this until it advances.
  bool operands_ready = false;
  // The warp's state as last classified. A stalled warp keeps it (and is counted in the SM's
  // population of that state) until `until` passes or an event marks it dirty.
  bool dirty = true;
  bool in_population = false;
  StallReason reason = StallReason::kNoInstruction;
  StallReason held_for = StallReason::kBarrier;
  Pipe current_pipe = Pipe::kNone;
  uint8_t barrier_id = 0;   // the CTA barrier it waits at, when at_barrier
  // At a CTA barrier, the next instruction is fetched when the barrier releases the warp (Sm::advance).
  bool fetch_deferred = false;
  bool after_branch = false;
  uint16_t current_reg_count = 0;
  Cycle first_cycle = 0;    // first cycle it takes part in (launches inside a tick start next cycle)
  Cycle until = 0;
  const WarpInst* current = nullptr;  // next instruction to issue
  // `current`'s registers and pipe, copied here when it is fetched (and in the host's cache), so
  // that a warp that waited long can be classified without first waiting for the record.
  const RegId* current_regs = nullptr;
  Scoreboard scoreboard;
  // Read when a warp issues, retires or gets a response.
  uint32_t cta_slot = 0;
  uint32_t warp_in_cta = 0;
  uint64_t age = 0;         // launch order; GTO prefers the oldest
  WarpStream* stream = nullptr;
  uint32_t outstanding_loads = 0;
  uint32_t outstanding_stores = 0;
  Cycle drain_until = 0;              // an exited warp retires once its last register write lands
  uint32_t branch_mask = 0;           // mask of the last branch, to detect divergence
  // Rarely used.
  uint32_t cluster_arrivals = 0;    // barrier.cluster.arrive instructions executed
  Cycle held_until = 0;             // see `held`
  Cycle cluster_writes_done = 0;    // when its stores and atomics into other CTAs' shared memory have landed
  Cycle tensor_done = 0;            // its last tcgen05.mma completes (tcgen05.commit arrives then)
  // SASS (instructions with control bits, isa/control_bits.h): the first cycle the last issued
  // instruction's stall count lets the next issue, whether it asked the scheduler to switch to
  // another warp, and the dependence barriers its instructions set.
  Cycle issue_after = 0;
  bool yielded = false;
  DependenceBarriers barriers;
};

}  // namespace warpsim
