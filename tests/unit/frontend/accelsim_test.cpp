// Accel-Sim traces: the hand-written examples in traces/accelsim/ replay with statistics worked
// out by hand, all three address encodings decode to the addresses the tracer meant, convert
// round-trips, and malformed input gives file:line:col errors.
#include "frontend/accelsim/accelsim_workload.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "frontend/accelsim/sass_opcodes.h"
#include "frontend/trace/trace_reader.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using test::TempDir;

std::vector<std::vector<uint64_t>> addresses_of_warp0(const std::string& path) {
  AccelSimWorkload w(path);
  auto k = w.next_kernel();
  auto cta = k->next_cta();
  std::vector<std::vector<uint64_t>> out;
  while (const WarpInst* in = cta->warp(0).next()) {
    std::vector<uint64_t> a;
    if (in->op->space != MemSpace::kNone) in->for_each_address([&](int, uint64_t x) { a.push_back(x); });
    out.push_back(a);
  }
  return out;
}

TEST(AccelSimTrace, ListAllAddresses) {
  auto a = addresses_of_warp0(test::source_path("traces/accelsim/kernel-1.traceg"));
  ASSERT_EQ(a.size(), 6u);
  ASSERT_EQ(a[2].size(), 32u);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(a[2][l], 0x7f0000000000u + 4u * l);
}

TEST(AccelSimTrace, BaseStrideAddressesAndSharedOffsets) {
  auto a = addresses_of_warp0(test::source_path("traces/accelsim/kernel-2.traceg"));
  ASSERT_EQ(a.size(), 5u);
  ASSERT_EQ(a[0].size(), 32u);
  EXPECT_EQ(a[0][0], 0u);  // generic shared address minus the shared-memory base
  EXPECT_EQ(a[0][31], 31u * 8);
  ASSERT_EQ(a[1].size(), 16u);  // mask 0000ffff
  EXPECT_EQ(a[1][15], 0x7f0000200000u + 15 * 8);
}

TEST(AccelSimTrace, BaseDeltaAddressesFromXz) {
  auto a = addresses_of_warp0(test::source_path("traces/accelsim/kernel-3.traceg.xz"));
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0], (std::vector<uint64_t>{0x7f0000300000, 0x7f0000300080, 0x7f0000300100, 0x7f0000300180}));
  ASSERT_EQ(a[2].size(), 32u);
  for (auto x : a[2]) EXPECT_EQ(x, 0x7f0000400000u);
}

TEST(AccelSimTrace, XzAndPlainReadTheSame) {
  EXPECT_EQ(addresses_of_warp0(test::source_path("traces/accelsim/kernel-3.traceg")),
            addresses_of_warp0(test::source_path("traces/accelsim/kernel-3.traceg.xz")));
}

TEST(AccelSimTrace, ExamplesReplayWithHandCheckedStatistics) {
  auto s = test::simulate_file("a100", test::source_path("traces/accelsim/kernelslist.g"));
  ASSERT_EQ(s.runs.size(), 3u);
  // Kernel 1: 2 blocks x 2 warps x 6 instructions, all lanes; each warp loads and stores 32
  // consecutive floats = one 128-byte line = 4 sectors.
  EXPECT_EQ(s.kernels[0].warp_instructions, 24u);
  EXPECT_EQ(s.kernels[0].thread_instructions, 24u * 32);
  EXPECT_EQ(s.sum("gpu.sm[*].global_load.requests", 0), 4u);
  EXPECT_EQ(s.sum("gpu.sm[*].global_load.sectors", 0), 16u);
  EXPECT_EQ(s.sum("gpu.sm[*].global_store.sectors", 0), 16u);
  EXPECT_EQ(s.sum("gpu.sm[*].pipe.fma.inst_executed", 0), 8u);  // IMAD.WIDE and FADD on the FMA pipe
  EXPECT_EQ(s.kernels[0].dram_bytes_read, 512u);                // a[0..127]: 4 lines
  // Kernel 2: LDS of 32 lanes 8 bytes apart = 2-way bank conflict; LDG.E.64 on 16 lanes = 128
  // bytes = 4 sectors; one HMMA.16816 = 2*16*8*16 FLOPs.
  EXPECT_EQ(s.kernels[1].warp_instructions, 5u);
  EXPECT_EQ(s.kernels[1].thread_instructions, 4u * 32 + 16);
  EXPECT_EQ(s.sum("gpu.sm[*].shared_load.wavefronts", 1), 2u);
  EXPECT_EQ(s.sum("gpu.sm[*].global_load.sectors", 1), 4u);
  EXPECT_EQ(s.sum("gpu.sm[*].tensor.flops", 1), 4096u);
  EXPECT_EQ(s.sum("gpu.sm[*].barriers", 1), 1u);
  // Kernel 3: 4 lanes in 4 different lines = 4 sectors; the atomic on one address = 1 sector.
  EXPECT_EQ(s.kernels[2].warp_instructions, 4u);
  EXPECT_EQ(s.kernels[2].thread_instructions, 4u + 3 * 32);
  EXPECT_EQ(s.sum("gpu.sm[*].global_load.sectors", 2), 4u);
  EXPECT_EQ(s.sum("gpu.sm[*].atomic.requests", 2), 1u);
  EXPECT_EQ(s.sum("gpu.l2.atomics", 2), 1u);
}

TEST(AccelSimTrace, UnknownOpcodesAreCountedOnceEach) {
  AccelSimWorkload w(test::source_path("traces/accelsim/kernelslist.g"));
  while (auto k = w.next_kernel())
    while (auto c = k->next_cta()) {
    }
  EXPECT_EQ(w.unknown_opcodes(), (std::map<std::string, uint64_t>{{"FOOBAR", 1}}));
  EXPECT_EQ(w.memcpy_commands(), 2u);
  EXPECT_EQ(w.memcpy_bytes(), 768u);
}

TEST(AccelSimTrace, ConvertedTraceReplaysIdentically) {
  TempDir dir;
  std::string out = dir.path("converted.trace");
  auto r = test::run_cli({"convert", test::source_path("traces/accelsim/kernelslist.g"), "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("FOOBAR"), std::string::npos);
  std::string text = test::read_file(out);
  EXPECT_NE(text.find("# HMMA.16816.F32"), std::string::npos);
  EXPECT_NE(text.find("mma.sync.aligned.m16n8k16"), std::string::npos);
  auto a = test::simulate_file("h100", test::source_path("traces/accelsim/kernelslist.g"));
  auto b = test::simulate_file("h100", out);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t k = 0; k < a.kernels.size(); ++k) {
    EXPECT_EQ(a.kernels[k].cycles, b.kernels[k].cycles) << k;
    EXPECT_EQ(a.kernels[k].warp_instructions, b.kernels[k].warp_instructions) << k;
    EXPECT_EQ(a.kernels[k].thread_instructions, b.kernels[k].thread_instructions) << k;
    EXPECT_EQ(a.kernels[k].dram_bytes_read, b.kernels[k].dram_bytes_read) << k;
  }
}

TEST(SassOpcodes, MapToPipesShapesAndWidths) {
  auto decode = [](const char* sass, uint32_t width = 0) {
    SassMapping m = map_sass_opcode(sass, width, 80);
    OpInfo op;
    std::string error;
    EXPECT_TRUE(decode_mnemonic(m.mnemonic, op, error)) << sass << " -> " << m.mnemonic << ": " << error;
    EXPECT_TRUE(m.known) << sass;
    return op;
  };
  EXPECT_EQ(decode("FFMA").pipe, Pipe::kFma);
  EXPECT_EQ(decode("IMAD.WIDE.U32").pipe, Pipe::kFma);
  EXPECT_EQ(decode("IADD3.X").pipe, Pipe::kAlu);
  EXPECT_EQ(decode("DFMA").pipe, Pipe::kFp64);
  EXPECT_EQ(decode("HFMA2.MMA").pipe, Pipe::kFp16);
  EXPECT_EQ(decode("MUFU.EX2").pipe, Pipe::kXu);
  EXPECT_EQ(decode("LDG.E.128", 16).access_bytes, 16);
  EXPECT_EQ(decode("LDG.E.64.CONSTANT", 8).space, MemSpace::kGlobal);
  EXPECT_EQ(decode("STS.U8", 1).space, MemSpace::kShared);
  EXPECT_EQ(decode("LDL", 4).space, MemSpace::kLocal);
  EXPECT_EQ(decode("ATOMS.ADD", 4).op_class, OpClass::kAtomic);
  EXPECT_EQ(decode("RED.E.ADD.F32.FTZ.RN.STRONG.GPU", 4).op_class, OpClass::kReduction);
  EXPECT_EQ(decode("BAR.SYNC.DEFER_BLOCKING").op_class, OpClass::kBarrier);
  EXPECT_EQ(decode("BAR.ARV").op_class, OpClass::kNop);
  EXPECT_EQ(decode("EXIT").op_class, OpClass::kExit);
  EXPECT_EQ(decode("BRA").op_class, OpClass::kBranch);
  OpInfo h = decode("HMMA.16816.F32.BF16");
  EXPECT_EQ(h.tensor, TensorPrecision::kBf16);
  EXPECT_EQ(h.tensor_flops(), 4096u);
  EXPECT_EQ(decode("HMMA.1688.F32.TF32").tensor, TensorPrecision::kTf32);
  EXPECT_EQ(decode("HMMA.884.F32.F32.STEP0").tensor_flops(), 512u);  // Volta: m8n8k4
  EXPECT_EQ(decode("IMMA.16832.S8.S8").tensor, TensorPrecision::kInt8);
  // Sparse tensor instructions (HMMA.SP.16832.F32 is mma.sp m16n8k32): half the logical shape's FLOPs.
  OpInfo sp = decode("HMMA.SP.16832.F32");
  EXPECT_TRUE(sp.sparse);
  EXPECT_EQ(sp.tensor, TensorPrecision::kFp16);
  EXPECT_EQ(sp.tensor_flops(), 16u * 8 * 32);
  EXPECT_EQ(decode("IMMA.SP.16864.S8.S8").tensor_flops(), 16u * 8 * 64);
  EXPECT_FALSE(decode("HMMA.16816.F32").sparse);
  EXPECT_EQ(decode("DMMA.884").tensor, TensorPrecision::kFp64);
  OpInfo g = decode("HGMMA.64x128x16.F32");
  EXPECT_EQ(g.tensor_flops(), 2u * 64 * 128 * 16 / 4);  // a quarter per warp of the warpgroup
  EXPECT_FALSE(map_sass_opcode("FOOBAR", 0, 80).known);
  EXPECT_EQ(map_sass_opcode("FOOBAR", 0, 80).mnemonic, kDefaultSassMnemonic);
}

// Malformed traces: each names file:line:col and what was expected.
struct BadAccelSim {
  const char* name;
  std::string body;  // replaces the instruction line of a one-warp kernel
  std::string location;
  std::string message;
};
void PrintTo(const BadAccelSim& c, std::ostream* os) { *os << c.name; }

std::string one_warp_traceg(const std::string& header_extra, const std::string& insts, int count = 1) {
  return "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem = 0\n-nregs = 8\n-binary version = 80\n"
         "-accelsim tracer version = 4\n" +
         header_extra + "\n#traces format = ...\n\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = " + std::to_string(count) + "\n" +
         insts + "#END_TB\n";
}

// Hopper: a warp's HGMMA (its quarter of a warpgroup MMA) runs at the full tensor rate, an HMMA
// of the same FLOPs (HGMMA.64x8x16's quarter is m16n8k16) at the warp-level share of it
// (tensor.warp_mma_fraction_of_peak); on A100 there is no such cut.
TEST(AccelSimTrace, HopperRunsHgmmaAtTheFullRateAndHmmaBelowIt) {
  auto cycles = [](const std::string& arch, const std::string& opcode, int n) {
    std::string insts;
    for (int i = 0; i < n; ++i) {
      const std::string acc = "R" + std::to_string(16 + 4 * (i % 8));  // independent accumulators
      insts += "0000 ffffffff 1 " + acc + " " + opcode + " 3 R2 R4 " + acc + " 0 0\n";
    }
    insts += "0000 ffffffff 0 EXIT 0 0 0\n";
    TempDir dir;
    return test::simulate_file(arch, dir.write("k.traceg", one_warp_traceg("", insts, n + 1))).kernels.at(0).cycles;
  };
  for (const std::string arch : {"h100", "a100"}) {
    const GpuSpec spec = load_gpu_config(arch).spec;
    const double per_sub = spec.tensor.flops_per_clk_per_sm[static_cast<int>(TensorPrecision::kFp16)] / 4.0;
    const double full = 4096.0 / per_sub * spec.clocks.boost_mhz / spec.clocks.tensor_peak_mhz;  // cycles per MMA
    const double hgmma = double(cycles(arch, "HGMMA.64x8x16.F32", 256) - cycles(arch, "HGMMA.64x8x16.F32", 128));
    const double hmma = double(cycles(arch, "HMMA.16816.F32", 256) - cycles(arch, "HMMA.16816.F32", 128));
    EXPECT_NEAR(hgmma, 128 * full, 1.0) << arch;
    EXPECT_NEAR(hmma, 128 * full / spec.tensor.warp_mma_fraction, 1.0) << arch;
  }
  EXPECT_NEAR(load_gpu_config("h100").spec.tensor.warp_mma_fraction, 0.63, 1e-9);  // configs/h100.yaml's cited share
  EXPECT_EQ(load_gpu_config("a100").spec.tensor.warp_mma_fraction, 1.0);
}

// `from` replaced by `to` in a one-instruction trace (found by fuzz_trace: nothing after '=').
std::string edited(const std::string& from, const std::string& to) {
  std::string t = one_warp_traceg("", "0000 ffffffff 0 EXIT 0 0 0\n");
  t.replace(t.find(from), from.size(), to);
  return t;
}

std::string outside_grid() {
  std::string t = one_warp_traceg("", "");
  t.replace(t.find("thread block = 0,0,0"), 20, "thread block = 4,0,0");
  return t;
}

class AccelSimErrors : public testing::TestWithParam<BadAccelSim> {};

TEST_P(AccelSimErrors, ReportFileLineColumn) {
  const BadAccelSim& c = GetParam();
  TempDir dir;
  std::string path = dir.write("k.traceg", c.body);
  try {
    AccelSimWorkload w(path);
    while (auto k = w.next_kernel())
      while (auto cta = k->next_cta()) {
      }
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + c.location), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
  }
}

// The header takes 14 lines, so the instruction is line 15.
INSTANTIATE_TEST_SUITE_P(
    Cases, AccelSimErrors,
    testing::Values(
        BadAccelSim{"unknown header key", one_warp_traceg("-frobnicate = 3", "0000 ffffffff 0 EXIT 0 0 0\n"), ":8:2",
                    "unknown header key 'frobnicate'"},
        BadAccelSim{"old tracer", "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 2\n", ":3:28",
                    "tracer version 2 is not supported; expected 3, 4 or 5"},
        BadAccelSim{"missing version", "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n#BEGIN_TB\n", "", "no '-accelsim tracer version'"},
        BadAccelSim{"bad grid", "-grid dim = (1,x,1)\n", ":1:13", "expected (x,y,z) with positive sizes"},
        BadAccelSim{"truncated line", one_warp_traceg("", "0000 ffffffff 1 R2 LDG.E\n"), ":15:25", "line ends early; expected the source count"},
        BadAccelSim{"too few addresses", one_warp_traceg("", "0000 00000007 1 R2 LDG.E 1 R4 4 0 0x10 0x14\n"), ":15:33",
                    "expected 3 addresses (one per active lane), got 2"},
        BadAccelSim{"too few deltas", one_warp_traceg("", "0000 00000007 1 R2 LDG.E 1 R4 4 2 0x10 4\n"), ":15:33",
                    "expected 3 addresses (one per active lane), got 2"},
        BadAccelSim{"too many addresses", one_warp_traceg("", "0000 00000001 1 R2 LDG.E 1 R4 4 0 0x10 0x14 0x18\n"), ":15:45",
                    "more value(s) than expected after the addresses"},
        BadAccelSim{"bad mode", one_warp_traceg("", "0000 ffffffff 1 R2 LDG.E 1 R4 4 7 0x10\n"), ":15:33", "expected the address mode"},
        BadAccelSim{"bad register", one_warp_traceg("", "0000 ffffffff 1 X2 FADD 0 0 0\n"), ":15:17", "expected a register such as R12, got 'X2'"},
        BadAccelSim{"bad pc", one_warp_traceg("", "zz ffffffff 0 EXIT 0 0 0\n"), ":15:1", "expected a hex PC"},
        BadAccelSim{"insts count", one_warp_traceg("", "0000 ffffffff 0 EXIT 0 0 0\n", 2), ":14:1", "declares insts = 2 but has 1"},
        BadAccelSim{"no end", "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\n",
                    ":5", "ends inside a thread block"},
        BadAccelSim{"block outside grid", outside_grid(), ":12:1",
                    "lies outside the grid"},
        BadAccelSim{"no insts count", edited("insts = 1", "insts = "), ":14:1", "expected 'insts = N'"},
        BadAccelSim{"no warp number", edited("warp = 0", "warp ="), ":13:1", "expected 'warp = N' with N from 0 to 0"},
        BadAccelSim{"line numbers expected", one_warp_traceg("-enable lineinfo = 1", "0000 ffffffff 0 EXIT 0 0 0\n"), ":15:17",
                    "expected the destination count"}),
    [](const testing::TestParamInfo<BadAccelSim>& i) {
      std::string n = i.param.name;
      for (char& ch : n)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(AccelSimCommandList, BadLineIsAnError) {
  TempDir dir;
  std::string list = dir.write("kernelslist.g", "kernel-1.traceg\nlaunch everything\n");
  try {
    AccelSimWorkload w(list);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(list + ":2:1: unexpected 'launch everything'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace warpsim
