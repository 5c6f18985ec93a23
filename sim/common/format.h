#pragma once
// printf-style formatting of one number into a std::string, for reports, views and messages.
#include <cstdint>
#include <cstdio>
#include <string>

namespace warpsim {

inline std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// An address as messages and traces write it: "0x1a2b".
inline std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace warpsim
