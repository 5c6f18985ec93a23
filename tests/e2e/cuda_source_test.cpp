// A launch file whose `ptx:` is a CUDA source: warpsim runs nvcc on it. These tests put a stand-in
// nvcc first on PATH (the test machines have no CUDA), which "compiles" by copying the source,
// PTX text here, so that what the real compiler would emit is fixed; TMPDIR points at a directory
// of the test's own, so the PTX files left behind can be counted.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/test_support.h"

namespace warpsim {
namespace {

// `fill(float*, int)`, mangled as nvcc mangles it: p[tid] = 1 for tid < n (the bound is not
// checked against the buffer: a launch with a short buffer faults at the store, PTX line 16).
const char* kFill = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry _Z4fillPfi(.param .u64 p, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], 0f3F800000;
DONE:
  ret;
}
)";

class CudaSource : public testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.path("bin"));
    dir_.write("bin/nvcc",
               "#!/bin/sh\n# stand-in for nvcc: -ptx SOURCE -o OUT copies SOURCE; a source saying FAIL does not compile\n"
               "while [ $# -gt 0 ]; do case \"$1\" in -o) out=\"$2\"; shift;; -ptx) src=\"$2\"; shift;; esac; shift; done\n"
               "if grep -q FAIL \"$src\"; then echo \"$src(1): error: FAIL\"; exit 1; fi\ncp \"$src\" \"$out\"\n");
    ::chmod(dir_.path("bin/nvcc").c_str(), 0755);
    std::filesystem::create_directories(dir_.path("tmp"));
    old_path_ = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", (dir_.path("bin") + ":" + old_path_).c_str(), 1);
    ::setenv("TMPDIR", dir_.path("tmp").c_str(), 1);
  }
  void TearDown() override {
    ::setenv("PATH", old_path_.c_str(), 1);
    ::unsetenv("TMPDIR");
  }
  test::CliResult run(const std::string& source, const std::string& kernel, uint32_t count, const std::string& arch = "a100") {
    dir_.write("fill.cu", source);
    const std::string launch = dir_.write("fill.launch.yaml", "ptx: fill.cu\nkernel: " + kernel + "\ngrid: [1]\nblock: [64]\nargs:\n"
                                                              "  - {buffer: {name: p, elem: f32, count: " + std::to_string(count) + "}}\n"
                                                              "  - {scalar: u32, value: 64}\n");
    return test::run_cli({"run", "--arch", arch, launch, "-q"});
  }
  size_t files_left() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir_.path("tmp"))) ++n;
    return n;
  }
  test::TempDir dir_;
  std::string old_path_;
};

TEST_F(CudaSource, RunsUnderItsSourceNameAndLeavesNothingBehind) {
  const auto r = run(kFill, "fill", 64);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(files_left(), 0u);
}

// A fault cites a line of the compiled PTX; that file is kept, and the run says where.
TEST_F(CudaSource, AFailedRunKeepsThePtxItsMessagesCite) {
  const auto r = run(kFill, "fill(float*, int)", 32);
  EXPECT_NE(r.exit_code, 0);
  ASSERT_EQ(files_left(), 1u) << r.err;
  const std::string kept = std::filesystem::directory_iterator(dir_.path("tmp"))->path().string();
  EXPECT_NE(kept.find("fill.compute_80.ptx"), std::string::npos) << kept;
  EXPECT_NE(r.err.find(kept + ":16:"), std::string::npos) << r.err;  // the st.global
  EXPECT_NE(r.err.find("out-of-bounds global access"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the PTX nvcc made of " + dir_.path("fill.cu") + " is kept at " + kept), std::string::npos) << r.err;
  EXPECT_EQ(test::read_file(kept), kFill);
}

// A source whose `ptx-targets:` line lists the architecture-specific target of the simulated GPU
// (wgmma needs compute_90a; plain compute_90 leaves it out without an error) is compiled for it.
TEST_F(CudaSource, ASourceListingAnArchitectureSpecificTargetIsCompiledForIt) {
  const std::string marked = "// ptx-targets: 80 90a\n" + std::string(kFill);
  auto r = run(marked, "fill(float*, int)", 32, "h100");  // faults: the PTX is kept, named by its target
  ASSERT_EQ(files_left(), 1u) << r.err;
  EXPECT_NE(std::filesystem::directory_iterator(dir_.path("tmp"))->path().string().find("fill.compute_90a.ptx"), std::string::npos);
  r = run(marked, "fil", 64, "h100");
  EXPECT_NE(r.err.find("(compiled by nvcc for compute_90a)"), std::string::npos) << r.err;
  r = run(marked, "fil", 64, "a100");  // 80a is not listed: plain compute_80
  EXPECT_NE(r.err.find("(compiled by nvcc for compute_80)"), std::string::npos) << r.err;
}

// Without a `ptx-targets:` line, a source that tests the GPU's architecture-feature macro is
// compiled for the architecture-specific target, so the code it guards is there; a list that
// leaves the target out still decides.
TEST_F(CudaSource, ASourceTestingTheFeatureMacroIsCompiledForTheSpecificTarget) {
  const std::string guarded = "// #if defined(__CUDA_ARCH_FEAT_SM90_ALL)\n" + std::string(kFill);
  auto r = run(guarded, "fil", 64, "h100");
  EXPECT_NE(r.err.find("(compiled by nvcc for compute_90a)"), std::string::npos) << r.err;
  r = run(guarded, "fil", 64, "b200");  // Blackwell's macro is another one
  EXPECT_NE(r.err.find("(compiled by nvcc for compute_100)"), std::string::npos) << r.err;
  r = run("// ptx-targets: 90\n" + guarded, "fil", 64, "h100");
  EXPECT_NE(r.err.find("(compiled by nvcc for compute_90)"), std::string::npos) << r.err;
}

TEST_F(CudaSource, ACompileErrorIsReportedAtThePtxKey) {
  auto r = run(std::string(kFill) + "// FAIL\n", "fill", 64);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("fill.launch.yaml:1:6: nvcc could not compile " + dir_.path("fill.cu") + ":\n" + dir_.path("fill.cu") + "(1): error: FAIL"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(files_left(), 0u);
  // A name the compiled module lacks is refused naming the source, not the temporary file.
  r = run(kFill, "fil", 64);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no kernel 'fil' in " + dir_.path("fill.cu") + " (compiled by nvcc for compute_80); its kernels are: _Z4fillPfi (fill(float*, int))"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace warpsim
