// The PTX parser on what nvcc 13 emits for sm_75 to sm_100 (traces/kernels/ptx/), and its errors.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "common/error.h"
#include "frontend/ptx/ptx_module.h"
#include "isa/op_info.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using ptx::Module;
using ptx::Operand;

const std::vector<std::string> kTargets = {"75", "80", "90", "100"};

Module load(const std::string& kernel, const std::string& target) {
  return ptx::parse_ptx_file(test::source_path("traces/kernels/ptx/" + kernel + ".sm_" + target + ".ptx"));
}

bool has_opcode(const ptx::Function& f, const std::string& prefix) {
  for (const auto& in : f.body)
    if (in.opcode.rfind(prefix, 0) == 0) return true;
  return false;
}

// Register names need not start with '%' (PTX ISA, "Identifiers"): hand-written PTX often
// declares `.reg .pred p; .reg .u32 i, r<2>;`. They run like nvcc's, and their traces replay.
TEST(PtxParser, RegistersDeclaredWithoutPercentRunAndReplay) {
  test::TempDir dir;
  dir.write("k.ptx", R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry twice(.param .u64 out, .param .u32 n)
{
  .reg .pred p, done;
  .reg .u32 i, n_, r<2>;
  .reg .u64 base, addr;
  ld.param.u64 base, [out];
  ld.param.u32 n_, [n];
  mov.u32 i, %tid.x;
  setp.ge.u32 done, i, n_;
  @done bra END;
  mul.lo.u32 r0, i, 2;
  setp.eq.u32 p, i, 5;
  @p add.u32 r0, r0, 100;
  mul.wide.u32 addr, i, 4;
  add.u64 addr, base, addr;
  st.global.u32 [addr], r0;
END:
  ret;
}
)");
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: twice\ngrid: [1]\nblock: [32]\nargs:\n"
                                                        "  - {buffer: {name: out, elem: u32, count: 32}}\n  - {scalar: u32, value: 20}\ndump: [out]\n");
  auto r = test::run_cli({"run", "--arch", "a100", launch, "--dump-dir", dir.path(""), "--checks", "error", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out = test::read_file(dir.path("out.bin"));
  ASSERT_EQ(out.size(), 32u * 4);
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t v;
    std::memcpy(&v, out.data() + 4 * t, 4);
    EXPECT_EQ(v, t >= 20 ? 0u : 2 * t + (t == 5 ? 100 : 0)) << t;
  }
  const auto replay = test::run_and_replay("a100", launch, dir);
  EXPECT_EQ(replay.direct.rfind("error", 0), std::string::npos) << replay.direct;
  EXPECT_EQ(replay.direct, replay.replay);
}

TEST(PtxParser, ModuleDirectives) {
  for (const auto& t : kTargets) {
    Module m = load("vector_add", t);
    EXPECT_EQ(m.version, "9.0");
    ASSERT_EQ(m.targets.size(), 1u);
    EXPECT_EQ(m.targets[0], "sm_" + t);
    EXPECT_EQ(m.address_size, 64u);
  }
}

TEST(PtxParser, VectorAddEntryParametersAndBody) {
  Module m = load("vector_add", "80");
  const ptx::Function* f = m.find("vector_add");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->is_entry);
  ASSERT_EQ(f->params.size(), 4u);
  EXPECT_EQ(f->params[0].type, ".u64");
  EXPECT_EQ(f->params[3].type, ".u32");
  EXPECT_EQ(f->params[3].name, "vector_add_param_3");
  EXPECT_TRUE(has_opcode(*f, "ld.global.f32"));
  EXPECT_TRUE(has_opcode(*f, "st.global.f32"));
  EXPECT_FALSE(f->labels.empty());
  // The guarded branch around the body: @%p1 bra $L__BB0_2;
  bool guarded_branch = false;
  for (const auto& in : f->body) {
    if (in.opcode.rfind("bra", 0) == 0 && in.guard) {
      guarded_branch = true;
      ASSERT_EQ(in.operands.size(), 1u);
      EXPECT_EQ(in.operands[0].kind, Operand::Kind::kSymbol);
      EXPECT_TRUE(f->labels.count(in.operands[0].name)) << in.operands[0].name;
    }
  }
  EXPECT_TRUE(guarded_branch);
  // Registers are declared as ranges: .reg .b32 %r<N>;
  bool ranged = false;
  for (const auto& r : f->registers) ranged |= r.count > 0;
  EXPECT_TRUE(ranged);
  // .loc lines (the sources were compiled with -lineinfo) reach the instructions.
  bool has_line = false;
  for (const auto& in : f->body) has_line |= in.source_line > 0;
  EXPECT_TRUE(has_line);
}

TEST(PtxParser, ExternSharedAddressesShufflesAndAtomics) {
  Module m = load("reduce_sum", "90");
  ASSERT_EQ(m.globals.size(), 1u);
  EXPECT_EQ(m.globals[0].name, "partial");
  EXPECT_TRUE(m.globals[0].is_extern);
  EXPECT_EQ(m.globals[0].space, ".shared");
  EXPECT_EQ(m.globals[0].align, 16u);
  ASSERT_EQ(m.globals[0].dims.size(), 1u);
  EXPECT_EQ(m.globals[0].dims[0], 0u);
  const ptx::Function& f = m.functions.at(0);
  EXPECT_TRUE(has_opcode(f, "bar.sync"));
  EXPECT_TRUE(has_opcode(f, "shfl.sync.down.b32"));
  EXPECT_TRUE(has_opcode(f, "atom.global.add.f32") || has_opcode(f, "red.global.add.f32"));
  for (const auto& in : f.body) {
    if (in.opcode == "ld.param.u64") {
      ASSERT_EQ(in.operands.size(), 2u);
      EXPECT_EQ(in.operands[1].kind, Operand::Kind::kAddress);
      EXPECT_EQ(in.operands[1].name.rfind("reduce_sum_param_", 0), 0u);
    }
    if (in.opcode == "mov.f32" && in.operands[1].kind == Operand::Kind::kImmediate) {
      EXPECT_TRUE(in.operands[1].is_float);  // 0f00000000
    }
  }
}

TEST(PtxParser, FunctionsCallsAndReturnValues) {
  Module m = load("divergence", "80");
  const ptx::Function* callee = nullptr;
  for (const auto& f : m.functions)
    if (!f.is_entry) callee = &f;
  ASSERT_NE(callee, nullptr);
  EXPECT_EQ(callee->returns.size(), 1u);
  EXPECT_EQ(callee->params.size(), 2u);
  const ptx::Function* entry = m.find("divergence");
  ASSERT_NE(entry, nullptr);
  bool call = false;
  for (const auto& in : entry->body) {
    if (in.opcode.rfind("call", 0) == 0) {
      call = true;
      ASSERT_EQ(in.operands.size(), 3u);  // (retval0), _Z6polishfi, (param0, param1)
      EXPECT_EQ(in.operands[0].kind, Operand::Kind::kList);
      EXPECT_EQ(in.operands[1].name, callee->name);
      EXPECT_EQ(in.operands[2].kind, Operand::Kind::kList);
      EXPECT_EQ(in.operands[2].items.size(), 2u);
    }
  }
  EXPECT_TRUE(call);
}

// The extreme integer literals nvcc writes (libdevice compares with INT64_MIN) parse without
// overflow: -9223372036854775808 is 0x8000000000000000.
TEST(PtxParser, ExtremeIntegerLiterals) {
  Module m = ptx::parse_ptx(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n  .reg .pred %p<2>;\n"
                            "  .reg .b64 %rd<2>;\n  setp.eq.s64 %p1, %rd1, -9223372036854775808;\n"
                            "  or.b64 %rd1, %rd1, 18446744073709551615;\n  ret;\n}\n",
                            "k.ptx");
  const auto& body = m.functions.at(0).body;
  EXPECT_EQ(static_cast<uint64_t>(body.at(0).operands.at(2).value), 0x8000000000000000ull);
  EXPECT_EQ(static_cast<uint64_t>(body.at(1).operands.at(2).value), 0xFFFFFFFFFFFFFFFFull);
}

TEST(PtxParser, TensorCoreInstructions) {
  EXPECT_TRUE(has_opcode(load("wmma_gemm", "75").functions.at(0), "wmma.mma.sync.aligned"));
  EXPECT_TRUE(has_opcode(load("mma_sync", "80").functions.at(0), "mma.sync.aligned.m16n8k16"));
  EXPECT_FALSE(has_opcode(load("mma_sync", "75").functions.at(0), "mma.sync"));
  Module sm100 = load("mma_sync", "100");  // kept alive: range-for over a temporary's member dangles
  for (const auto& in : sm100.functions.at(0).body) {
    if (in.opcode.rfind("mma.sync", 0) == 0) {
      ASSERT_EQ(in.operands.size(), 4u);
      EXPECT_EQ(in.operands[0].kind, Operand::Kind::kVector);
      EXPECT_EQ(in.operands[0].items.size(), 4u);
      EXPECT_EQ(in.operands[2].items.size(), 2u);
    }
  }
}

// nvcc's inline-asm blocks each declare the same temporary (`{ .reg .b32 __$1; ... }`); each
// block's declaration is its own register, and its uses inside the block refer to it.
TEST(PtxParser, NestedScopesGiveTheirRegistersNamesOfTheirOwn) {
  Module m = ptx::parse_ptx(R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<3>;
  .reg .f32 %f<3>;
  {
    .reg .b32 __$1;
    cvt.rna.tf32.f32 __$1, %f1;
    mov.b32 %r1, __$1;
  }
  {
    .reg .b64 __$1;
    .reg .b32 %t<2>;
    mov.b64 __$1, 7;
    cvt.u32.u64 %t1, __$1;
    mov.b32 %r2, %t1;
  }
  ret;
}
)", "scopes.ptx");
  const ptx::Function& f = m.functions.at(0);
  ASSERT_EQ(f.registers.size(), 5u);
  EXPECT_EQ(f.registers[2].type, ".b32");
  EXPECT_EQ(f.registers[3].type, ".b64");
  EXPECT_NE(f.registers[2].name, f.registers[3].name);
  EXPECT_NE(f.registers[2].name, "__$1");
  ASSERT_EQ(f.body.size(), 6u);
  EXPECT_EQ(f.body[0].operands[0].name, f.registers[2].name);
  EXPECT_EQ(f.body[1].operands[1].name, f.registers[2].name);
  EXPECT_EQ(f.body[2].operands[0].name, f.registers[3].name);
  EXPECT_EQ(f.body[3].operands[0].name, f.registers[4].name + "1");  // %t1 of the %t<2> range declared in the scope
  EXPECT_EQ(f.body[4].operands[0].name, "%r2");                     // names from outside are untouched
}

TEST(PtxParser, EveryEmittedOpcodeDecodes) {
  // The timing model must know every instruction nvcc emitted for these kernels.
  for (const auto& entry : std::filesystem::directory_iterator(test::source_path("traces/kernels/ptx"))) {
    Module m = ptx::parse_ptx_file(entry.path().string());
    for (const auto& f : m.functions) {
      for (const auto& in : f.body) {
        OpInfo op;
        std::string error;
        // tcgen05.mma's shape and types come from its instruction descriptor at run time; the
        // emulator spells them after the mnemonic for the timing model (tensor_memory.cpp).
        const std::string mnemonic = in.opcode.rfind("tcgen05.mma.", 0) == 0 ? tcgen05_mma_stand_in(in.opcode) : in.opcode;
        EXPECT_TRUE(decode_mnemonic(mnemonic, op, error)) << entry.path().filename() << ":" << in.line << " " << in.opcode << ": " << error;
      }
    }
  }
}

struct BadPtx {
  const char* name;
  std::string text;
  std::string location;
  std::string message;
};
void PrintTo(const BadPtx& c, std::ostream* os) { *os << c.name; }
class PtxErrors : public testing::TestWithParam<BadPtx> {};

TEST_P(PtxErrors, ReportLineAndColumn) {
  const BadPtx& c = GetParam();
  try {
    ptx::parse_ptx(c.text, "k.ptx");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("k.ptx" + c.location), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
  }
}

const char* const kHead = ".version 9.0\n.target sm_80\n.address_size 64\n";

INSTANTIATE_TEST_SUITE_P(
    Cases, PtxErrors,
    testing::Values(
        BadPtx{"missing semicolon", std::string(kHead) + ".visible .entry k()\n{\n  ret\n}\n", ":7:1", "unexpected '}', expected ';'"},
        BadPtx{"unclosed body", std::string(kHead) + ".visible .entry k()\n{\n  ret;\n", ":7:1", "unexpected end of file, expected '}' to close the body of k"},
        BadPtx{"bad register decl", std::string(kHead) + ".entry k()\n{\n  .reg .q32 %r<3>;\n}\n", ":6:8", "expected a register type"},
        BadPtx{"bad guard", std::string(kHead) + ".entry k()\n{\n  @3 bra L;\n}\n", ":6:4", "expected a predicate register after '@'"},
        BadPtx{"bad operand", std::string(kHead) + ".entry k()\n{\n  add.s32 %r1, ;\n}\n", ":6:16", "expected an operand"},
        BadPtx{"bad float", std::string(kHead) + ".entry k()\n{\n  mov.f32 %f1, 0f3F80;\n}\n", ":6:16", "a 0f float with 8 hex digits"},
        BadPtx{"stray character", std::string(kHead) + "#\n", ":4:1", "unexpected character '#'"},
        BadPtx{"unknown module directive", std::string(kHead) + ".frobnicate 3\n", ":4:1", "expected a module directive"},
        BadPtx{"bad param", std::string(kHead) + ".entry k(.u32 x)\n{\n}\n", ":4:10", "expected '.param' or '.reg'"},
        BadPtx{"unterminated comment", std::string(kHead) + "/* oops\n", ":4:1", "unterminated /* comment"}),
    [](const testing::TestParamInfo<BadPtx>& i) {
      std::string n = i.param.name;
      for (char& ch : n)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

}  // namespace
}  // namespace warpsim
