#pragma once
// The divergence view: per chosen warp, a lanes-by-time picture (one row per issued
// instruction: 32 columns, lane 0 on the left), where paths split and reconverge, then lane
// efficiency and the idle lanes each branch cost. Plain ASCII; ANSI colour only when asked.
#include <string>

#include "views/divergence_recorder.h"

namespace warpsim {

std::string divergence_view(const std::vector<KernelDivergence>& kernels, bool colour);

}  // namespace warpsim
