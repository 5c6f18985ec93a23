#pragma once
// Lowers one kernel of a SASS listing to the program the CTA emulator runs, so that the GPU's own
// instructions are executed and timed. SASS's arithmetic becomes EmuOp::kSass (sass_alu.h), its
// control flow EmuOp::kSassFlow (sass_flow.h), and every instruction that means what a PTX
// instruction means (memory, atomics, shuffles, barriers, MMAs) becomes that PTX instruction,
// so its semantics and the kernel checkers exist once. Each record keeps the SASS opcode's
// timing (pipe by opcode, the control bits).
#include <cstdint>
#include <map>
#include <utility>
#include <string>
#include <vector>

#include "common/dim3.h"
#include "frontend/ptx/program.h"
#include "frontend/sass/sass_listing.h"

namespace warpsim::sass {

// What one launch puts in the constant banks and the shared window.
struct SassLaunch {
  Dim3 grid, block, cluster{1, 1, 1};
  bool explicit_cluster = false;     // launched with clusters (%is_explicit_cluster)
  uint64_t grid_workspace = 0;       // a cooperative launch's grid-barrier workspace (%envreg1:%envreg2)
  std::vector<uint8_t> params;       // the parameter buffer, in the PTX's layout
  // Each parameter's (offset, bytes) in `params`, in order: the listing places them itself.
  std::vector<std::pair<uint64_t, uint64_t>> param_fields;
  uint32_t compute_capability = 90;  // x10
  uint64_t static_shared_bytes = 0;  // the kernel's own shared variables (from its PTX)
  // Constant bank 3, the module's __constant__ variables as the launch sets them (the listing's
  // initial bytes, with the launch file's `constants:` values written over them).
  std::vector<uint8_t> constants;
  // Device addresses of the module's __device__ variables, for the slots of constant bank 4.
  std::map<std::string, uint64_t> addresses;
  // The addresses of the module's device functions (ptx/function_addresses.h), which function
  // pointers in memory hold: a call through one goes to the listing's subroutine of that name
  // (ptxas copies each into the kernel's code as `$kernel$name`).
  std::map<std::string, uint64_t> functions;
};

// Bytes at the bottom of a CTA's shared window that the driver keeps (ptxas adds them to every
// shared address: `UMOV URn, 0x400` before the first shared access of every sm_90 kernel here);
// none before Hopper.
uint32_t reserved_shared_bytes(uint32_t compute_capability);

// Throws InputError at the listing's file:line:column for an instruction the emulator cannot
// run, naming it.
ptx::Program lower_sass(const SassListing& listing, const std::string& kernel, const SassLaunch& launch);

}  // namespace warpsim::sass
