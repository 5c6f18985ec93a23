// Integer values in launch files: exact over all of u64 and s64 (a double holds 53 bits), wrapped
// to narrow types as a C cast wraps them in sequences, and located errors for what is no number,
// a scalar too wide for its bits, or a random range that does not fit. Expected bytes worked out by hand.
#include <gtest/gtest.h>

#include "frontend/ptx/launch.h"
#include "support/test_support.h"
#include "unit/frontend/ptx_run.h"

namespace warpsim {
namespace {

// out[0] = the u64 scalar, out[1..4] = in[0..3].
const char* kCopy = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 s, .param .u64 in)
{
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [s];
  ld.param.u64 %rd3, [in];
  st.global.u64 [%rd1], %rd2;
  ld.global.v2.u64 {%rd4, %rd5}, [%rd3];
  ld.global.v2.u64 {%rd6, %rd7}, [%rd3+16];
  st.global.u64 [%rd1+8], %rd4;
  st.global.u64 [%rd1+16], %rd5;
  st.global.u64 [%rd1+24], %rd6;
  st.global.u64 [%rd1+32], %rd7;
  ret;
}
)";

std::vector<uint64_t> run_copy(const test::TempDir& dir, const std::string& scalar, const std::string& in) {
  dir.write("k.ptx", kCopy);
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [1]\nargs:\n"
                                                        "  - {buffer: {name: out, elem: u64, count: 5}}\n  - " + scalar + "\n  - " + in + "\n");
  return test::buffer<uint64_t>(*test::run_launch("h100", launch).workload, "out");
}

TEST(LaunchFileIntegers, SixtyFourBitValuesAreExact) {
  test::TempDir dir;
  auto out = run_copy(dir, "{scalar: u64, value: 18446744073709551615}",
                      "{buffer: {name: in, elem: u64, count: 4, init: {sequence: {start: 18446744073709551613, step: 1}}}}");
  EXPECT_EQ(out[0], ~uint64_t{0});
  EXPECT_EQ(out[1], ~uint64_t{0} - 2);
  EXPECT_EQ(out[2], ~uint64_t{0} - 1);
  EXPECT_EQ(out[3], ~uint64_t{0});
  EXPECT_EQ(out[4], 0u);  // 2^64 wraps to 0
  // 2^53 + 1 is no double; s64 from its most negative value up.
  out = run_copy(dir, "{scalar: s64, value: 9007199254740993}",
                 "{buffer: {name: in, elem: s64, count: 4, init: {sequence: {start: -9223372036854775808, step: 3}}}}");
  EXPECT_EQ(out[0], 9007199254740993u);
  EXPECT_EQ(out[1], 0x8000000000000000u);
  EXPECT_EQ(out[4], 0x8000000000000009u);
  // A u32 scalar of -1 is all ones in its 4 bytes; the parameter's upper half stays 0.
  out = run_copy(dir, "{scalar: u32, value: -1}", "{buffer: {name: in, elem: u64, count: 4}}");
  EXPECT_EQ(out[0], 0xffffffffu);
}

TEST(LaunchFileIntegers, NarrowSequencesWrapAndRandomRangesMustFit) {
  test::TempDir dir;
  // u8 250, 253, 256 -> 0, 259 -> 3: four bytes in one u64 load's low half.
  auto out = run_copy(dir, "{scalar: u64, value: 0}", "{buffer: {name: in, elem: u8, count: 32, init: {sequence: {start: 250, step: 3}}}}");
  EXPECT_EQ(out[1] & 0xffffffffu, 0x0300fdfau);
  // Non-integer steps round each element half away from zero, as before.
  out = run_copy(dir, "{scalar: u64, value: 0}", "{buffer: {name: in, elem: u8, count: 32, init: {sequence: {start: 0, step: 0.5}}}}");
  EXPECT_EQ(out[1] & 0xffffffffu, 0x02010100u);  // 0, 0.5 -> 1, 1, 1.5 -> 2
  auto error = [&](const std::string& scalar, const std::string& in) {
    dir.write("k.ptx", kCopy);
    const std::string launch = dir.write("e.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [1]\nargs:\n"
                                                          "  - {buffer: {name: out, elem: u64, count: 5}}\n  - " + scalar + "\n  - " + in + "\n");
    return test::run_cli({"run", "--arch", "h100", launch, "-q"});
  };
  auto r = error("{scalar: u64, value: lots}", "{buffer: {name: in, elem: u64, count: 4}}");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("e.launch.yaml:7:26: the scalar's value must be a number below 2^95 in size, got 'lots'"), std::string::npos) << r.err;
  // One scalar past both readings of its bits: 2^32 as a u32, -2^31 - 1 as an s32, 2^64 as a u64.
  r = error("{scalar: u32, value: 4294967296}", "{buffer: {name: in, elem: u64, count: 4}}");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("e.launch.yaml:7:26: the scalar's value 4294967296 does not fit in 32 bits; a u32 takes -2^31 to 2^32 - 1"), std::string::npos) << r.err;
  r = error("{scalar: s32, value: -2147483649}", "{buffer: {name: in, elem: u64, count: 4}}");
  EXPECT_NE(r.err.find("the scalar's value -2147483649 does not fit in 32 bits"), std::string::npos) << r.err;
  r = error("{scalar: u64, value: 18446744073709551616}", "{buffer: {name: in, elem: u64, count: 4}}");
  EXPECT_NE(r.err.find("does not fit in 64 bits; a u64 takes -2^63 to 2^64 - 1"), std::string::npos) << r.err;
  // The edges of the range are taken.
  EXPECT_EQ(run_copy(dir, "{scalar: s32, value: 4294967295}", "{buffer: {name: in, elem: u64, count: 4}}")[0], 0xffffffffu);
  EXPECT_EQ(run_copy(dir, "{scalar: s32, value: -2147483648}", "{buffer: {name: in, elem: u64, count: 4}}")[0], 0x80000000u);
  r = error("{scalar: u64, value: 0}", "{buffer: {name: in, elem: u8, count: 32, init: {random: {seed: 1, min: 0, max: 300}}}}");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("random integers between 0.000000 and 300.000000 do not fit u8 (0 to 255)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
