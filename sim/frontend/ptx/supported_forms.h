#pragma once
// The forms of instructions the emulator runs, where it runs only some of an instruction's forms
// (mma.sync shapes and types, wgmma, tcgen05, ldmatrix, mbarrier spaces...; wmma's fragments are
// checked where they are decoded, in program.cpp).
// Checked when the PTX is lowered, so an unsupported form is refused at its line before any
// simulation starts.
#include <string>

#include "frontend/ptx/program.h"
#include "frontend/ptx/ptx_module.h"

namespace warpsim::ptx {

// "" when the emulator runs `in`, partly lowered into `e` (base, mods, types, operands), else why not.
std::string unsupported_form(const Instruction& in, const EmuInst& e);

}  // namespace warpsim::ptx
