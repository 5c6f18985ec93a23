#pragma once
// Splits PTX text into tokens with their line and column.
#include <cstdint>
#include <string>
#include <vector>

namespace warpsim::ptx {

struct Token {
  enum class Kind { kWord, kNumber, kString, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;
  uint32_t line = 0, column = 0;
  bool is(const char* s) const { return text == s && kind != Kind::kString; }
};

// Words are identifiers, directives, registers and dotted mnemonics ("ld.shared::cta.b32",
// "%tid.x", "$L__BB0_2"); numbers include 0f/0d float bit patterns. Comments are dropped.
// Throws InputError on characters that cannot start a token.
std::vector<Token> tokenize_ptx(const std::string& text, const std::string& file_name);

std::string describe(const Token& t);  // "'foo'" or "end of file", for messages

}  // namespace warpsim::ptx
