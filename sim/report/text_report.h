#pragma once
#include <string>
#include <vector>

#include "report/kernel_summary.h"

namespace warpsim {

// The readable summary `warpsim run` prints: one block per kernel, then the total if several.
std::string text_report(const GpuSpec& spec, const std::vector<Summary>& kernels, const Summary& total);

}  // namespace warpsim
