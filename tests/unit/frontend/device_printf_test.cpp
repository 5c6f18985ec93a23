// printf, assert and trap in kernels: the formatting of a vprintf argument buffer, and the shipped
// kernel traces/kernels/device_printf.cu (nvcc's own PTX) run end to end.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <map>
#include <vector>

#include "frontend/ptx/device_printf.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

// An argument buffer built as nvcc lays one out: each value at the next multiple of its size.
struct Buffer {
  std::vector<uint8_t> bytes;
  std::map<uint64_t, std::string> strings;  // "addresses" a %s argument can point to
  void put(uint64_t v, uint32_t size) {
    while (bytes.size() % size) bytes.push_back(0xAA);  // padding the formatter must skip
    for (uint32_t k = 0; k < size; ++k) bytes.push_back(static_cast<uint8_t>(v >> (8 * k)));
  }
  ptx::PrintfArguments reader() const {
    ptx::PrintfArguments a;
    a.read = [this](uint64_t offset, uint32_t size) {
      uint64_t v = 0;
      for (uint32_t k = 0; k < size; ++k) v |= uint64_t{bytes.at(offset + k)} << (8 * k);
      return v;
    };
    a.string = [this](uint64_t address) { return strings.at(address); };
    return a;
  }
};

TEST(DevicePrintf, FormatsEachConversionFromItsAlignedSlot) {
  Buffer b;
  b.put(static_cast<uint32_t>(-7), 4);
  b.put(std::bit_cast<uint64_t>(2.25), 8);  // a float argument arrives as a double
  b.put(0x1000, 8);
  b.strings[0x1000] = "warp";
  b.put('Z', 4);
  b.put(0xBEEFu, 4);
  b.put(static_cast<uint64_t>(-123456789012LL), 8);
  b.put(42, 4);
  uint32_t count = 0;
  const std::string text =
      ptx::format_device_printf("%d %.3f [%6s] %c %X %lld %05u 100%%\n", b.reader(), count);
  EXPECT_EQ(text, "-7 2.250 [  warp] Z BEEF -123456789012 00042 100%\n");
  EXPECT_EQ(count, 7u);
}

TEST(DevicePrintf, StarWidthsTakeAnArgumentAndUnknownConversionsPassThrough) {
  Buffer b;
  b.put(5, 4);
  b.put(3, 4);
  uint32_t count = 0;
  EXPECT_EQ(ptx::format_device_printf("[%*d] %k %", b.reader(), count), "[    3] %k %");
  EXPECT_EQ(count, 2u);
  EXPECT_EQ(ptx::format_device_printf("no arguments\n", b.reader(), count), "no arguments\n");
  EXPECT_EQ(count, 0u);
}

// The shipped kernel: the first thread of each warp prints the sum of a local array that a
// function it does not inline filled through a generic pointer. Inputs are 0, 0.5, 1, ... so
// thread t's sum is 8 * t/2 + (0 + 1 + ... + 7) = 4t + 28.
TEST(DevicePrintf, AKernelsPrintfOutputComesBeforeTheReport) {
  test::TempDir dir;
  std::string launch = test::shipped_launch("device_printf.launch.yaml");
  const std::string file = dir.write("p.launch.yaml", launch);
  for (const char* arch : {"v100", "h100", "b200"}) {
    auto r = test::run_cli({"run", "--arch", arch, file});
    ASSERT_EQ(r.exit_code, 0) << arch << ": " << r.err;
    EXPECT_NE(r.out.find("check: passed"), std::string::npos) << r.out;
    for (uint32_t block = 0; block < 2; ++block) {
      for (uint32_t warp = 0; warp < 2; ++warp) {
        const uint32_t t = block * 64 + warp * 32;
        char line[128];
        std::snprintf(line, sizeof line, "block %u warp %2u: sum %8.3f|ok  |w|0xff|-5|1.2e+03\n", block, warp, 4.0 * t + 28);
        EXPECT_NE(r.out.find(line), std::string::npos) << arch << " lacks " << line << r.out;
      }
    }
    EXPECT_LT(r.out.find("block 0 warp  0"), r.out.find("warpsim on")) << r.out;
  }
  // warpsim trace emulates the same calls (CTA by CTA, so in its own order) and prints them too.
  auto t = test::run_cli({"trace", "--arch", "h100", file, "-o", dir.path("p.trace")});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  for (const char* line : {"block 0 warp  0: sum   28.000", "block 0 warp  1: sum  156.000", "block 1 warp  0: sum  284.000",
                           "block 1 warp  1: sum  412.000"}) {
    EXPECT_NE(t.out.find(line), std::string::npos) << t.out;
  }
  auto j = test::run_cli({"run", "--arch", "a100", file, "--json", "-"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_NE(j.out.find("\"device_printf\": \"block 0 warp  0: sum   28.000|ok  |w|0xff|-5|1.2e+03\\n"), std::string::npos) << j.out;
  EXPECT_NE(j.err.find("block 1 warp  1"), std::string::npos) << "with JSON on stdout the text goes to stderr";
}

// With negative inputs the kernel's assert fails: the run stops with the assertion's text at the
// PTX line of the call, as a GPU stops the kernel with cudaErrorAssert.
TEST(DevicePrintf, AFailedAssertStopsTheRunWithItsMessage) {
  test::TempDir dir;
  std::string launch = test::shipped_launch("device_printf.launch.yaml");
  launch.replace(launch.find("start: 0,"), 9, "start: -9,");
  auto r = test::run_cli({"run", "--arch", "h100", dir.write("a.launch.yaml", launch)});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("device_printf.cu:21: void print_values(const float *, float *, int): Assertion `check == 0 || sum >= 0.0f` failed "
                       "by thread (0,0,0) of CTA (0,0,0)"),
            std::string::npos)
      << r.err;
}

TEST(DevicePrintf, TrapStopsTheRun) {
  test::TempDir dir;
  dir.write("k.ptx", R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 5;
  @%p1 trap;
  ret;
}
)");
  auto r = test::run_cli({"run", "--arch", "a100", dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs: []\n")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("k.ptx:10:1: the kernel executed trap (on a GPU the launch fails) by thread (5,0,0)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
