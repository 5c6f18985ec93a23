#pragma once
// The pipe Nsight Compute counts a SASS opcode on (sm__inst_executed_pipe_*), which is not always
// the pipe the PTX instruction it is timed as would use: ptxas moves constants with HFMA2.MMA on
// the tensor pipe and with IMAD.MOV on the FMA pipe, uniform-datapath opcodes have a pipe of their
// own, and S2R and shared-memory accesses count on the LSU.
#include <cstdint>
#include <string_view>

#include "frontend/sass/sass_listing.h"
#include "isa/op_info.h"

namespace warpsim::sass {

// Pipe::kCount: no opinion (the pipe that times it counts it). `compute_capability`: 80, 90, ...
Pipe counted_pipe(const SassInstruction& in, uint32_t compute_capability);

}  // namespace warpsim::sass
