#pragma once
// Parses one instruction line of a trace:  [mask] [@[!]%p] mnemonic operands [; addr=...]
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontend/trace/line_cursor.h"
#include "frontend/warp_inst.h"

namespace warpsim {

// Hashes std::string keys and string_view probes alike, so that a lookup by a piece of the line
// builds no string (that allocation took 2-3% of a trace replay).
struct TextHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class V>
using TextMap = std::unordered_map<std::string, V, TextHash, std::equal_to<>>;

// Decoded mnemonics, interned so each distinct mnemonic is decoded once and instructions can
// point at a stable OpInfo.
class OpcodeCache {
 public:
  // Returns nullptr and sets `error` for an unknown mnemonic.
  const OpInfo* get(std::string_view mnemonic, std::string& error);

 private:
  TextMap<std::unique_ptr<OpInfo>> ops_;
};

// Register names of one kernel → dense ids for the scoreboard.
class RegisterNames {
 public:
  // Returns false if the kernel has more registers than RegId can number.
  bool id(std::string_view name, RegId& out);
  const std::string& name(RegId id) const { return names_[id]; }
  size_t size() const { return names_.size(); }

 private:
  TextMap<RegId> ids_;
  std::vector<std::string> names_;
};

// Registers and address lists of a CTA's instructions. While a CTA is parsed, instructions keep
// offsets into these vectors; resolve() turns them into pointers once the vectors stop growing.
struct InstructionPools {
  std::vector<RegId> regs;
  std::vector<uint64_t> addresses;
  void resolve(WarpInst& inst) const;
};

// `full_mask` is the warp's lanes (used when the line has no mask). Throws InputError.
WarpInst parse_instruction(LineCursor& c, uint32_t full_mask, OpcodeCache& opcodes, RegisterNames& registers,
                           InstructionPools& pools);

}  // namespace warpsim
