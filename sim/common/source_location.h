#pragma once
// Where a piece of user input came from, so every error can say file:line:col.
#include <cstdint>
#include <string>

namespace warpsim {

struct SourceLocation {
  std::string file;   // path as the user gave it, or a pseudo-name like "--set #2"
  uint32_t line = 0;  // 1-based; 0 when unknown
  uint32_t column = 0;  // 1-based; 0 when unknown

  std::string str() const {
    std::string s = file;
    if (line) s += ":" + std::to_string(line);
    if (line && column) s += ":" + std::to_string(column);
    return s;
  }
};

}  // namespace warpsim
