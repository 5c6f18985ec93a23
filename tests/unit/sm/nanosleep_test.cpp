// nanosleep suspends the warp for its duration (PTX ISA: about t ns, 0 to 2t allowed; the model
// takes t) at the simulated clock, in the stall state Nsight Compute calls "sleeping"; the PTX
// emulator hands the duration to the timing model, and traces carry it as ns=.
#include <gtest/gtest.h>

#include <cmath>

#include "support/test_support.h"

namespace warpsim {
namespace {

std::string sleep_trace(const std::string& ns) {
  return test::kernel_header("k", 1, 32) + ".cta 0 0 0\n.warp 0\nnanosleep.u32 ; ns=" + ns + "\nadd.s32 %r1, %r1, 1\nexit\n";
}

TEST(Nanosleep, TheWarpSleepsItsDurationAtTheSimulatedClock) {
  auto none = test::simulate_text("h100", sleep_trace("0"));
  auto slept = test::simulate_text("h100", sleep_trace("1000"));
  const GpuSpec& spec = slept.config.spec;
  // 1000 ns at the boost clock the model counts cycles in: the add issues that many cycles after
  // the nanosleep, where it would have issued one cycle after.
  const auto sleep = static_cast<uint64_t>(std::ceil(1000 * spec.clocks.boost_mhz / 1000.0));
  EXPECT_EQ(slept.kernels.at(0).cycles - none.kernels.at(0).cycles, sleep - 1);
  EXPECT_GT(slept.kernels.at(0).stalls[static_cast<size_t>(StallReason::kSleeping)], 0.0);
  test::TempDir dir;
  auto r = test::run_cli({"run", "--arch", "h100", dir.write("bad.trace", sleep_trace("2000000")), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("ns= is nanosleep's duration in nanoseconds, 0 to 1000000"), std::string::npos) << r.err;
}

TEST(Nanosleep, ThePtxEmulatorHandsTheDurationToTheTrace) {
  test::TempDir dir;
  dir.write("k.ptx", R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry nap()
{
  .reg .b32 %r<4>;
  mov.u32 %r1, 500;
  nanosleep.u32 %r1;
  nanosleep.u32 250;
  ret;
}
)");
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: nap\ngrid: [1]\nblock: [32]\nargs: []\n");
  const auto r = test::run_and_replay("a100", launch, dir);
  EXPECT_NE(r.trace.find("nanosleep.u32 %r1; ns=500"), std::string::npos) << r.trace;
  EXPECT_NE(r.trace.find("nanosleep.u32 ; ns=250"), std::string::npos) << r.trace;
  EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
}

}  // namespace
}  // namespace warpsim
