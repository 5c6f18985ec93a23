#include "report/csv_report.h"

#include <cstdio>

namespace warpsim {
namespace {
std::string quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}
}  // namespace

std::string csv_report(const std::vector<Summary>& kernels) {
  std::string out = "\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Kind\"\n";
  for (const auto& k : kernels) {
    for (const auto& m : k.metrics) {
      out += quote(k.name) + "," + quote(m.name) + "," + quote(m.unit) + "," + num(m.value) + "," + quote(m.kind) + "\n";
    }
  }
  return out;
}

}  // namespace warpsim
