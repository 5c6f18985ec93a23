#pragma once
// What a launch file's run leaves besides timing, shared by `warpsim run` (with and without
// --functional) and `warpsim trace`: the kernels' printf output, the reference check, the
// checkers' findings.
#include <nlohmann/json.hpp>
#include <string>

#include "frontend/ptx/launch.h"

namespace warpsim::cli {

// Adds "check" (when the launch file has an expect:), "findings" and "device_printf".
void add_launch_json(nlohmann::ordered_json& j, const ptx::PtxWorkload& launch);
// "check: passed" or "check: FAILED" and its lines, on stdout (nothing without an expect:).
// "isa: sass" (one entry per launch): which instructions ran.
std::string isa_line(const ptx::PtxWorkload& launch);
// Why a launch that could run SASS runs PTX (stderr, one line each).
void print_isa_notes(const ptx::PtxWorkload& launch);
// The isa line, then the expect: check's result when the file has one.
void print_check(const ptx::PtxWorkload& launch, const ptx::CheckResult& check);
// The checkers' findings on stderr, one "warpsim: kind: message" line each.
void print_findings(const ptx::PtxWorkload& launch);
// Prints the findings; the exit code for them and the check (findings first, when `checks` is
// "error").
int launch_exit_code(const ptx::PtxWorkload& launch, const std::string& checks, const ptx::CheckResult& check);

}  // namespace warpsim::cli
