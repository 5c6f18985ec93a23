// The timing model against analytic expectations: dependency chains cost their latency,
// enough warps reach the pipe's issue rate, divergent paths add up, bank conflicts replay,
// pointer chases see each level's latency, MMAs issue at the per-SM tensor rate.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "common/error.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using test::simulate_text;


std::string repeat(const std::string& line, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += line + "\n";
  return s;
}

std::string one_warp(const std::string& body) { return test::kernel_header("k", 1, 32) + ".cta 0 0 0\n.warp 0\n" + body; }

uint64_t cycles_of(const std::string& arch, const std::string& trace) { return simulate_text(arch, trace).kernels.at(0).cycles; }

TEST(Timing, DependentFmaChainCostsLatencyPerInstruction) {
  for (const auto& arch : test::kArchs) {
    const std::string tail = "st.global.f32 [%rd1], %f1; addr=0x1000+4\nexit\n";
    uint64_t c64 = cycles_of(arch, one_warp(repeat("fma.rn.f32 %f1, %f1, %f2, %f3", 64) + tail));
    uint64_t c192 = cycles_of(arch, one_warp(repeat("fma.rn.f32 %f1, %f1, %f2, %f3", 192) + tail));
    uint32_t latency = load_gpu_config(arch).spec.pipe(Pipe::kFma).latency;
    EXPECT_EQ(c192 - c64, 128u * latency) << arch;
  }
}

TEST(Timing, IndependentWarpsReachThePipeIssueRate) {
  for (const auto& arch : test::kArchs) {
    GpuSpec spec = load_gpu_config(arch).spec;
    const uint32_t ii = spec.pipe(Pipe::kFma).issue_interval();
    // 4 warps per scheduler, one dependent chain each: 4 * ii >= latency on every config, so
    // the pipe (not the dependency) sets the pace: ii cycles per warp FMA per scheduler.
    auto trace = [&](int m) {
      std::string t = test::kernel_header("k", 1, 512) + ".cta 0 0 0\n";
      for (int w = 0; w < 16; ++w) t += ".warp " + std::to_string(w) + "\n" + repeat("fma.rn.f32 %f1, %f1, %f2, %f3", m);
      return t;
    };
    uint64_t a = cycles_of(arch, trace(100)), b = cycles_of(arch, trace(300));
    EXPECT_NEAR(double(b - a), 4.0 * 200 * ii, 2.0) << arch;
  }
}

TEST(Timing, HalfDivergentIfElseCostsTheSumOfBothPaths) {
  const std::string tail = "st.global.f32 [%rd1], %f1; addr=0x1000+4\nexit\n";
  std::string uniform32 = one_warp(repeat("fma.rn.f32 %f1, %f1, %f2, %f3", 32) + tail);
  std::string uniform16 = one_warp(repeat("fma.rn.f32 %f1, %f1, %f2, %f3", 16) + tail);
  std::string split = one_warp(repeat("0000ffff fma.rn.f32 %f1, %f1, %f2, %f3", 16) +
                               repeat("ffff0000 fma.rn.f32 %f1, %f1, %f2, %f3", 16) + tail);
  for (const auto& arch : test::kArchs) {
    uint64_t both = cycles_of(arch, split);
    EXPECT_EQ(both, cycles_of(arch, uniform32)) << arch;
    EXPECT_GT(both, cycles_of(arch, uniform16)) << arch;
  }
  auto s = simulate_text("a100", split);
  // 32 FMAs at 16 lanes, then a store and an exit at 32 lanes: (32*16 + 2*32) / (34*32).
  EXPECT_NEAR(s.kernels[0].simt_efficiency, (32.0 * 16 + 2 * 32) / (34.0 * 32), 1e-12);
}

TEST(Timing, BankConflictsReplayNTimes) {
  const int k = 64;
  std::map<uint32_t, uint64_t> cycles;
  for (uint32_t n : {1u, 2u, 4u, 8u, 16u, 32u}) {
    std::ostringstream body;
    for (int i = 0; i < k; ++i) body << "ld.shared.f32 %f" << i << ", [%r1]; addr=0x0+" << 4 * n << "\n";
    body << "exit\n";
    auto s = simulate_text("a100", test::kernel_header("k", 1, 32, 8192) + ".cta 0 0 0\n.warp 0\n" + body.str());
    EXPECT_EQ(s.sum("gpu.sm[*].shared_load.wavefronts"), uint64_t{k} * n);
    EXPECT_EQ(s.sum("gpu.sm[*].shared_load.requests"), uint64_t{k});
    cycles[n] = s.kernels[0].cycles;
  }
  for (uint32_t n : {2u, 4u, 8u, 16u, 32u}) {
    // Each extra way occupies the shared-memory pipe one more cycle per instruction.
    EXPECT_NEAR(double(cycles[n] - cycles[1]), double(k) * (n - 1), 0.05 * k * (n - 1)) << n;
  }
}

// One lane chases pointers through `lines` distinct 128-byte lines; `passes` walks repeat.
std::string chase(int lines, int passes, uint64_t base) {
  std::ostringstream t;
  for (int p = 0; p < passes; ++p)
    for (int i = 0; i < lines; ++i)
      t << "00000001 ld.global.u64 %rd" << (i + p * lines + 1) % 2 << ", [%rd" << (i + p * lines) % 2 << "]; addr=0x"
        << std::hex << base + uint64_t(i) * 128 << std::dec << "\n";
  return t.str();
}

struct Latencies {
  double l1, l2, dram;
};

Latencies measured_latencies(const std::string& arch) {
  const int n = 64;
  auto kernel = [&](const std::string& name, const std::string& body) {
    return ".kernel " + name + "\n.grid 1\n.block 32\n.shared 0\n.regs 8\n.cta 0 0 0\n.warp 0\n" + body + "exit\n";
  };
  // L1: the same lines twice in one kernel; the second pass hits.
  auto l1 = [&](int passes) { return cycles_of(arch, ".version 1\n" + kernel("l1", chase(n, passes, 0x100000))); };
  double l1_latency = double(l1(3) - l1(2)) / n;
  // L2: kernel 1 brings the lines into L2; L1 is invalidated at kernel boundaries, so kernel 2's
  // chase hits in L2. DRAM: a chase through lines nobody touched.
  auto second_kernel = [&](int lines) {
    auto s = simulate_text(arch, ".version 1\n" + kernel("warm", chase(lines, 1, 0x200000)) + kernel("chase", chase(lines, 1, 0x200000)));
    return s.kernels.at(1).cycles;
  };
  double l2_latency = double(second_kernel(2 * n) - second_kernel(n)) / n;
  auto cold = [&](int lines) { return cycles_of(arch, ".version 1\n" + kernel("cold", chase(lines, 1, 0x40000000))); };
  double dram_latency = double(cold(2 * n) - cold(n)) / n;
  return {l1_latency, l2_latency, dram_latency};
}

TEST(Timing, PointerChaseSeesEachLevelsLatency) {
  for (const auto& arch : test::kArchs) {
    SCOPED_TRACE(arch);
    GpuSpec s = load_gpu_config(arch).spec;
    const auto& m = s.memory;
    Latencies got = measured_latencies(arch);
    // The composition of the model's path: L1 tag + interconnect both ways + L2 lookup, plus one
    // cycle each for the request header and the sector crossing a 64 B/clk port; a miss adds the
    // HBM channel transfer of one sector, the HBM latency and the bank's row timing: tCL for a
    // row hit up to tRP + tRCD + tCL for a conflict (which of them each access meets depends on
    // the address hash; DramChannel's own test checks each case exactly).
    double l2 = m.l1.hit_latency + 2.0 * m.interconnect.latency + m.l2.hit_latency + 2;
    double bytes_per_cycle = m.hbm.peak_bytes_per_second() / m.hbm.channels / s.cycles_per_second();
    auto cycles = [&](double ns) { return std::ceil(ns * s.cycles_per_second() * 1e-9 - 1e-9); };
    double dram = l2 + std::ceil(m.sector_bytes / bytes_per_cycle) + m.hbm.latency;
    EXPECT_DOUBLE_EQ(got.l1, m.l1.hit_latency);
    EXPECT_DOUBLE_EQ(got.l2, l2);
    EXPECT_GE(got.dram, dram + cycles(m.hbm.t_cl_ns));
    EXPECT_LE(got.dram, dram + cycles(m.hbm.t_rp_ns) + cycles(m.hbm.t_rcd_ns) + cycles(m.hbm.t_cl_ns));
  }
}

TEST(Timing, PointerChaseLatenciesWithin10PercentOfMeasurements) {
  // Pointer-chase latencies measured on hardware (TK, shared/reference/hardware.md §2.1):
  // V100 30/215/437, A100 36/211/570, H100 PCIe 34/265/654 cycles for L1/L2/DRAM.
  std::map<std::string, Latencies> reference = {{"v100", {30, 215, 437}}, {"a100", {36, 211, 570}}, {"h100", {34, 265, 654}}};
  for (const auto& [arch, ref] : reference) {
    Latencies got = measured_latencies(arch);
    EXPECT_NEAR(got.l1, ref.l1, 0.1 * ref.l1) << arch;
    EXPECT_NEAR(got.l2, ref.l2, 0.1 * ref.l2) << arch;
    EXPECT_NEAR(got.dram, ref.dram, 0.1 * ref.dram) << arch;
  }
}

TEST(Timing, MmaIssuesAtThePerSmTensorRate) {
  for (const auto& arch : test::kArchs) {
    GpuSpec spec = load_gpu_config(arch).spec;
    auto trace = [&](int k) {
      std::ostringstream b;
      for (int i = 0; i < k; ++i) {
        int acc = i % 16;  // 16 independent accumulators: no dependency stalls on any config
        b << "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f" << acc << "}, {%r1}, {%r2}, {%f" << acc << "}\n";
      }
      return one_warp(b.str() + "exit\n");
    };
    // A warp-level MMA runs at the warp-level share of the rate (Hopper: below its peak).
    const double per_scheduler = spec.tensor.flops_per_clk_per_sm[static_cast<int>(TensorPrecision::kFp16)] / 4.0 * spec.tensor.warp_mma_fraction;
    // Tensor cores run at tensor_peak_mhz; the model counts boost-clock cycles.
    const double interval = 2.0 * 16 * 16 * 16 / per_scheduler * spec.clocks.boost_mhz / spec.clocks.tensor_peak_mhz;
    EXPECT_NEAR(double(cycles_of(arch, trace(128)) - cycles_of(arch, trace(64))), 64 * interval, 1.0) << arch;
  }
}

// A warpgroup's wgmma: each of its four warps issues the instruction and computes a quarter of
// the m64nNk16 product, on its own sub-partition's tensor core, so the SM runs at its full rate
// and the FLOPs counted are the shape's once per warpgroup, not four times.
TEST(Timing, WgmmaSplitsTheWarpgroupsProductOverItsFourWarps) {
  GpuSpec spec = load_gpu_config("h100").spec;
  auto trace = [&](int k) {
    std::string t = test::kernel_header("k", 1, 128) + ".cta 0 0 0\n";
    for (int w = 0; w < 4; ++w) {
      t += ".warp " + std::to_string(w) + "\n";
      for (int i = 0; i < k; ++i) {
        const int acc = i % 8;  // independent accumulators
        t += "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%f" + std::to_string(acc) + "}, %rd1, %rd2\n";
      }
      t += "exit\n";
    }
    return test::simulate_text("h100", t);
  };
  auto a = trace(32), b = trace(64);
  EXPECT_EQ(b.sum("gpu.sm[*].tensor.flops") - a.sum("gpu.sm[*].tensor.flops"), 32ull * 2 * 64 * 128 * 16);
  const double per_sm = spec.tensor.flops_per_clk_per_sm[static_cast<int>(TensorPrecision::kFp16)];
  const double cycles = 32.0 * 2 * 64 * 128 * 16 / per_sm * spec.clocks.boost_mhz / spec.clocks.tensor_peak_mhz;
  EXPECT_NEAR(double(b.kernels.at(0).cycles - a.kernels.at(0).cycles), cycles, 2.0);
}

// Hopper reaches its tensor peak only through wgmma: the same FP16 FLOPs through mma.sync take
// 1 / tensor.warp_mma_fraction_of_peak as long, while FP64 MMAs, which have no warpgroup form,
// run at the FP64 peak through mma.sync.
TEST(Timing, HopperWarpLevelMmasRunBelowThePeak) {
  GpuSpec spec = load_gpu_config("h100").spec;
  ASSERT_LT(spec.tensor.warp_mma_fraction, 1.0);
  auto cycles = [](const std::string& mnemonic, const std::string& operands, int k) {
    std::ostringstream b;
    for (int i = 0; i < k; ++i) b << mnemonic << " {%f" << i % 16 << "}, " << operands << ", {%f" << i % 16 << "}\n";
    return double(cycles_of("h100", one_warp(b.str() + "exit\n")));
  };
  const double per_sub = spec.tensor.flops_per_clk_per_sm[static_cast<int>(TensorPrecision::kFp16)] / 4.0;
  const double peak_interval = 2.0 * 16 * 8 * 16 / per_sub * spec.clocks.boost_mhz / spec.tensor_clock_mhz(TensorPrecision::kFp16);
  const std::string f16 = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
  EXPECT_NEAR(cycles(f16, "{%r1,%r2,%r3,%r4}, {%r5,%r6}", 128) - cycles(f16, "{%r1,%r2,%r3,%r4}, {%r5,%r6}", 64),
              64 * peak_interval / spec.tensor.warp_mma_fraction, 1.0);
  const double fp64_per_sub = spec.tensor.flops_per_clk_per_sm[static_cast<int>(TensorPrecision::kFp64)] / 4.0;
  const double fp64_interval = 2.0 * 8 * 8 * 4 / fp64_per_sub * spec.clocks.boost_mhz / spec.tensor_clock_mhz(TensorPrecision::kFp64);
  const std::string f64 = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64";
  EXPECT_NEAR(cycles(f64, "{%fd1}, {%fd2}", 128) - cycles(f64, "{%fd1}, {%fd2}", 64), 64 * fp64_interval, 1.0);
}

// A wgmma reads B, and A unless it is in registers, from shared memory at the banks' 128 bytes
// per clock (the rule tcgen05.mma's reads follow): m64n32k16 with both there reads (64 + 32) rows
// x 32 bytes = 24 clocks, more than its 2 x 64 x 32 x 16 FLOPs take (17.3 clocks at H100's rate
// and tensor clock), so it takes 24 per MMA; with A in registers it reads 8 and takes its FLOPs'
// time. At N = 256 the FLOPs (138.5) outlast the reads (80) either way.
TEST(Timing, WgmmaOperandReadsBoundNarrowSharedMemoryMmas) {
  GpuSpec spec = load_gpu_config("h100").spec;
  auto run = [](const std::string& mnemonic, int k) {
    std::string t = test::kernel_header("k", 1, 128) + ".cta 0 0 0\n";
    for (int w = 0; w < 4; ++w) {
      t += ".warp " + std::to_string(w) + "\n";
      for (int i = 0; i < k; ++i) t += mnemonic + " {%f" + std::to_string(i % 8) + "}, %rd1, %rd2\n";
      t += "exit\n";
    }
    return test::simulate_text("h100", t);
  };
  auto per_mma = [&](const std::string& mnemonic) {
    auto a = run(mnemonic, 32), b = run(mnemonic, 64);
    return std::pair{double(b.kernels.at(0).cycles - a.kernels.at(0).cycles) / 32,
                     b.sum("gpu.sm[*].tensor.smem_bound_cycles") - a.sum("gpu.sm[*].tensor.smem_bound_cycles")};
  };
  const double clock = spec.clocks.boost_mhz / spec.clocks.tensor_peak_mhz;
  const double per_sub = spec.tensor.flops_per_clk_per_sm[static_cast<int>(TensorPrecision::kFp16)] / 4.0;
  const double compute32 = 2.0 * 16 * 32 * 16 / per_sub * clock, compute256 = 2.0 * 16 * 256 * 16 / per_sub * clock;
  ASSERT_NEAR(compute32, 17.3, 0.1);
  auto [ss, ss_bound] = per_mma("wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16");
  EXPECT_NEAR(ss, 24.0, 0.05);
  EXPECT_EQ(ss_bound, 32u * 4 * (24 - 17));  // each warp's MMA: 24 clocks where its FLOPs' whole clocks were 17
  auto [rs, rs_bound] = per_mma("wgmma.mma_async.sync.aligned.a_regs.m64n32k16.f32.f16.f16");
  EXPECT_NEAR(rs, compute32, 0.05);
  EXPECT_EQ(rs_bound, 0u);
  EXPECT_NEAR(per_mma("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16").first, compute256, 0.05);
  // FP8 at N = 32: K = 32 is 32 bytes a row too, the FLOPs twice as fast: (64 + 32) x 32 / 128 = 24.
  EXPECT_NEAR(per_mma("wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3").first, 24.0, 0.05);
}

TEST(Timing, MissingTensorPrecisionIsAClearError) {
  std::string t = one_warp("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f0,%f1,%f2,%f3}\n");
  try {
    simulate_text("v100", t);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":9:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("uses bf16 tensor cores, which v100 does not have"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(simulate_text("a100", t));
}

// A 2:4 sparse MMA performs half its shape's products at the dense rate: m16n8k32 sparse takes the
// pipe as long as m16n8k16 dense, and counts m n k FLOPs. Volta has no sparse tensor cores.
TEST(Timing, SparseMmaTakesTheTimeOfHalfItsShape) {
  auto trace = [](const std::string& mnemonic, const std::string& tail, int k) {
    std::ostringstream b;
    for (int i = 0; i < k; ++i) {
      const int acc = 4 * (i % 16);  // independent accumulators: no dependency stalls
      b << mnemonic << " {%f" << acc << ",%f" << acc + 1 << ",%f" << acc + 2 << ",%f" << acc + 3 << "}, {%r1,%r2,%r3,%r4}, {%r5,%r6,%r7,%r8}, {%f"
        << acc << ",%f" << acc + 1 << ",%f" << acc + 2 << ",%f" << acc + 3 << "}" << tail << "\n";
    }
    return one_warp(b.str() + "exit\n");
  };
  const std::string sparse = "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", meta = ", %r9, 0";
  const std::string dense = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
  for (const std::string arch : {"a100", "h100", "b200"}) {
    auto s64 = test::simulate_text(arch, trace(sparse, meta, 64)), s128 = test::simulate_text(arch, trace(sparse, meta, 128));
    auto d64 = test::simulate_text(arch, trace(dense, "", 64)), d128 = test::simulate_text(arch, trace(dense, "", 128));
    EXPECT_EQ(s128.sum("gpu.sm[*].tensor.flops") - s64.sum("gpu.sm[*].tensor.flops"), 64ull * 16 * 8 * 32) << arch;
    EXPECT_EQ(s128.sum("gpu.sm[*].tensor.flops") - s64.sum("gpu.sm[*].tensor.flops"),
              d128.sum("gpu.sm[*].tensor.flops") - d64.sum("gpu.sm[*].tensor.flops")) << arch;
    GpuSpec spec = load_gpu_config(arch).spec;
    const double per_scheduler = spec.tensor.flops_per_clk_per_sm[static_cast<int>(TensorPrecision::kFp16)] / 4.0 * spec.tensor.warp_mma_fraction;
    const double interval = 16.0 * 8 * 32 / per_scheduler * spec.clocks.boost_mhz / spec.tensor_clock_mhz(TensorPrecision::kFp16);
    EXPECT_NEAR(double(s128.kernels.at(0).cycles - s64.kernels.at(0).cycles), 64 * interval, 1.0) << arch;
    EXPECT_EQ(s128.kernels.at(0).cycles - s64.kernels.at(0).cycles, d128.kernels.at(0).cycles - d64.kernels.at(0).cycles) << arch;
  }
  try {
    test::simulate_text("v100", trace("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", meta, 1));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("structured-sparse MMA, which v100's tensor cores do not run"), std::string::npos) << e.what();
  }
}

TEST(Timing, MmaShapeTheGenerationLacksIsAClearError) {
  // m16n8k16 arrived with Ampere (sm_80); Volta only has m8n8k4 and the wmma shapes.
  std::string t = one_warp("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f0,%f1,%f2,%f3}\n");
  try {
    simulate_text("v100", t);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("shape m16n8k16 is not one v100's tensor cores execute"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(simulate_text("v100", one_warp("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f0}, {%r1}, {%r2}, {%f0}\n")));
  EXPECT_NO_THROW(simulate_text("h100", one_warp("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%f0}, %rd1, %rd2\n")));
}

// Blackwell: FP4 through the unscaled kind::f8f6f4 takes as long per MMA as FP8 with the same K
// (the FP8 datapath); the block-scaled kind::mxf4nvf4 does twice the K in that time. A
// tcgen05.cp in front of the MMAs adds its bytes at the banks' rate; mma.sync with FP4 is
// refused on B200 (sm_120's).
TEST(Timing, Tcgen05KindsAndCopies) {
  GpuSpec spec = load_gpu_config("b200").spec;
  auto run = [&](const std::string& body, int mmas) {
    std::string b = "00000001 mbarrier.init.shared::cta.b64 %r1; mbar=0x0 count=1\n" + body;
    for (int i = 0; i < mmas; ++i) b += "00000001 tcgen05.mma.cta_group::1.kind::f8f6f4.m128n256k32.f32.e4m3.e4m3 {}, %r2, %rd1, %rd2, %r3, %p1\n";
    b += "00000001 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 %r1; mbar=0x0 arrive=1\n"
         "mbarrier.try_wait.parity.shared::cta.b64 %p2, %r1, %r4; mbar=0x0 phase=0\nexit\n";
    return cycles_of("b200", one_warp(b));
  };
  auto with = [](const std::string& mnemonic, int n) {
    return repeat("00000001 tcgen05.mma.cta_group::1." + mnemonic + " {}, %r2, %rd1, %rd2, %r3, %p1", n);
  };
  const double fp8_rate = spec.tensor.flops_per_clk_per_sm[static_cast<int>(TensorPrecision::kFp8)];
  const double per_mma = 2.0 * 128 * 256 * 32 / fp8_rate * spec.clocks.boost_mhz / spec.tensor_clock_mhz(TensorPrecision::kFp8);
  // Differences of 64 MMAs cancel the start and the last MMA's latency; each whole-SM MMA's
  // interval is rounded to a cycle (at most half a cycle each).
  const double tolerance = 64 * 0.5 + 1;
  const uint64_t base = run("", 64);
  EXPECT_NEAR(double(run("", 128) - base), 64 * per_mma, tolerance);
  EXPECT_NEAR(double(run(with("kind::f8f6f4.m128n256k32.f32.e2m1.e2m1", 64), 64) - base), 64 * per_mma, tolerance);
  EXPECT_NEAR(double(run(with("kind::mxf4nvf4.block_scale.scale_vec::4X.m128n256k64.f32.e2m1.e2m1", 64), 64) - base),
              64 * per_mma * spec.tensor_clock_mhz(TensorPrecision::kFp8) / spec.tensor_clock_mhz(TensorPrecision::kFp4), tolerance);
  // 16 copies of 128 x 256 bits (4 KiB each) at 32 banks x 4 bytes per clock: 512 cycles.
  EXPECT_NEAR(double(run(repeat("00000001 tcgen05.cp.cta_group::1.128x256b [%r5], %rd3", 16), 1) - run("", 1)), 16 * 4096 / 128.0, 2.0);
  try {
    simulate_text("b200", one_warp("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2,%r3,%r4}, "
                                   "{%r5,%r6}, {%f0,%f1,%f2,%f3}\n"));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("needs compute capability 12.0"), std::string::npos) << e.what();
  }
}

TEST(Timing, BarrierHoldsTheEarlyWarp) {
  std::string t = test::kernel_header("k", 1, 64) + ".cta 0 0 0\n.warp 0\n" + repeat("fma.rn.f32 %f1, %f1, %f2, %f3", 100) +
                  "bar.sync 0\nexit\n.warp 1\nbar.sync 0\nexit\n";
  auto s = simulate_text("a100", t);
  uint64_t barrier = s.sum("gpu.sm[*].warp_state.barrier");
  EXPECT_GE(barrier, 396u);  // warp 1 waits while warp 0 runs 100 FMAs of 4 cycles
  EXPECT_LE(barrier, 402u);
}

TEST(Timing, ExitedWarpsCountAsArrivedAtTheBarrier) {
  std::string t = test::kernel_header("k", 1, 64) + ".cta 0 0 0\n.warp 0\nexit\n.warp 1\nbar.sync 0\nadd.f32 %f1, %f1, %f1\nexit\n";
  EXPECT_NO_THROW(simulate_text("a100", t));
}

// Named barriers (PTX bar with an id and a thread count) hold only the warps of their phase.
// Warp 1 waits at barrier 1 while warp 0 runs 100 FMAs of 4 cycles (about 400 cycles), as in
// BarrierHoldsTheEarlyWarp; warp 2 is the only warp of barrier 2's phase, which its own arrival
// completes. Were barriers CTA-wide, warp 2 would wait about 400 cycles too.
TEST(Timing, NamedBarrierHoldsOnlyTheWarpsOfItsPhase) {
  const std::string warps = ".cta 0 0 0\n.warp 0\n" + repeat("fma.rn.f32 %f1, %f1, %f2, %f3", 100) + "bar.sync 1, 64\nexit\n" +
                            ".warp 1\nbar.sync %r1, %r2 ; bar=1 threads=64\nexit\n.warp 2\nbar.sync 2, 32\nexit\n";
  auto s = simulate_text("a100", test::kernel_header("k", 1, 96) + warps);
  const uint64_t barrier = s.sum("gpu.sm[*].warp_state.barrier");
  EXPECT_GE(barrier, 396u);
  EXPECT_LE(barrier, 404u);
  EXPECT_EQ(s.sum("gpu.sm[*].barriers"), 3u);
}

// bar.arrive counts towards the phase without waiting: warp 0 arrives and exits at once, warp 1
// waits for warp 2's 100 FMAs (about 400 cycles), and nothing waits for warp 0.
TEST(Timing, BarArriveDoesNotWait) {
  const std::string arrive = ".cta 0 0 0\n.warp 0\nbar.arrive 1, 96\nexit\n.warp 1\nbar.sync 1, 96\nexit\n.warp 2\n" +
                             repeat("fma.rn.f32 %f1, %f1, %f2, %f3", 100) + "bar.sync 1, 96\nexit\n";
  auto a = simulate_text("a100", test::kernel_header("k", 1, 96) + arrive);
  EXPECT_GE(a.sum("gpu.sm[*].warp_state.barrier"), 396u);
  EXPECT_LE(a.sum("gpu.sm[*].warp_state.barrier"), 404u);
  // The same with warp 0 waiting (bar.sync): it then waits as long as warp 1.
  std::string sync = arrive;
  sync.replace(sync.find("bar.arrive"), 10, "bar.sync");
  auto b = simulate_text("a100", test::kernel_header("k", 1, 96) + sync);
  EXPECT_GE(b.sum("gpu.sm[*].warp_state.barrier"), 792u);
  EXPECT_LE(b.sum("gpu.sm[*].warp_state.barrier"), 808u);
}

TEST(Timing, BarrierAnnotationsAreChecked) {
  const std::string head = test::kernel_header("k", 1, 64) + ".cta 0 0 0\n.warp 0\n";
  for (const auto& [line, message] : std::vector<std::pair<std::string, std::string>>{
           {"bar.sync 16", "barrier 16: a CTA's barriers are 0 to 15"},
           {"bar.sync 1, 48", "barrier thread count 48"},
           {"bar.sync %r1 ; bar=3 threads=40", "threads= is the barrier's thread count"},
           {"bar.arrive %r1, %r2 ; bar=3", "needs '; threads=N'"},
           {"add.f32 %f1, %f1, %f1 ; bar=1", "which is not a CTA barrier"}}) {
    try {
      simulate_text("a100", head + line + "\nexit\n");
      ADD_FAILURE() << line;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("t.trace:9:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(Timing, WarpStateCyclesAddUpToResidentWarpCycles) {
  for (const char* f : {"traces/examples/shared_reduction.trace", "traces/examples/divergence.trace"}) {
    auto s = test::simulate_file("h100", test::source_path(f));
    for (size_t k = 0; k < s.runs.size(); ++k) {
      uint64_t states = 0;
      for (int r = 0; r < kNumStallReasons; ++r)
        states += s.sum("gpu.sm[*].warp_state." + std::string(stall_reason_name(static_cast<StallReason>(r))), k);
      EXPECT_EQ(states, s.sum("gpu.sm[*].warps_active_cycles", k)) << f << " kernel " << k;
      EXPECT_EQ(s.sum("gpu.sm[*].warp_state.selected", k), s.sum("gpu.sm[*].inst_executed", k));
    }
  }
}

// The CTA scheduler hands out one CTA every cta_scheduler.dispatch_cycles GPU-wide: a grid of n
// CTAs that only exit ends (n - 1) x that later than one CTA (the last starts then, and each
// runs the same), whether they share SMs or not; without it the first wave starts at once.
TEST(Timing, TheCtaSchedulerHandsOutOneCtaPerDispatchInterval) {
  auto grid = [](unsigned n) {
    std::string t = test::kernel_header("k", n, 32);
    for (unsigned c = 0; c < n; ++c) t += ".cta " + std::to_string(c) + " 0 0\n.warp 0\nexit\n";
    return t;
  };
  for (const char* arch : {"a100", "h100"}) {
    for (const double d : {3.0, 2.5, 1.26}) {
      const std::string set = "cta_scheduler.dispatch_cycles=" + std::to_string(d);
      const uint64_t one = test::simulate_text(arch, grid(1), {set}).kernels.at(0).cycles;
      for (const unsigned n : {8u, 200u, 400u}) {  // fewer than the SMs, about as many, more
        const uint64_t all = test::simulate_text(arch, grid(n), {set}).kernels.at(0).cycles;
        EXPECT_EQ(all - one, static_cast<uint64_t>(std::ceil((n - 1) * d))) << arch << " " << n << " CTAs, " << d;
      }
    }
    const uint64_t one = test::simulate_text(arch, grid(1), {"cta_scheduler.dispatch_cycles=0"}).kernels.at(0).cycles;
    EXPECT_EQ(test::simulate_text(arch, grid(100), {"cta_scheduler.dispatch_cycles=0"}).kernels.at(0).cycles, one) << arch;
  }
}

}  // namespace
}  // namespace warpsim
