// The timing model obeys the scheduling bits ptxas wrote: a stall count delays the warp's next
// instruction by exactly that many cycles, and a wait mask holds an instruction until the
// barriers it names are released. One warp of saxpy on the H200 from its sm_90a listing, with
// one instruction's bits edited: nothing else competes, so the differences are analytic.
#include <gtest/gtest.h>

#include <regex>

#include "config/load_config.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

// The listing with `f` applied to the control word (the second, high 64-bit word) of the
// instruction at byte offset `at` of saxpy.
std::string edit_control(const std::string& listing, const std::string& at, uint64_t (*f)(uint64_t)) {
  const size_t inst = listing.find("/*" + at + "*/", listing.find(".text.saxpy:"));
  EXPECT_NE(inst, std::string::npos);
  const size_t high = listing.find("0x", listing.find('\n', inst));
  const uint64_t word = f(std::stoull(listing.substr(high + 2, 16), nullptr, 16));
  char hex[19];
  std::snprintf(hex, sizeof hex, "0x%016llx", static_cast<unsigned long long>(word));
  return listing.substr(0, high) + hex + listing.substr(high + 18);
}

uint64_t cycles_of_one_warp(const test::TempDir& dir, const std::string& listing, const std::string& name) {
  std::string launch = test::shipped_launch("saxpy.launch.yaml");
  launch = std::regex_replace(launch, std::regex(R"(grid: \[32, 1, 1\])"), "grid: [1, 1, 1]");
  launch = std::regex_replace(launch, std::regex(R"(block: \[256, 1, 1\])"), "block: [32, 1, 1]");
  launch = launch.substr(0, launch.find("dump:"));  // 32 of the 8192 elements: no reference check
  dir.write(name + ".sass", listing);
  const std::string file = dir.write(name + ".launch.yaml", "sass: " + dir.path(name + ".sass") + "\n" + launch);
  const auto r = test::run_cli({"run", "--arch", "h200", "--isa", "sass", file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  EXPECT_TRUE(std::regex_search(r.out, m, std::regex(R"(cycles +([0-9]+))"))) << r.out;
  return m.empty() ? 0 : std::stoull(m[1]);
}

constexpr int kStallShift = 41;      // isa/control_bits.h: bits 41-44 of the high word
constexpr int kWaitMaskShift = 52;   // bits 52-57

// In the listing, 0x0100 is `[B--2---:S05] FFMA R7, R2, UR6, R7`, followed by the STG of R7 (no
// wait) and EXIT: the store, and so the kernel's end, move by exactly the added stall.
TEST(SassTiming, AStallCountDelaysTheNextInstructionByItsCycles) {
  test::TempDir dir;
  const std::string listing = test::read_file(test::source_path("traces/kernels/sass/saxpy.sm_90a.sass"));
  const uint64_t base = cycles_of_one_warp(dir, listing, "base");
  const std::string longer = edit_control(listing, "0100", [](uint64_t w) { return (w & ~(uint64_t{0xf} << kStallShift)) | uint64_t{15} << kStallShift; });
  EXPECT_EQ(cycles_of_one_warp(dir, longer, "stall15"), base + (15 - 5));
}

// Without its wait on barrier 2 (the two LDGs' results), the FFMA no longer waits for global
// memory: the kernel is shorter by at least the L2's hit latency, which any load takes.
TEST(SassTiming, AWaitMaskHoldsTheInstructionUntilItsBarriersAreReleased) {
  test::TempDir dir;
  const std::string listing = test::read_file(test::source_path("traces/kernels/sass/saxpy.sm_90a.sass"));
  const uint64_t base = cycles_of_one_warp(dir, listing, "base");
  const std::string unwaited = edit_control(listing, "0100", [](uint64_t w) { return w & ~(uint64_t{0x3f} << kWaitMaskShift); });
  EXPECT_GT(base, cycles_of_one_warp(dir, unwaited, "nowait") + load_gpu_config("h200").spec.memory.l2.hit_latency);
}

}  // namespace
}  // namespace warpsim
