// `{values: [...]}`: a small buffer's contents, or the output a check expects, written in the
// launch file itself instead of a file beside it. The expected bytes here are the element
// types' own encodings, written out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace warpsim {
namespace {

// copy(in, out): out[t] = in[t], 4 bytes per thread.
const char* kCopyWords = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry copy(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
  st.global.u32 [%rd5], %r2;
  ret;
}
)";

test::CliResult copy_words_launch(const test::TempDir& dir, const std::string& elem, const std::string& in_values, const std::string& expect) {
  dir.write("copy.ptx", kCopyWords);
  const std::string file = dir.write("copy.launch.yaml", "ptx: copy.ptx\nkernel: copy\ngrid: [1]\nblock: [4]\nargs:\n"
                                                         "  - {buffer: {name: in, elem: " + elem + ", count: 4, init: {values: " + in_values + "}}}\n"
                                                         "  - {buffer: {name: out, elem: " + elem + ", count: 4}}\n"
                                                         "dump: [out]\n" + expect);
  return test::run_cli({"run", "--arch", "a100", file, "-q", "--dump-dir", dir.path(".")});
}

TEST(ListedValues, InitializeABufferElementByElement) {
  test::TempDir dir;
  auto r = copy_words_launch(dir, "f32", "[1.5, -0.0, .nan, -.inf]", "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_file(dir.path("out.bin")), std::string("\x00\x00\xc0\x3f\x00\x00\x00\x80\x00\x00\xc0\x7f\x00\x00\x80\xff", 16));
  r = copy_words_launch(dir, "s32", "[-1, 2147483647, 4294967295, 7]", "");  // a u32's bits are accepted, as for scalars
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_file(dir.path("out.bin")), std::string("\xff\xff\xff\xff\xff\xff\xff\x7f\xff\xff\xff\xff\x07\x00\x00\x00", 16));
}

TEST(ListedValues, AnExpectationMayListItsValues) {
  test::TempDir dir;
  auto r = copy_words_launch(dir, "f32", "[1, 2, 3, .nan]", "expect:\n  out: {values: [1, 2, 3, nan]}\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = copy_words_launch(dir, "f32", "[1, 2, 3, 4]", "expect:\n  out: {values: [1, 2, 3.5, 4], atol: 0.25}\n");
  EXPECT_EQ(r.exit_code, 5);  // a failed check
  r = test::run_cli({"run", "--arch", "a100", dir.path("copy.launch.yaml")});
  EXPECT_NE(r.out.find("out[2] = 3.000000, expected 3.500000"), std::string::npos) << r.out;
  r = copy_words_launch(dir, "f32", "[1, 2, 3, 4]", "expect:\n  out: {values: [1, 2, 3.5, 4], atol: 0.5}\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(ListedValues, ListsThatDoNotFitAreRefusedAtTheirLine) {
  test::TempDir dir;
  auto r = copy_words_launch(dir, "f32", "[1, 2, 3]", "");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("copy.launch.yaml:6:61: 'values' lists 3 elements; the buffer has 4"), std::string::npos) << r.err;
  r = copy_words_launch(dir, "s32", "[1, 2, 3, 4294967296]", "");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("element 3 of 'values', 4294967296, does not fit in 32 bits (s32)"), std::string::npos) << r.err;
  r = copy_words_launch(dir, "f32", "[1, 2, 3, x]", "");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("element 3 of 'values' must be a number, nan, inf or -inf, got 'x'"), std::string::npos) << r.err;
  r = copy_words_launch(dir, "f32", "[1, 2, 3, 4]", "expect:\n  out: {values: [1, 2]}\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("'values' lists 2 elements; the buffer has 4"), std::string::npos) << r.err;
  r = copy_words_launch(dir, "f32", "[1, 2, 3, 4]", "expect:\n  out: {values: 7}\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("'values' must be a list of numbers"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
