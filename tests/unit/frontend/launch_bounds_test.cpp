// A kernel's own launch limits, from the PTX's performance-tuning directives, applied as the
// driver applies them: __launch_bounds__'s .maxntid (a bigger block fails to launch), .reqntid
// (only that block shape), and the registers ptxas may allocate: __maxnreg__'s .maxnreg, and what
// lets __launch_bounds__'s .minnctapersm CTAs of .maxntid threads share an SM's 64 K registers.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "unit/frontend/ptx_run.h"

namespace warpsim {
namespace {

using test::TempDir;

// k writes 1.0 at its global thread index; `directives` go between its signature and its body.
std::string kernel_with(const std::string& directives) {
  return ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 out_param)\n" + directives +
         "{\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  ld.param.u64 %rd1, [out_param];\n  mov.u32 %r1, %tid.x;\n"
         "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n  st.global.f32 [%rd3], 0f3F800000;\n  ret;\n}\n";
}

// Runs k over one block of `block` ([x, y, z] text) with `more` launch-file lines.
test::CliResult bounded_launch(const TempDir& dir, const std::string& directives, const std::string& block, const std::string& more = "") {
  dir.write("k.ptx", kernel_with(directives));
  const std::string file = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: " + block + "\n" + more +
                                                          "args:\n  - {buffer: {name: out, elem: f32, count: 1024}}\n");
  return test::run_cli({"run", "--arch", "a100", file, "-q", "--json", "-"});
}

TEST(LaunchBounds, ABlockBeyondMaxntidIsRefusedAsTheDriverRefusesIt) {
  TempDir dir;
  EXPECT_EQ(bounded_launch(dir, ".maxntid 128, 1, 1\n.minnctapersm 4\n", "[128, 1, 1]").exit_code, 0);
  EXPECT_EQ(bounded_launch(dir, ".maxntid 64, 2, 1\n", "[32, 4, 1]").exit_code, 0);  // the product bounds the block
  const auto r = bounded_launch(dir, ".maxntid 128, 1, 1\n", "[256, 1, 1]");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.launch.yaml:4:8: kernel 'k' allows at most 128 threads per block (.maxntid 128, 1, 1, from __launch_bounds__); this block has 256"),
            std::string::npos)
      << r.err;
}

TEST(LaunchBounds, ReqntidAllowsOnlyItsBlockShape) {
  TempDir dir;
  EXPECT_EQ(bounded_launch(dir, ".reqntid 64, 2\n", "[64, 2, 1]").exit_code, 0);
  const auto r = bounded_launch(dir, ".reqntid 64, 2\n", "[128, 1, 1]");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("kernel 'k' must be launched with blocks of (64,2,1) (.reqntid 64, 2); this one is (128,1,1)"), std::string::npos) << r.err;
}

TEST(LaunchBounds, MaxnregCapsTheRegistersEachThreadIsAllocated) {
  TempDir dir;
  // Nsight Compute's launch__registers_per_thread in the JSON: 32 by default, the cap below that.
  auto registers = [&](const std::string& directives, const std::string& more) -> double {
    const auto r = bounded_launch(dir, directives, "[1024, 1, 1]", more);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto json = nlohmann::json::parse(r.out, nullptr, false);
    if (json.is_discarded()) return -1;
    return json["kernels"][0]["metrics"]["launch__registers_per_thread"]["value"].get<double>();
  };
  EXPECT_EQ(registers("", ""), 32);
  EXPECT_EQ(registers(".maxnreg 24\n", ""), 24);
  EXPECT_EQ(registers(".maxnreg 40\n", "registers_per_thread: 40\n"), 40);
  EXPECT_EQ(registers(".maxnreg 40\n", "registers_per_thread: 16\n"), 16);
  const auto r = bounded_launch(dir, ".maxnreg 40\n", "[1024, 1, 1]", "registers_per_thread: 64\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.launch.yaml:5:23: kernel 'k' was compiled with at most 40 registers per thread (.maxnreg, from __maxnreg__); the launch file says 64"),
            std::string::npos)
      << r.err;
}

// ptxas keeps a __launch_bounds__(threads, min_blocks) kernel to 65536 / (min_blocks x warps x 32)
// registers per thread, in units of 8 (CUDA C++ Programming Guide, "Launch Bounds").
TEST(LaunchBounds, MinnctapersmCapsTheRegistersSoThatManyCtasFit) {
  TempDir dir;
  auto run = [&](const std::string& directives, const std::string& block, const std::string& more) {
    const auto r = bounded_launch(dir, directives, block, more);
    const auto json = nlohmann::json::parse(r.out, nullptr, false);
    return std::pair{r, json.is_discarded() ? -1.0 : json["kernels"][0]["metrics"]["launch__registers_per_thread"]["value"].get<double>()};
  };
  // 16 CTAs of 8 warps: 65536 / (16 x 8 x 32) = 16.
  EXPECT_EQ(run(".maxntid 256, 1, 1\n.minnctapersm 16\n", "[256, 1, 1]", "").second, 16);
  // 3 CTAs of 4 warps: 170.7, so 168; the launch file may ask for that, not for more.
  EXPECT_EQ(run(".maxntid 128, 1, 1\n.minnctapersm 3\n", "[128, 1, 1]", "registers_per_thread: 168\n").second, 168);
  auto [r, registers] = run(".maxntid 128, 1, 1\n.minnctapersm 3\n", "[128, 1, 1]", "registers_per_thread: 176\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.launch.yaml:5:23: kernel 'k' was compiled with at most 168 registers per thread (.maxntid 128, 1, 1 and .minnctapersm 3, "
                       "from __launch_bounds__: 3 CTAs of 128 threads per SM); the launch file says 176"),
            std::string::npos)
      << r.err;
  // .maxntid alone promises one CTA: 1024 threads leave 64 registers each.
  std::tie(r, registers) = run(".maxntid 1024, 1, 1\n", "[1024, 1, 1]", "registers_per_thread: 72\n");
  EXPECT_NE(r.err.find("at most 64 registers per thread (.maxntid 1024, 1, 1, from __launch_bounds__: 1 CTA of 1024 threads per SM)"), std::string::npos)
      << r.err;
  // Without .maxntid there are no threads to count: .minnctapersm alone changes nothing.
  EXPECT_EQ(run(".minnctapersm 32\n", "[1024, 1, 1]", "").second, 32);
}

}  // namespace
}  // namespace warpsim
