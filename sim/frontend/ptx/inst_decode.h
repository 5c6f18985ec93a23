#pragma once
#include "frontend/ptx/program.h"

namespace warpsim::ptx {

// Fills what the emulator needs to execute `e` (its EmuOp code, types, rounding, state space,
// decoded matrix and collective fields) and the registers its scoreboard tracks, from the
// mnemonic and operands the lowering has already resolved. Sets nothing the lowering checks.
void decode_operation(EmuInst& e);

// vadd2, vsub2, vavrg2, vabsdiff2, vmin2, vmax2, vset2 and the 4-way forms: the SIMD video instructions.
bool is_simd_video(const std::string& base);

}  // namespace warpsim::ptx
