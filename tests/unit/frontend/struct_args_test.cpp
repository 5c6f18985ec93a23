// Structs passed by value: a kernel parameter `Params p` is a .b8 array in the PTX, and the launch
// file gives its fields with {struct: [...]}, laid out as C lays out the struct. The expected bytes
// come from the host compiler's own layout of the same struct (offsetof, sizeof), not from
// warpsim's rules.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "frontend/ptx/launch.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

struct Inner {
  uint8_t d;
  uint32_t e;
};
struct Params {
  uint8_t a;
  double b;
  int16_t c;
  Inner f;
  float* p;
  uint16_t g;
};
static_assert(sizeof(Params) == 48 && offsetof(Params, f) == 20 && offsetof(Params, p) == 32);

// copy_params(Params s, uint64_t* out): out[i] = the i-th 8 bytes of s, i < 6.
const char* kCopy = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry copy_params(.param .align 8 .b8 s[48], .param .u64 out)
{
  .reg .b64 %rd<10>;
  ld.param.u64 %rd9, [out];
  ld.param.u64 %rd1, [s];
  ld.param.u64 %rd2, [s+8];
  ld.param.u64 %rd3, [s+16];
  ld.param.u64 %rd4, [s+24];
  ld.param.u64 %rd5, [s+32];
  ld.param.u64 %rd6, [s+40];
  st.global.u64 [%rd9], %rd1;
  st.global.u64 [%rd9+8], %rd2;
  st.global.u64 [%rd9+16], %rd3;
  st.global.u64 [%rd9+24], %rd4;
  st.global.u64 [%rd9+32], %rd5;
  st.global.u64 [%rd9+40], %rd6;
  ret;
}
)";

const std::string kFields = R"(
      - {scalar: u8, value: 200}
      - {scalar: f64, value: -2.5}
      - {scalar: s16, value: -3}
      - struct:
          - {scalar: u8, value: 7}
          - {scalar: u32, value: 4000000000}
      - {buffer: {name: data, elem: f32, count: 4}}
      - {scalar: u16, value: 65535}
)";

test::CliResult copy_launch(const test::TempDir& dir, const std::string& first_arg) {
  dir.write("copy.ptx", kCopy);
  const std::string file = dir.write("copy.launch.yaml", "ptx: copy.ptx\nkernel: copy_params\ngrid: [1]\nblock: [1]\nargs:\n" + first_arg +
                                                             "  - {buffer: {name: out, elem: u64, count: 6}}\ndump: [out]\n");
  return test::run_cli({"run", "--arch", "a100", file, "-q", "--dump-dir", dir.path(".")});
}

TEST(StructArgs, FieldsAreLaidOutAsCLaysOutTheStruct) {
  test::TempDir dir;
  const auto r = copy_launch(dir, "  - struct:" + kFields);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string got = test::read_file(dir.path("out.bin"));
  ASSERT_EQ(got.size(), sizeof(Params));
  Params want;
  std::memset(&want, 0, sizeof want);  // padding is zero in what warpsim writes
  want.a = 200, want.b = -2.5, want.c = -3, want.f.d = 7, want.f.e = 4000000000u, want.g = 65535;
  std::string expected(reinterpret_cast<const char*>(&want), sizeof want);
  // The pointer is the buffer's address in emulated memory: any, as long as it is one.
  uint64_t pointer = 0;
  std::memcpy(&pointer, got.data() + offsetof(Params, p), 8);
  EXPECT_NE(pointer, 0u);
  expected.replace(offsetof(Params, p), 8, got.substr(offsetof(Params, p), 8));
  EXPECT_EQ(got, expected);
}

// {pad: N} for layouts C's rules do not give (alignas, packing): here the same 48 bytes with the
// u16 placed 4 bytes further on.
TEST(StructArgs, PadPlacesAFieldFurtherOn) {
  test::TempDir dir;
  std::string fields = kFields;
  fields.replace(fields.find("      - {scalar: u16"), 0, "      - {pad: 4}\n");
  ASSERT_EQ(copy_launch(dir, "  - struct:" + fields).exit_code, 0);
  const std::string got = test::read_file(dir.path("out.bin"));
  ASSERT_EQ(got.size(), 48u);
  EXPECT_EQ(got.substr(40, 8), std::string("\0\0\0\0\xff\xff\0\0", 8));
}

TEST(StructArgs, MessagesNameNvccsParametersByTheirIndex) {
  ptx::Variable p;
  p.name = "_Z6axpy_s6Params_param_1";
  EXPECT_EQ(ptx::param_label(p), "parameter 1 (_Z6axpy_s6Params_param_1)");
  p.name = "s";  // hand-written PTX: the name is all there is
  EXPECT_EQ(ptx::param_label(p), "parameter s");
  p.name = "k_param_";
  EXPECT_EQ(ptx::param_label(p), "parameter k_param_");
  p.name = "k_param_2x";
  EXPECT_EQ(ptx::param_label(p), "parameter k_param_2x");
}

TEST(StructArgs, AnArgumentThatDoesNotFillTheStructIsRefused) {
  test::TempDir dir;
  // One field short: C gives 40 bytes, the parameter has 48.
  std::string short_fields = kFields;
  short_fields.erase(short_fields.find("      - {scalar: u16"));
  auto r = copy_launch(dir, "  - struct:" + short_fields);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("copy.launch.yaml:7:7: the struct's fields take 40 bytes as C lays them out"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("parameter s has 48"), std::string::npos) << r.err;
  // A buffer or a scalar where the struct goes: the old silent half-filled parameter.
  r = copy_launch(dir, "  - {buffer: {name: data, elem: f32, count: 4}}\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("parameter s has 48 bytes, a struct passed by value; a buffer's address does not fill it: give its fields as {struct: [...]}"),
            std::string::npos)
      << r.err;
  r = copy_launch(dir, "  - {scalar: u32, value: 1}\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("a u32 does not fill it"), std::string::npos) << r.err;
  r = copy_launch(dir, "  - struct:\n      - {tensor_map: x}\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("a struct field is {scalar: TYPE, value: V}, {buffer: ...}, {struct: [...]} or {pad: BYTES}"), std::string::npos) << r.err;
  r = copy_launch(dir, "  - {struct: []}\n");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("'struct' must list its fields, in order"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
