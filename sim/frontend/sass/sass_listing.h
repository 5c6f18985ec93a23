#pragma once
// A cubin as nvdisasm prints it (`nvdisasm -hex -g`, the text tools/kernels_make_sass.sh
// commits): per kernel, its SASS instructions with their 128-bit encodings and CUDA source
// lines, branch labels, the kernel attributes warpsim needs (.nv.info: where the parameters sit
// in constant bank 0, registers, stack frame), and the module's __constant__ bank (bank 3).
// Nothing is executed here; lower_sass.h turns a kernel into the emulator's program.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "isa/control_bits.h"

namespace warpsim::sass {

struct SassInstruction {
  uint32_t address = 0;      // byte offset in its .text section (16 bytes an instruction)
  uint32_t line = 0;         // in the listing, for messages
  uint32_t column = 0;       // of the opcode
  uint32_t source_file = 0;  // index into SassListing::source_files (0: none)
  uint32_t source_line = 0;  // the CUDA line (-lineinfo); 0 when the listing gives none
  std::string guard;         // "P0", "!P3", "UP1", "!UPT"; empty when unguarded
  std::string opcode;        // with its modifiers: "IMAD.WIDE.U32"
  std::vector<std::string> operands;  // as printed, split at top-level commas
  uint64_t low = 0, high = 0;         // the encoding, as nvdisasm's two words
  ControlBits control() const { return ControlBits::decode(high); }
};

struct SassFunction {
  std::string name;
  bool entry = false;                      // a kernel (STO_CUDA_ENTRY), not a subroutine section
  std::vector<SassInstruction> insts;      // in address order, insts[i].address == 16 * i
  std::map<std::string, uint32_t> labels;  // ".L_x_3" and subroutine names -> address
  uint32_t param_offset = 0;               // EIATTR_PARAM_CBANK: where parameters start in bank 0
  uint32_t param_bytes = 0;
  // EIATTR_KPARAM_INFO: each parameter's place (from param_offset) by its ordinal. ptxas aligns
  // each to its .align within the bank, not within the parameters (a 128-byte-aligned
  // CUtensorMap passed by value starts at 0x70 when they begin at 0x210).
  std::map<uint32_t, uint32_t> param_places;
  uint32_t registers = 0;                  // EIATTR_REGCOUNT
  uint32_t frame_bytes = 0;                // EIATTR_FRAME_SIZE: the stack frame per thread
  uint32_t line = 0;                       // the section header's line in the listing
};

struct ConstantSymbol {
  uint32_t offset = 0, bytes = 0;
};

struct SassListing {
  std::string file;
  std::vector<SassFunction> functions;
  std::vector<uint8_t> constant_bank;                 // .nv.constant3: the module's __constant__ data
  std::map<std::string, ConstantSymbol> constants;   // its variables
  // .nv.constant2.<kernel>: constants ptxas keeps for one kernel (sm_80's 64-bit immediates and
  // libdevice's coefficient tables), by kernel name.
  std::map<std::string, std::vector<uint8_t>> kernel_constants;
  // .nv.constant4: 64-bit slots the driver fills with the addresses of the module's __device__
  // variables and functions, by offset.
  std::map<uint32_t, std::string> address_slots;
  std::vector<std::string> source_files;              // [0] is "" (no file)
  const SassFunction* find(const std::string& name) const;
};

// Throws InputError at file:line:column for text that is not such a listing.
SassListing parse_sass_listing(const std::string& text, const std::string& file);
SassListing read_sass_listing(const std::string& path);

}  // namespace warpsim::sass
