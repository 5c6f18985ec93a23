#pragma once
#include <cstdint>
#include <limits>

namespace warpsim {

// Simulated time: an integer count of core-clock cycles. Other clock domains (HBM) are
// converted to core cycles when the config is loaded; there is no floating-point time.
using Cycle = uint64_t;
inline constexpr Cycle kNever = std::numeric_limits<Cycle>::max();

}  // namespace warpsim
