// In-kernel malloc and free: the heap's placement worked out by hand, and the shipped kernel
// (blocks freed in their kernel, blocks outliving it, a request too big) against its reference.
#include <gtest/gtest.h>

#include "frontend/ptx/device_heap.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

TEST(DeviceHeap, FirstFitSixteenByteBlocksAndNullWhenFull) {
  ptx::DeviceHeap h(0x1000, 256);
  const uint64_t a = h.allocate(1), b = h.allocate(40), c = h.allocate(16);
  EXPECT_EQ(a, 0x1000u);        // 1 byte takes a 16-byte block
  EXPECT_EQ(b, 0x1010u);        // 40 bytes take 48
  EXPECT_EQ(c, 0x1040u);
  EXPECT_TRUE(h.release(b));
  EXPECT_EQ(h.allocate(32), 0x1010u);  // the first gap that fits
  EXPECT_EQ(h.allocate(32), 0x1050u);  // 16 bytes left there: the next one goes after c
  EXPECT_EQ(h.allocate(161), 0u);      // 176 bytes: only 144 remain
  EXPECT_EQ(h.allocate(144), 0x1070u);
  EXPECT_EQ(h.allocate(1), 0x1030u);   // the 16 bytes left between the re-used gap and c
  EXPECT_EQ(h.allocate(1), 0u);        // full
  EXPECT_FALSE(h.release(b + 8));      // not a block's start
  EXPECT_TRUE(h.release(a));
  EXPECT_FALSE(h.release(a));          // freed already
  EXPECT_EQ(h.allocate(16), 0x1000u);
}

TEST(DeviceHeap, KernelsAllocateFreeAndKeepBlocksAcrossLaunches) {
  const std::string launch = test::source_path("traces/kernels/device_malloc.launch.yaml");
  for (const char* arch : {"v100", "h100", "b200"}) {
    auto r = test::run_cli({"run", "--arch", arch, launch, "--checks", "error"});
    EXPECT_EQ(r.exit_code, 0) << arch << r.err;
    EXPECT_NE(r.out.find("check: passed"), std::string::npos) << arch << r.out;
  }
  // A heap too small for the kept blocks: malloc returns NULL and the kernel's store through it faults.
  test::TempDir dir;
  std::string text = test::shipped_launch("device_malloc.launch.yaml");
  text.replace(text.find("malloc_heap_bytes: 8388608"), 26, "malloc_heap_bytes: 16");
  text.replace(text.find("expect:"), std::string::npos, "");
  auto r = test::run_cli({"run", "--arch", "h100", dir.write("small.launch.yaml", text), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("out-of-bounds global access at 0x"), std::string::npos) << r.err;
  // Freeing a block twice is a fault at the call.
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.extern .func free(.param .b64 free_param_0);
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<4>;
  mov.u64 %rd1, 64;
  { .param .b64 param0; st.param.b64 [param0], %rd1; .param .b64 retval0;
    call.uni (retval0), malloc, (param0); ld.param.b64 %rd2, [retval0]; }
  { .param .b64 param0; st.param.b64 [param0], %rd2; call.uni free, (param0); }
  { .param .b64 param0; st.param.b64 [param0], %rd2; call.uni free, (param0); }
  ret;
}
)";
  r = test::run_cli({"run", "--arch", "h100", dir.write("k.launch.yaml", "ptx: " + dir.write("k.ptx", ptx) +
                                                                            "\nkernel: k\ngrid: [1]\nblock: [1]\nargs:\n  - {buffer: {name: out, elem: u32, count: 1}}\n"),
                     "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.ptx:13:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("of a pointer that malloc did not return, or that was freed already"), std::string::npos) << r.err;
}

// A block malloc returns is undefined (initcheck): a read before any write is a finding naming
// the block and the byte; after a store it is defined; a block freed and handed out again is
// undefined again, whatever the previous owner wrote.
TEST(DeviceHeap, ReadsOfBytesNothingWroteInABlockAreFound) {
  auto kernel = [](const std::string& body) {
    return R"(.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.extern .func free(.param .b64 free_param_0);
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd5, [out];
  mov.u64 %rd1, 64;
  { .param .b64 param0; st.param.b64 [param0], %rd1; .param .b64 retval0;
    call.uni (retval0), malloc, (param0); ld.param.b64 %rd2, [retval0]; }
)" + body + R"(  ld.global.u32 %r1, [%rd2+8];
  st.global.u32 [%rd5], %r1;
  ret;
}
)";
  };
  test::TempDir dir;
  auto run = [&](const std::string& body, const char* checks = "error") {
    dir.write("k.ptx", kernel(body));
    return test::run_cli({"run", "--arch", "h100",
                          dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [1]\nargs:\n  - {buffer: {name: out, elem: u32, count: 1}}\ndump: [out]\n"),
                          "--checks", checks, "--dump-dir", dir.path(""), "-q"});
  };
  auto r = run("");
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_NE(r.err.find("k.ptx:15: thread (0,0,0) of CTA (0,0,0) reads byte 8 of the 64-byte block malloc returned at 0x"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("which nothing has written (device malloc leaves memory undefined)"), std::string::npos) << r.err;
  r = run("", "warn");  // reported, and the read sees the undefined bytes' 0xff
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_words(dir.path("out.bin")).at(0), 0xffffffffu);
  r = run("  mov.u32 %r2, 7;\n  st.global.u32 [%rd2+8], %r2;\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_words(dir.path("out.bin")).at(0), 7u);
  // Written, freed, and malloc'd again: the same block, undefined again.
  r = run("  mov.u32 %r2, 7;\n  st.global.u32 [%rd2+8], %r2;\n"
          "  { .param .b64 param0; st.param.b64 [param0], %rd2; call.uni free, (param0); }\n"
          "  mov.u64 %rd3, %rd2;\n"
          "  { .param .b64 param0; st.param.b64 [param0], %rd1; .param .b64 retval0;\n"
          "    call.uni (retval0), malloc, (param0); ld.param.b64 %rd2, [retval0]; }\n"
          "  setp.ne.u64 %p1, %rd2, %rd3;\n  @%p1 trap;\n");
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("reads byte 8 of the 64-byte block malloc returned at 0x"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
