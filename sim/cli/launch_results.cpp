#include "cli/launch_results.h"

#include <iostream>

#include "common/error.h"

namespace warpsim::cli {

std::string isa_line(const ptx::PtxWorkload& launch) {
  const auto isas = launch.isas();
  std::string line = "isa: ";
  for (size_t i = 0; i < isas.size(); ++i) line += (i ? ", " : "") + isas[i];
  return line + (isas.size() > 1 ? " (one per launch)" : "") + "\n";
}

void print_isa_notes(const ptx::PtxWorkload& launch) {
  for (const auto& n : launch.notes()) std::cerr << "warpsim: note: " << n << "\n";
}

void add_launch_json(nlohmann::ordered_json& j, const ptx::PtxWorkload& launch) {
  j["isa"] = launch.isas();
  if (!launch.spec().expect.empty()) {
    const ptx::CheckResult c = launch.check();
    j["check"] = {{"passed", c.passed}, {"largest_error", c.largest_error}, {"details", c.lines}};
  }
  auto f = nlohmann::ordered_json::array();
  for (const auto& x : launch.findings().list) f.push_back({{"kind", x.kind}, {"message", x.message}});
  j["findings"] = f;
  j["device_printf"] = launch.device_output();
}

void print_check(const ptx::PtxWorkload& launch, const ptx::CheckResult& check) {
  std::cout << isa_line(launch);
  if (launch.spec().expect.empty()) return;
  std::cout << "check: " << (check.passed ? "passed" : "FAILED") << "\n";
  for (const auto& l : check.lines) std::cout << "  " << l << "\n";
}

void print_findings(const ptx::PtxWorkload& launch) {
  for (const auto& f : launch.findings().list) std::cerr << "warpsim: " << f.kind << ": " << f.message << "\n";
}

int launch_exit_code(const ptx::PtxWorkload& launch, const std::string& checks, const ptx::CheckResult& check) {
  print_findings(launch);
  if (!launch.findings().list.empty() && checks == "error") return kExitFindings;
  return check.passed ? kExitOk : kExitCheck;
}

}  // namespace warpsim::cli
