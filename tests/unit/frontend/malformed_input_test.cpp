// Malformed inputs the fuzzers (tools/fuzz, docs/fuzzing.md) and hand probes turned up, each
// reduced to its essence: every one must end in an InputError at the offending file:line:column, never in a
// crash or an unlocated internal error.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "frontend/ptx/launch.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using test::TempDir;

// The error a one-instruction kernel body gets when its launch is read (lowered for sm_90).
std::string ptx_error(const std::string& body) {
  TempDir dir;
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs: []\n");
  dir.write("k.ptx", ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n  .reg .b32 %r<4>;\n"
                     "  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n  " + body + "\n  ret;\n}\n");
  try {
    ptx::PtxWorkload w(launch, 90);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MalformedPtx, TooFewOperandsIsRefusedAtItsLine) {
  // A mutated `cp.async.wait_group 0` that reads as a load with one operand.
  EXPECT_NE(ptx_error("ld.pac.wait_group 0;").find("k.ptx:9:3: 'ld.pac.wait_group' takes at least 2 operands; found 1"), std::string::npos);
  EXPECT_NE(ptx_error("mad.lo.s32 %r1, %r2, %r3;").find("k.ptx:9:3: 'mad.lo.s32' takes at least 4 operands; found 3"), std::string::npos);
  EXPECT_NE(ptx_error("selp.b32 %r1, %r2, %r3;").find("takes at least 4 operands"), std::string::npos);
}

TEST(MalformedPtx, MemoryOperandsMustBeAddresses) {
  EXPECT_NE(ptx_error("ld.global.u32 %r1, %rd1;").find("k.ptx:9:3: 'ld.global.u32': operand 2 must be an address in brackets"),
            std::string::npos);
  EXPECT_NE(ptx_error("st.global.u32 %rd1, %r1;").find("operand 1 must be an address"), std::string::npos);
  EXPECT_NE(ptx_error("atom.global.add.u32 %r1, %rd1, %r2;").find("operand 2 must be an address"), std::string::npos);
}

// Found by fuzz_ptx (eighth round): an immediate inside mma.sync's B fragment was read as a
// register index past the register file. Each fragment is a braced list of its registers.
TEST(MalformedPtx, MmaFragmentsAreListsOfTheirRegisters) {
  const std::string mma = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r0,%r1,%r2,%r3}, {%r0,%r1,%r2,%r3}, ";
  EXPECT_NE(ptx_error(mma + "{%r1,7}, {%r0,%r1,%r2,%r3};").find("k.ptx:9:3: 'mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32': B is a "
                                                                 "braced list of 2 registers"),
            std::string::npos);
  EXPECT_NE(ptx_error(mma + "{%r1}, {%r0,%r1,%r2,%r3};").find("B is a braced list of 2 registers"), std::string::npos);
  EXPECT_NE(ptx_error(mma + "{%r1,%r2}, %r0;").find("C is a braced list of 4 registers"), std::string::npos);
  EXPECT_NE(ptx_error("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r0,%r1}, {%r0,%r1}, {%r2,%r3}, {%r0,%r1};")
                .find("B is a braced list of 1 register ("),
            std::string::npos);
  EXPECT_EQ(ptx_error(mma + "{%r1,%r2}, {%r0,%r1,%r2,%r3};"), "no error");
}

TEST(MalformedLaunch, APtxPathTheSystemRefusesIsAnInputError) {
  // Found by fuzz_launch: a name too long for the file system made std::filesystem::exists throw.
  TempDir dir;
  const std::string launch = dir.write("k.launch.yaml", "ptx: " + std::string(5000, 'p') + ".ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs: []\n");
  try {
    ptx::PtxWorkload w(launch, 90);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("k.launch.yaml:1:6: no PTX file"), std::string::npos) << std::string(e.what()).substr(0, 200);
  }
}

// Sizes that would exhaust memory instead of being refused (found by hand): a 4 GiB .shared
// array wrapped to 0 bytes in the per-block check, so `warpsim run` allocated it for each CTA
// (21 GB in 190 s) and `warpsim trace` never checked at all; 50 million declared registers took
// 35 s and 6 GB.
TEST(MalformedPtx, SizesBeyondTheGpuAreRefusedBeforeAnythingIsAllocated) {
  TempDir dir;
  dir.write("s.ptx", ".version 8.0\n.target sm_90\n.address_size 64\n.shared .align 4 .b8 big[4294967295];\n"
                     ".visible .entry k()\n{\n  ret;\n}\n");
  const std::string launch = dir.write("s.launch.yaml", "ptx: s.ptx\nkernel: k\ngrid: [1000]\nblock: [1024]\nargs: []\n");
  for (const auto& r : {test::run_cli({"run", "--arch", "h100", launch, "-q"}), test::run_cli({"trace", "--arch", "h100", launch, "-o", dir.path("s.trace")})}) {
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find("kernel 'k' needs 4294967295 bytes of shared memory per block; h100 allows at most 232448"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path("s.trace")));
  const std::string registers = ptx_error(".reg .b32 %q<50000000>;");
  EXPECT_NE(registers.find("k.ptx:9:16: unexpected '50000000', expected a register count of at most 1048576"), std::string::npos) << registers;
}

// Immediates the PTX ISA constrains, refused at their line rather than run as given.
TEST(MalformedPtx, AllocaAlignmentAndSetmaxnregCountFollowThePtxIsa) {
  EXPECT_NE(ptx_error("alloca.u64 %rd1, 16, 3;").find("k.ptx:9:3: 'alloca.u64': the alignment must be a constant power of 2 up to 2^23"),
            std::string::npos);
  EXPECT_NE(ptx_error("alloca.u64 %rd1, 16, 16777216;").find("power of 2 up to 2^23"), std::string::npos);
  EXPECT_EQ(ptx_error("alloca.u64 %rd1, 16, 8388608;"), "no error");
  EXPECT_NE(ptx_error("setmaxnreg.inc.sync.aligned.u32 1000;").find("k.ptx:9:3: 'setmaxnreg.inc.sync.aligned.u32': the register count must be a constant from 24 to 256"),
            std::string::npos);
  EXPECT_NE(ptx_error("setmaxnreg.dec.sync.aligned.u32 100;").find("a multiple of 8"), std::string::npos);
  EXPECT_EQ(ptx_error("setmaxnreg.dec.sync.aligned.u32 96;"), "no error");
}

}  // namespace
}  // namespace warpsim
