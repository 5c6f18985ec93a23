#pragma once
// Why a resident warp did not issue in a cycle, named as Nsight Compute names its warp states
// (smsp__average_warps_issue_stalled_<name>_per_issue_active.ratio).
#include <array>
#include <cstdint>
#include <string_view>

namespace warpsim {

enum class StallReason : uint8_t {
  kSelected,          // issued this cycle
  kNotSelected,       // eligible, another warp was picked
  kLongScoreboard,    // waiting for an L1TEX result (global, local, atomics)
  kShortScoreboard,   // waiting for an MIO result (shared memory, special math, shuffles)
  kWait,              // fixed-latency dependency
  kMathPipeThrottle,  // the math pipe it needs is busy
  kMioThrottle,       // MIO queue (shared memory, special math) full
  kLgThrottle,        // local/global queue full
  kBarrier,           // waiting at bar.sync for the rest of its CTA
  kMembar,            // waiting for a memory fence
  kDrain,             // exited, waiting for its stores to be acknowledged
  kNoInstruction,     // no instruction available
  kSleeping,          // suspended by nanosleep
  kCount
};
inline constexpr int kNumStallReasons = static_cast<int>(StallReason::kCount);

inline std::string_view stall_reason_name(StallReason r) {
  static constexpr std::array<std::string_view, kNumStallReasons> kNames{
      "selected", "not_selected", "long_scoreboard", "short_scoreboard", "wait", "math_pipe_throttle",
      "mio_throttle", "lg_throttle", "barrier", "membar", "drain", "no_instruction", "sleeping"};
  return kNames[static_cast<int>(r)];
}

}  // namespace warpsim
