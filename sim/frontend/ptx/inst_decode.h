#pragma once
#include "frontend/ptx/program.h"

namespace warpsim::ptx {

// Fills what the emulator needs to execute `e` (its EmuOp code, types, rounding, state space,
// decoded matrix and collective fields) and the registers its scoreboard tracks, from the
// mnemonic and operands the lowering has already resolved. Sets nothing the lowering checks.
void decode_operation(EmuInst& e);

}  // namespace warpsim::ptx
