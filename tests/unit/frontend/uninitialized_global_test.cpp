// Buffers declared `init: none` start as cudaMalloc leaves memory: a kernel that reads bytes
// nothing has written is reported (compute-sanitizer's initcheck), wherever the read happens (a
// load, an atomic, a TMA copy) and to the byte; what kernels (or earlier launches) wrote is
// defined. The bytes hold 0xff, so a result depending on them shows it.
#include <gtest/gtest.h>

#include "support/test_support.h"

namespace warpsim {
namespace {

// Thread t: out[t] = in[t] + acc[t], then (with `extra`) whatever else.
std::string add_kernel(const std::string& extra = "") {
  return R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 acc, .param .u64 out)
{
  .reg .b16 %h<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [acc];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  add.s64 %rd7, %rd3, %rd4;
)" + extra + R"(  ld.global.u32 %r2, [%rd5];
  ld.global.u32 %r3, [%rd6];
  add.u32 %r4, %r2, %r3;
  st.global.u32 [%rd7], %r4;
  ret;
}
)";
}

// The add kernel's arguments: in = 1, 2, ..., 32; acc and out as `acc_init`, `out_init`.
std::string launch_text(const std::string& acc_init, const std::string& out_init = "none") {
  return "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs:\n"
         "  - {buffer: {name: in, elem: u32, count: 32, init: {sequence: {start: 1, step: 1}}}}\n"
         "  - {buffer: {name: acc, elem: u32, count: 32, init: " + acc_init + "}}\n"
         "  - {buffer: {name: out, elem: u32, count: 32, init: " + out_init + "}}\ndump: [out]\n";
}

test::CliResult run_uninitialized(test::TempDir& dir, const std::string& ptx, const std::string& launch, const char* checks = "error") {
  dir.write("k.ptx", ptx);
  return test::run_cli({"run", "--arch", "h100", dir.write("k.launch.yaml", launch), "--checks", checks, "--dump-dir", dir.path(""), "-q"});
}

TEST(UninitializedGlobal, ALoadOfBytesNothingWroteIsReported) {
  test::TempDir dir;
  auto r = run_uninitialized(dir, add_kernel(), launch_text("none"));
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_NE(r.err.find("warpsim: uninitialized-global-read: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("k.ptx:18: thread (0,0,0) of CTA (0,0,0) reads byte 0 of buffer 'acc', which nothing "
                       "has written (the buffer's init is none, as cudaMalloc leaves memory)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("buffer 'in'"), std::string::npos) << r.err;   // initialised
  EXPECT_EQ(r.err.find("buffer 'out'"), std::string::npos) << r.err;  // written, never read
  // Reported, not stopped: the loads read 0xffffffff, so out[t] = (t + 1) - 1 = t.
  r = run_uninitialized(dir, add_kernel(), launch_text("none"), "warn");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = test::read_words(dir.path("out.bin"));
  ASSERT_EQ(out.size(), 32u);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], t) << t;
  // Without the checks nothing is tracked or said.
  r = run_uninitialized(dir, add_kernel(), launch_text("none"), "off");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("uninitialized"), std::string::npos) << r.err;
  // zeros (the default) is defined.
  r = run_uninitialized(dir, add_kernel(), launch_text("zeros"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// Each thread first stores the low half of its acc word: the load of the whole word still reads
// two bytes nothing wrote, and the report names the first (byte 2 of thread 0's word).
TEST(UninitializedGlobal, BytesAreTrackedOneByOne) {
  test::TempDir dir;
  const auto r = run_uninitialized(dir, add_kernel("  cvt.u16.u32 %h1, %r1;\n  st.global.u16 [%rd6], %h1;\n"), launch_text("none"));
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_NE(r.err.find("k.ptx:20: thread (0,0,0) of CTA (0,0,0) reads byte 2 of buffer 'acc'"), std::string::npos) << r.err;
  // A full-word store first leaves nothing undefined.
  const auto full = run_uninitialized(dir, add_kernel("  st.global.u32 [%rd6], %r1;\n"), launch_text("none"));
  EXPECT_EQ(full.exit_code, 0) << full.err;
  EXPECT_EQ(test::read_words(dir.path("out.bin"))[5], 6u + 5) << "in[5] + acc[5]";
}

// An atomicAdd into a counter nobody zeroed: the classic missing cudaMemset.
TEST(UninitializedGlobal, AnAtomicReadsWhatItUpdates) {
  test::TempDir dir;
  const auto r = run_uninitialized(dir, add_kernel("  atom.global.add.u32 %r5, [%rd2], 1;\n"), launch_text("none"));
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_NE(r.err.find("k.ptx:17: thread (0,0,0) of CTA (0,0,0) reads byte 0 of buffer 'acc'"), std::string::npos) << r.err;
}

// What one launch writes is defined for the next: the first kernel (w, in the same module)
// stores acc[t] = t, the second adds; nothing is reported and out[t] = (t + 1) + t.
TEST(UninitializedGlobal, WhatAnEarlierLaunchWroteIsDefined) {
  test::TempDir dir;
  dir.write("k.ptx", add_kernel() + R"(.visible .entry w(.param .u64 acc)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [acc];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)");
  const std::string launch = dir.write("k.launch.yaml",
                                       "buffers:\n  in: {elem: u32, count: 32, init: {sequence: {start: 1, step: 1}}}\n"
                                       "  acc: {elem: u32, count: 32, init: none}\n  out: {elem: u32, count: 32, init: none}\n"
                                       "ptx: k.ptx\nlaunches:\n  - {kernel: w, grid: [1], block: [32], args: [{buffer: acc}]}\n"
                                       "  - {kernel: k, grid: [1], block: [32], args: [{buffer: in}, {buffer: acc}, {buffer: out}]}\n"
                                       "dump: [out]\n");
  const auto r = test::run_cli({"run", "--arch", "h100", launch, "--dump-dir", dir.path(""), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = test::read_words(dir.path("out.bin"));
  ASSERT_EQ(out.size(), 32u);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], 2 * t + 1) << t;
}

// A TMA load of a tensor nobody filled: the shipped transpose with its input left undefined.
TEST(UninitializedGlobal, ATensorCopyOfUnwrittenBytesIsReported) {
  test::TempDir dir;
  std::string text = test::shipped_launch("tma_transpose.launch.yaml");
  text.replace(text.find("init: {sequence: {start: 0, step: 1}}"), 37, "init: none");
  text.replace(text.find("expect:"), std::string::npos, "");
  const auto r = test::run_cli({"run", "--arch", "h100", dir.write("k.launch.yaml", text), "-q"});
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_NE(r.err.find("uninitialized-global-read: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" of buffer 'in', which nothing has written"), std::string::npos) << r.err;
}

// The shipped spin lock with its lock word left undefined: 0xffffffff reads as held, every lane
// spins on it, and the run stops as stuck; the finding made before, printed with the error,
// says why, and the stuck report says the word was never written.
TEST(UninitializedGlobal, AFindingThatExplainsAHangIsPrintedWithIt) {
  test::TempDir dir;
  std::string text = test::shipped_launch("spin_lock.launch.yaml");
  text.replace(text.find("name: lock, elem: s32, count: 1, init: zeros"), 44, "name: lock, elem: s32, count: 1, init: none");
  const auto r = test::run_cli({"run", "--arch", "h100", dir.write("k.launch.yaml", text), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  const size_t finding = r.err.find("warpsim: uninitialized-global-read: "), stuck = r.err.find(" waits forever: ");
  ASSERT_NE(finding, std::string::npos) << r.err;
  ASSERT_NE(stuck, std::string::npos) << r.err;
  EXPECT_LT(finding, stuck) << r.err;
  EXPECT_NE(r.err.find("reads byte 0 of buffer 'lock', which nothing has written"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("polls byte 0 of buffer 'lock' (its 4 bytes hold 4294967295, which nothing has written: its init is none)"),
            std::string::npos)
      << r.err;
}

TEST(UninitializedGlobal, ConstantsCannotBeUndefined) {
  test::TempDir dir;
  dir.write("k.ptx", add_kernel());
  const auto r = test::run_cli({"run", "--arch", "h100",
                                dir.write("k.launch.yaml", launch_text("zeros") + "constants:\n  c: {elem: u32, count: 1, init: none}\n"), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("'init' must be zeros, {sequence: {start, step}}, {random: {seed, min, max}}, {values: [...]} or {file: raw.bin}"), std::string::npos)
      << r.err;
}

// printf("[%s]\n", s) after writing s[0] = 'h', s[1] = 'i', s[3] = 0 (nvcc's PTX): the string
// printf reads from global memory goes through the check, so with s declared `init: none` its
// byte 2, which nothing wrote, is reported; with s zeroed the string is "hi" and nothing is.
TEST(UninitializedGlobal, APrintfStringOfBytesNothingWroteIsReported) {
  test::TempDir dir;
  const std::string ptx = R"(.version 9.0
.target sm_90
.address_size 64
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 1 .b8 $str[6] = {91, 37, 115, 93, 10};
.visible .entry k(
	.param .u64 k_param_0
)
{
	.local .align 8 .b8 	__local_depot0[8];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .b16 	%rs<4>;
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<7>;
	mov.u64 	%SPL, __local_depot0;
	cvta.local.u64 	%SP, %SPL;
	ld.param.u64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	add.u64 	%rd3, %SP, 0;
	add.u64 	%rd4, %SPL, 0;
	mov.u16 	%rs1, 104;
	st.global.u8 	[%rd2], %rs1;
	mov.u16 	%rs2, 105;
	st.global.u8 	[%rd2+1], %rs2;
	mov.u16 	%rs3, 0;
	st.global.u8 	[%rd2+3], %rs3;
	st.local.u64 	[%rd4], %rd1;
	mov.u64 	%rd5, $str;
	cvta.global.u64 	%rd6, %rd5;
	{
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd6;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd3;
	.param .b32 retval0;
	call.uni (retval0), 
	vprintf, 
	(
	param0, 
	param1
	);
	ld.param.b32 	%r1, [retval0+0];
	}
	ret;
}
)";
  auto launch = [](const char* init) {
    return std::string("ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [1]\nargs:\n  - {buffer: {name: s, elem: u8, count: 4, init: ") + init + "}}\n";
  };
  auto r = run_uninitialized(dir, ptx, launch("none"));
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("k.ptx:43: thread (0,0,0) of CTA (0,0,0) reads byte 2 of buffer 's', which nothing has written"), std::string::npos) << r.err;
  r = run_uninitialized(dir, ptx, launch("zeros"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "[hi]\n");
}

}  // namespace
}  // namespace warpsim
