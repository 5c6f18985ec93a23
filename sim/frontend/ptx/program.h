#pragma once
// A PTX function lowered for execution: registers numbered densely, operands resolved to
// register ids, immediates, special registers and addresses, branch targets to instruction
// indices, and each branch's reconvergence point (its immediate post-dominator).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frontend/ptx/ptx_module.h"
#include "isa/op_info.h"

namespace warpsim::ptx {

enum class Special : uint8_t { kNone, kTid, kNtid, kCtaid, kNctaid, kLaneid, kWarpid, kNwarpid, kSmid, kClock, kLanemaskLt, kLanemaskLe, kLanemaskEq };

struct EmuOperand {
  enum class Kind : uint8_t { kNone, kReg, kImm, kSpecial, kAddr, kVector, kLabel, kSink };
  Kind kind = Kind::kNone;
  int32_t reg = -1;            // kReg; kAddr base register (-1: absolute)
  uint64_t bits = 0;           // kImm value (float bits for float immediates); kAddr: symbol address + offset
  bool is_float = false, is_double = false, negated = false;
  Special special = Special::kNone;
  uint8_t dim = 0;             // .x .y .z
  MemSpace symbol_space = MemSpace::kNone;  // kAddr on a named variable: its space
  std::vector<int32_t> regs;   // kVector (a sink is -1); a %p|%q pair is a vector of two
  uint32_t target = 0;         // kLabel: instruction index
};

struct EmuInst {
  std::string opcode;
  std::string base;                 // "add", "ld", "setp", ...
  std::vector<std::string> mods;    // every dotted suffix after the base
  std::vector<std::string> types;   // the type suffixes in order ("s64", "s32" for cvt.s64.s32)
  OpInfo op;                        // for the timing model
  int32_t guard = -1;
  bool guard_negated = false;
  std::vector<EmuOperand> operands;
  uint32_t line = 0, source_line = 0;
  uint32_t reconverge = 0;          // branches: the immediate post-dominator (index; size() = exit)
  bool has(const char* m) const;
};

struct Program {
  std::string name;
  std::vector<EmuInst> insts;
  std::vector<std::string> register_names;
  std::vector<uint32_t> register_bits;  // 1 for .pred, else 16/32/64
  std::map<std::string, uint64_t> params;  // name → byte offset in the parameter buffer
  std::vector<Variable> param_vars;
  uint64_t param_bytes = 0;
  uint64_t static_shared_bytes = 0;     // module and function .shared, except extern ones
  uint64_t dynamic_shared_offset = 0;   // where extern .shared starts
  uint32_t source_file = 0;
};

// Lowers `entry` of `module`. Throws InputError (at the PTX line) for instructions the emulator
// cannot run, naming them.
Program lower(const Module& module, const std::string& entry);

}  // namespace warpsim::ptx
