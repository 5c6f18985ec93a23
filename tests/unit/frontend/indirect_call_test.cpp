// Function pointers, virtual calls and addresses in variable initializers: handwritten PTX whose
// results are worked out from the PTX by hand, the inliner's dispatch counted, and bad pointers
// and initializers reported at their lines. The shipped kernel (traces/kernels/function_pointers.cu)
// is checked against its reference by OnEachConfig/EveryShippedKernel.PassesItsReferenceCheck.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/error.h"
#include "frontend/ptx/function_addresses.h"
#include "frontend/ptx/inliner.h"
#include "frontend/ptx/launch.h"
#include "frontend/ptx/ptx_module.h"
#include "support/test_support.h"
#include "unit/frontend/ptx_run.h"

namespace warpsim {
namespace {

using test::run_launch;
using test::TempDir;

// plus_one and twice take and return an f32; pair_sum takes two. The kernel calls through
// table[lane & 1] (plus_one for even lanes, twice for odd), then through a pointer it takes
// itself (twice, every lane); lanes 8 and up also read pointers: tab[0] = generic(data) and
// tab[1] = generic(data)+8, which each lane follows.
const char* kModule = R"(.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) plus_one(.param .b32 x)
{
  .reg .f32 %f<3>;
  ld.param.f32 %f1, [x];
  add.f32 %f2, %f1, 0f3F800000;
  st.param.f32 [r], %f2;
  ret;
}
.func (.param .b32 r) twice(.param .b32 x)
{
  .reg .f32 %f<3>;
  ld.param.f32 %f1, [x];
  add.f32 %f2, %f1, %f1;
  st.param.f32 [r], %f2;
  ret;
}
.func (.param .b32 r) pair_sum(.param .b32 a, .param .b32 b)
{
  .reg .f32 %f<4>;
  ld.param.f32 %f1, [a];
  ld.param.f32 %f2, [b];
  add.f32 %f3, %f1, %f2;
  st.param.f32 [r], %f3;
  ret;
}
.global .align 8 .u64 table[3] = {plus_one, twice, pair_sum};
.global .align 4 .b8 data[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64};
.global .align 8 .u64 tab[2] = {generic(data), generic(data)+8};
.visible .entry k(.param .u64 out_param)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  .reg .f32 %f<6>;
  ld.param.u64 %rd1, [out_param];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  mul.wide.u32 %rd2, %r2, 8;
  mov.u64 %rd3, table;
  add.s64 %rd4, %rd3, %rd2;
  ld.global.u64 %rd5, [%rd4];
  cvt.rn.f32.u32 %f1, %r1;
  {
  .param .b32 param0;
  st.param.f32 [param0], %f1;
  .param .b32 retval0;
  prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (retval0), %rd5, (param0), prototype_0;
  ld.param.f32 %f2, [retval0];
  }
  mov.u64 %rd6, twice;
  {
  .param .b32 param0;
  st.param.f32 [param0], %f2;
  .param .b32 retval0;
  prototype_1 : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (retval0), %rd6, (param0), prototype_1;
  ld.param.f32 %f3, [retval0];
  }
  mov.u64 %rd7, tab;
  add.s64 %rd8, %rd7, %rd2;
  ld.global.u64 %rd9, [%rd8];
  ld.f32 %f4, [%rd9];
  add.f32 %f5, %f3, %f4;
  mul.wide.u32 %rd10, %r1, 4;
  add.s64 %rd11, %rd1, %rd10;
  st.global.f32 [%rd11], %f5;
  ret;
}
)";

// Writes `ptx` as NAME.ptx and a one-warp launch of its kernel k, with a 32-float buffer `out`
// and any `more` argument lines; returns the launch file's path.
std::string one_warp_launch(const TempDir& dir, const std::string& name, const std::string& ptx, const std::string& more = "") {
  dir.write(name + ".ptx", ptx);
  return dir.write(name + ".launch.yaml", "ptx: " + name + ".ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs:\n"
                                          "  - {buffer: {name: out, elem: f32, count: 32}}\n" + more);
}

TEST(IndirectCalls, DispatchToEachAddressTakenFunctionOfTheCallsSignature) {
  TempDir dir;
  const std::string launch = one_warp_launch(dir, "k", kModule);
  for (const char* arch : {"v100", "h100", "b200"}) {
    SCOPED_TRACE(arch);
    const auto out = test::buffer<float>(*run_launch(arch, launch).workload, "out");
    for (uint32_t t = 0; t < 32; ++t) {
      // even: (t + 1) * 2 + data[0] = 2t + 2 + 1; odd: 2t * 2 + data[2] = 4t + 3.
      const float want = t % 2 == 0 ? 2.0f * t + 3.0f : 4.0f * t + 3.0f;
      EXPECT_EQ(out[t], want) << "thread " << t;
    }
  }
  // Each call compares against plus_one and twice only: pair_sum's address is taken too, but it
  // takes two parameters.
  const ptx::Module m = ptx::parse_ptx(kModule, "k.ptx");
  const ptx::Function flat = ptx::inline_calls(m, *m.find("k"));
  const auto count = [&](const std::string& opcode) {
    return std::count_if(flat.body.begin(), flat.body.end(), [&](const ptx::Instruction& in) { return in.opcode == opcode; });
  };
  EXPECT_EQ(count("setp.eq.u64"), 4);
  EXPECT_EQ(count("call"), 2);  // one report of a pointer that is no function, per call
  EXPECT_EQ(count("add.f32"), 2 * 2 + 1);  // plus_one and twice inlined at both calls, and the kernel's own
  // Addresses: 16 bytes apart in module order, outside every memory window.
  EXPECT_EQ(ptx::function_address(m, "twice"), ptx::kFunctionAddressBase + 16);
  EXPECT_FALSE(ptx::function_address(m, "k").has_value());  // a kernel is no callable function
}

// The timing model sees an indirect call as the GPU runs it: one instruction for the CALL (the
// dispatch's first compare) and one for the RET (the inlined copy's closing branch), however
// many functions the dispatch tries. The kernel's second call (through a pointer to twice, with
// plus_one tried first) made direct instead: the rest of the kernel is the same, so the timed
// instructions differ by exactly those two. (The emulator still runs the whole dispatch: two
// compares and two branches here.)
TEST(IndirectCalls, TheTimingModelSeesOneCallAndOneReturn) {
  TempDir dir;
  std::string direct = kModule;
  const std::string call = "call (retval0), %rd6, (param0), prototype_1;";
  ASSERT_NE(direct.find(call), std::string::npos);
  direct.replace(direct.find(call), call.size(), "call (retval0), twice, (param0);");
  for (const char* arch : {"v100", "h100"}) {
    const auto through_pointer = run_launch(arch, one_warp_launch(dir, "p", kModule)).summary.warp_instructions;
    const auto named = run_launch(arch, one_warp_launch(dir, "d", direct)).summary.warp_instructions;
    EXPECT_EQ(through_pointer, named + 2) << arch;
  }
}

// The same module with the kernel's table pointer replaced by `value`, run on H100.
test::CliResult run_with_pointer(const TempDir& dir, const std::string& value) {
  std::string text = kModule;
  text.replace(text.find("ld.global.u64 %rd5, [%rd4];"), 27, "mov.u64 %rd5, " + value + ";");
  const std::string launch = one_warp_launch(dir, "p", text);
  return test::run_cli({"run", "--arch", "h100", launch, "-q"});
}

TEST(IndirectCalls, APointerThatIsNoFunctionStopsTheRunAtTheCall) {
  TempDir dir;
  const auto bad = run_with_pointer(dir, "4660");  // 0x1234
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("p.ptx:50:1: indirect call to 0x1234, which is not the address of a function of this module"), std::string::npos) << bad.err;
  // pair_sum's address, but the call passes one parameter.
  const auto wrong = run_with_pointer(dir, "pair_sum");
  EXPECT_EQ(wrong.exit_code, 3);
  EXPECT_NE(wrong.err.find("indirect call to 0x" ), std::string::npos) << wrong.err;
  EXPECT_NE(wrong.err.find("taking this call's parameters"), std::string::npos) << wrong.err;
  // The function the pointer names runs: every lane calls plus_one, then twice.
  const auto good = run_with_pointer(dir, "plus_one");
  EXPECT_EQ(good.exit_code, 0) << good.err;
}

TEST(IndirectCalls, ACallNoFunctionCanAnswerIsAnErrorAtItsLine) {
  std::string text = kModule;
  text.replace(text.find(".global .align 8 .u64 table[3] = {plus_one, twice, pair_sum};"), 61, "");
  text.replace(text.find("mov.u64 %rd6, twice;"), 20, "mov.u64 %rd6, 0;");
  text.replace(text.find("mov.u64 %rd3, table;"), 20, "mov.u64 %rd3, 0;");
  const ptx::Module m = ptx::parse_ptx(text, "n.ptx");
  try {
    ptx::inline_calls(m, *m.find("k"));
    ADD_FAILURE() << "no function's address is taken";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("n.ptx:50:3: indirect call, but no function of this module with its 1 parameter(s) and 1 return value(s)"),
              std::string::npos)
        << e.what();
  }
}

TEST(IndirectCalls, InitializersNamingWhatIsNoFunctionOrVariableAreErrors) {
  TempDir dir;
  std::string text = kModule;
  text.replace(text.find("generic(data)+8"), 15, "generic(nothing)+8");
  const std::string launch = one_warp_launch(dir, "i", text);
  const auto r = test::run_cli({"run", "--arch", "h100", launch, "-q"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("i.ptx:31:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'nothing' in the initializer of 'tab' is neither a function nor a __device__ variable of this module"), std::string::npos) << r.err;
}

// outer(x, i) calls table[i](x); inner(x) = x + 10. The kernel calls table[0] = outer with
// i = 1 (lanes 0-15: outer calls inner) or i = 0 (lanes 16-31: outer calls itself). The dispatch
// inside outer leaves outer out: the first half runs, the second stops at the call.
const char* kRecursive = R"(.version 8.0
.target sm_90
.address_size 64
.global .align 8 .u64 table[2];
.func (.param .b32 r) inner(.param .b32 x, .param .b32 i)
{
  .reg .f32 %f<3>;
  ld.param.f32 %f1, [x];
  add.f32 %f2, %f1, 0f41200000;
  st.param.f32 [r], %f2;
  ret;
}
.func (.param .b32 r) outer(.param .b32 x, .param .b32 i)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<5>;
  .reg .f32 %f<3>;
  ld.param.f32 %f1, [x];
  ld.param.u32 %r1, [i];
  mov.u64 %rd1, table;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u64 %rd4, [%rd3];
  {
  .param .b32 param0;
  st.param.f32 [param0], %f1;
  .param .b32 param1;
  st.param.b32 [param1], 1;
  .param .b32 retval0;
  p0 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);
  call (retval0), %rd4, (param0, param1), p0;
  ld.param.f32 %f2, [retval0];
  }
  st.param.f32 [r], %f2;
  ret;
}
.visible .entry k(.param .u64 out_param, .param .u32 first)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<3>;
  .reg .pred %p<2>;
  mov.u64 %rd1, table;
  mov.u64 %rd2, outer;
  st.global.u64 [%rd1], %rd2;
  mov.u64 %rd3, inner;
  st.global.u64 [%rd1+8], %rd3;
  ld.param.u64 %rd4, [out_param];
  ld.param.u32 %r4, [first];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, %r4;
  selp.u32 %r2, 1, 0, %p1;
  cvt.rn.f32.u32 %f1, %r1;
  {
  .param .b32 param0;
  st.param.f32 [param0], %f1;
  .param .b32 param1;
  st.param.b32 [param1], %r2;
  .param .b32 retval0;
  call (retval0), outer, (param0, param1);
  ld.param.f32 %f2, [retval0];
  }
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  st.global.f32 [%rd6], %f2;
  ret;
}
)";

TEST(IndirectCalls, RecursionIsRefusedWhereItHappens) {
  TempDir dir;
  auto launch = [&](uint32_t first, const std::string& ptx = kRecursive) {
    return one_warp_launch(dir, "r", ptx, "  - {scalar: u32, value: " + std::to_string(first) + "}\n");
  };
  // Every lane has outer call inner: x + 10, though outer is among its own call's targets.
  const auto out = test::buffer<float>(*run_launch("h100", launch(32)).workload, "out");
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], t + 10.0f) << t;
  // Lanes 16 and up have outer call itself (table[0]).
  auto r = test::run_cli({"run", "--arch", "h100", launch(16), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("r.ptx:31:1: indirect call to 0x100000000010, a function this call is already inside"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("by thread (16,0,0)"), std::string::npos) << r.err;
  // A direct call of a function to itself is refused when the PTX is read, with the chain.
  std::string direct = kRecursive;
  direct.replace(direct.find("call (retval0), %rd4, (param0, param1), p0;"), 43, "call (retval0), outer, (param0, param1);");
  r = test::run_cli({"run", "--arch", "h100", launch(32, direct), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("recursion (k -> outer -> outer): the emulator inlines calls"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
