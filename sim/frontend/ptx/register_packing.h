#pragma once
// nvcc's PTX names a fresh virtual register for nearly every value, so a kernel declares hundreds
// of registers of which a few dozen are live at once. The emulator keeps 32 lanes of every
// register for every resident warp; packing registers whose live ranges never overlap into one
// storage register shrinks that state several times, and with it the cache misses that dominate
// emulation time (docs/performance.md).
#include "frontend/ptx/program.h"

namespace warpsim::ptx {

// Computes per-thread liveness on the instruction-level CFG, assigns each virtual register a
// storage register of the same width that no simultaneously live register uses, and rewrites the
// operands (and guards) of `program` to storage registers, filling `program.storage_bits`.
// The scoreboard registers (EmuInst::dsts/srcs) stay virtual, so timing is unchanged.
//
// Why this is exact: a lane only reads and writes its own column of a storage register, and each
// lane follows one path through the CFG, so a value is never overwritten while it can still be
// read on that path. A guarded write does not end a live range (the lanes it skips keep the old
// value), and an instruction's destinations never share storage with its sources, so no
// instruction's emulation has to read every lane before writing any.
void pack_registers(Program& program);

}  // namespace warpsim::ptx
