#pragma once
// SASS opcodes (as NVBit prints them in Accel-Sim traces, with modifiers) mapped to the PTX-style
// mnemonic warpsim times them as. One table serves replay (the mnemonic is decoded into an
// OpInfo like any trace instruction) and `warpsim convert` (the mnemonic is written out).
#include <cstdint>
#include <string>
#include <string_view>

namespace warpsim {

struct SassMapping {
  std::string mnemonic;  // e.g. "fma.rn.f32", "ld.global.v4.b32", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
  bool known = true;     // false: not in the table, timed as the documented default (an ALU move)
};

// `mem_width` is the bytes per lane the trace gives for memory instructions (0 otherwise);
// `binary_version` is the kernel's SM version (70, 75, 80, 86, 89, 90, 100).
SassMapping map_sass_opcode(std::string_view opcode, uint32_t mem_width, uint32_t binary_version);

// What an unknown opcode is timed as.
inline constexpr const char* kDefaultSassMnemonic = "mov.b32";

}  // namespace warpsim
