#pragma once
// printf-style formatting of one number into a std::string, for reports and views.
#include <cstdio>
#include <string>

namespace warpsim {

inline std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace warpsim
