#include "report/csv_report.h"

#include <cstdio>

namespace warpsim {
std::string csv_quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

namespace {
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
      out += csv_quote(k.name) + "," + csv_quote(m.name) + "," + csv_quote(m.unit) + "," + num(m.value) + "," + csv_quote(m.kind) + "\n";
    }
  }
  return out;
}

}  // namespace warpsim
