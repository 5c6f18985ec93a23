#pragma once
// One SASS operand as nvdisasm prints it, taken apart: registers (R, UR, P, UP, B and their zero
// forms RZ, URZ, PT, UPT), constants c[bank][offset] (also indexed by a register), immediates,
// memory addresses ([R2.64+UR4+0x10], desc[UR6][...], [R0.X4]), special registers (SR_TID.X),
// labels (`(.L_x_3)) and the modifiers around them (-, |x|, !, ~, .reuse, .H1, .ROW).
#include <cstdint>
#include <optional>
#include <string>

namespace warpsim::sass {

enum class RegFile : uint8_t { kNone, kR, kUR, kP, kUP, kB };

struct SassReg {
  RegFile file = RegFile::kNone;
  uint32_t index = 0;  // RZ is 255, URZ 63, PT and UPT 7
  bool zero() const {
    return (file == RegFile::kR && index == 255) || (file == RegFile::kUR && index == 63) ||
           ((file == RegFile::kP || file == RegFile::kUP) && index == 7);
  }
  bool valid() const { return file != RegFile::kNone; }
};

struct SassOperand {
  enum class Kind : uint8_t { kReg, kConst, kImm, kAddress, kSpecial, kLabel, kWord };
  Kind kind = Kind::kWord;
  std::string text;     // as printed
  SassReg reg;          // kReg; kConst's index register; kAddress's base register
  bool negate = false, absolute = false, invert = false;  // -x, |x|, !P / ~R
  std::string selector;  // a half selector or a layout: "H0_H0", "H1_H1", "H1", "ROW", "COL", "F32", "64"; empty when none
  // kConst: c[bank][offset] or c[bank][reg + offset].
  uint32_t bank = 0;
  // kImm: the printed value (integers; a float's text is in `text`, its bits come from the
  // encoding). kAddress and kConst: the byte offset.
  int64_t value = 0;
  bool is_float_text = false;
  // kAddress: [base(.64|.X4...) + uniform + offset]; `wide`: the base is a 64-bit register pair.
  bool wide = false;
  uint8_t scale = 1;     // [R0.X4]: the base times 4
  SassReg uniform;       // the UR added to the address (invalid: none)
  bool descriptor = false;  // desc[URn][...]: a memory descriptor precedes the address (ignored by the emulator)
  std::string name;     // kSpecial: "SR_TID.X"; kLabel: the label; kWord: the word ("PR", "2D", "gsb0")
};

// Parses one operand; nullopt with `why` set when the text is none of the forms above.
std::optional<SassOperand> parse_operand(const std::string& text, std::string& why);
// "R12" -> {kR, 12}; "RZ", "URZ", "PT", "UPT", "B3"; invalid when the text names no register.
SassReg parse_register(const std::string& text);

}  // namespace warpsim::sass
