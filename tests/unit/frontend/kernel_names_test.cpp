// Kernels named as their C++ source names them: nvcc keeps only extern "C" kernels' names in the
// PTX and mangles the rest, so a launch file may give `scale<float>` or `blur` for
// `_Z5scaleIfEvPT_S0_` or `_ZN3img4blurEPfi`. The mangled names below are nvcc 13's for
// `template <typename T> __global__ void scale(T*, T)` (float and double) and
// `namespace img { __global__ void blur(float*, int); }`; their demangled forms are c++filt's.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "frontend/ptx/kernel_names.h"
#include "support/test_support.h"

namespace warpsim::ptx {
namespace {

bool has(const std::vector<std::string>& names, const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); }

TEST(KernelNames, DemanglesWhatNvccMangles) {
  EXPECT_EQ(demangled_name("_Z5conv3PKfPfii"), "conv3(float const*, float*, int, int)");
  EXPECT_EQ(demangled_name("_ZN3img4blurEPfi"), "img::blur(float*, int)");
  EXPECT_EQ(demangled_name("_Z5applyILi4E2OpEvT0_Pi"), "void apply<4, Op>(Op, int*)");
  EXPECT_EQ(demangled_name("saxpy"), "");      // extern "C": nothing to demangle
  EXPECT_EQ(demangled_name("_Znot_mangled"), "");  // starts like one, is not one
}

TEST(KernelNames, ADeclarationAnswersToItsSourceNames) {
  const auto blur = names_for("img::blur(float*, int)");
  for (const char* n : {"img::blur(float*, int)", "img::blur", "blur"}) EXPECT_TRUE(has(blur, n)) << n;
  EXPECT_FALSE(has(blur, "img"));
  const auto scale = names_for("void scale<float>(float*, float)");
  for (const char* n : {"void scale<float>(float*, float)", "scale<float>(float*, float)", "scale<float>", "scale"}) EXPECT_TRUE(has(scale, n)) << n;
  EXPECT_FALSE(has(scale, "void"));
  const auto apply = names_for("void apply<4, Op>(Op, int*)");  // a space inside the template arguments is not the return type's
  for (const char* n : {"apply<4, Op>", "apply", "apply<4, Op>(Op, int*)"}) EXPECT_TRUE(has(apply, n)) << n;
  EXPECT_TRUE(names_for("").empty());
}

const char* kModule = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry _Z5scaleIfEvPT_S0_(.param .u64 p, .param .f32 s) { ret; }
.visible .entry _Z5scaleIdEvPT_S0_(.param .u64 p, .param .f64 s) { ret; }
.visible .entry _ZN3img4blurEPfi(.param .u64 p, .param .u32 n) { ret; }
.visible .entry plain(.param .u64 p) { ret; }
.visible .func _Z6helperv() { ret; }
)";

TEST(KernelNames, FindsTheOneEntryANameNames) {
  const Module m = parse_ptx(kModule, "names.ptx");
  auto entry = [&](const std::string& name) {
    const KernelMatch k = find_kernel(m, name);
    return k.kernel ? k.kernel->name : "<" + std::to_string(k.candidates.size()) + ">";
  };
  EXPECT_EQ(entry("plain"), "plain");
  EXPECT_EQ(entry("_ZN3img4blurEPfi"), "_ZN3img4blurEPfi");
  EXPECT_EQ(entry("blur"), "_ZN3img4blurEPfi");
  EXPECT_EQ(entry("img::blur"), "_ZN3img4blurEPfi");
  EXPECT_EQ(entry("scale<double>"), "_Z5scaleIdEvPT_S0_");
  EXPECT_EQ(entry("scale<float>(float*, float)"), "_Z5scaleIfEvPT_S0_");
  EXPECT_EQ(entry("scale"), "<2>");   // both instantiations: ambiguous
  EXPECT_EQ(entry("helper"), "<0>");  // a .func is not a kernel
  EXPECT_EQ(entry("blurry"), "<0>");
  EXPECT_EQ(describe_kernel(*find_kernel(m, "blur").kernel), "_ZN3img4blurEPfi (img::blur(float*, int))");
  EXPECT_EQ(describe_kernel(*find_kernel(m, "plain").kernel), "plain");
}

// Through a launch file: the kernel runs under its source name, and reports use that name; a
// name two entries answer to is refused at its line, with both listed.
TEST(KernelNames, ALaunchFileMayUseTheSourceName) {
  test::TempDir dir;
  dir.write("names.ptx", kModule);
  auto launch = [&](const std::string& kernel, const std::string& args) {
    const std::string file = dir.write("k.launch.yaml", "ptx: names.ptx\nkernel: " + kernel + "\ngrid: [1]\nblock: [32]\nargs:\n" + args);
    return test::run_cli({"run", "--arch", "a100", file, "-q", "--json", "-"});
  };
  auto r = launch("blur", "  - {buffer: {name: p, elem: f32, count: 32}}\n  - {scalar: u32, value: 32}\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kernels"][0]["name"], "blur");
  r = launch("scale", "  - {buffer: {name: p, elem: f32, count: 32}}\n  - {scalar: f32, value: 2}\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.launch.yaml:2:9: 'scale' names 2 kernels in"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("_Z5scaleIfEvPT_S0_ (void scale<float>(float*, float))"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("_Z5scaleIdEvPT_S0_ (void scale<double>(double*, double))"), std::string::npos) << r.err;
  r = launch("blurry", "");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no kernel 'blurry' in"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("its kernels are: _Z5scaleIfEvPT_S0_ (void scale<float>(float*, float)), "), std::string::npos) << r.err;
  EXPECT_EQ(launch("scale<float>", "  - {buffer: {name: p, elem: f32, count: 32}}\n  - {scalar: f32, value: 2}\n").exit_code, 0);
}

}  // namespace
}  // namespace warpsim::ptx
