#pragma once
// Messages between an SM's load/store unit and the memory side (interconnect, L2, HBM).
#include <cstdint>

#include "engine/cycle.h"

namespace warpsim {

enum class MemOp : uint8_t {
  kRead,     // fill L1 sectors (or bypass L1 for .cg), answered with data
  kWrite,    // write-through store, answered with an acknowledgement
  kAtomic,   // read-modify-write at L2, answered with data
  kReduce,   // atomic without a return value, answered with an acknowledgement
};

struct MemRequest {
  uint64_t line = 0;          // line index (address / line_bytes)
  uint32_t sectors = 0;       // sector mask within the line
  uint32_t token = 0;         // the requester's handle, returned in the response
  uint16_t sm = 0;
  MemOp op = MemOp::kRead;
  uint8_t ops = 1;            // atomics: lane operations on this line (each a read-modify-write at L2)
  // atomics: the clocks L2's atomic unit spends on them, one per 32-byte sector updated: lanes
  // to different words of a sector share a clock, lanes to the same word take one each.
  uint8_t updates = 1;
  bool evict_first = false;   // .cs/.lu: L2 keeps the line as the next to evict in its set
};

struct MemResponse {
  uint64_t line = 0;
  uint32_t sectors = 0;
  uint32_t token = 0;
  MemOp op = MemOp::kRead;
};

// What an SM offers the memory side: a way to hand it responses.
class MemResponder {
 public:
  virtual ~MemResponder() = default;
  virtual void deliver(const MemResponse& response, Cycle arrival) = 0;
};

}  // namespace warpsim
