// Blackwell's tcgen05 MMAs: in the timing model (one thread's MMA occupying all the SM's tensor
// cores at the configured rate, its commit arriving on the mbarrier when it is done), and in the
// PTX emulator (the shipped GEMM replayed from its trace; descriptors and shapes it refuses).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <regex>
#include <utility>

#include "common/error.h"
#include "frontend/ptx/launch.h"
#include "gpu/simulation.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

// One thread: init an mbarrier, `mmas` m128n256k16 MMAs, commit, wait for the phase, then an
// instruction guarded by the wait.
std::string mma_trace(int mmas, const std::string& mma = "tcgen05.mma.cta_group::1.kind::f16.m128n256k16.f32.f16.f16") {
  std::string t = test::kernel_header("tc", 1, 32, 1024) + ".cta 0 0 0\n.warp 0\n"
                  "00000001 mbarrier.init.shared::cta.b64 [%r1], 1; mbar=0x100 count=1\n";
  for (int i = 0; i < mmas; ++i) t += "00000001 " + mma + " [%r3], %rd1, %rd2, %r4, %p1\n";
  return t + "00000001 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r1]; mbar=0x100 arrive=1\n"
             "00000001 mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r1], %r5; mbar=0x100 phase=0\n"
             "00000001 @%p2 add.s32 %r6, %r6, 1\nexit\n";
}

TEST(Tcgen05Timing, AnMmaRunsAtTheSmsFullRateAndTheCommitWaitsForIt) {
  auto one = test::simulate_text("b200", mma_trace(1));
  auto two = test::simulate_text("b200", mma_trace(2));
  const GpuSpec& spec = one.config.spec;
  // 2 x 128 x 256 x 16 FLOPs at the SM's whole FP16 rate, in boost-clock cycles at the clock the
  // tensor peaks assume.
  const double flops = 2.0 * 128 * 256 * 16;
  const double interval = flops / spec.tensor.flops_per_clk_per_sm[static_cast<int>(TensorPrecision::kFp16)] * spec.clocks.boost_mhz /
                          spec.clocks.tensor_peak_mhz;
  EXPECT_GE(double(one.kernels.at(0).cycles), interval + spec.tensor.latency);
  EXPECT_LT(double(one.kernels.at(0).cycles), interval + spec.tensor.latency + 60);
  // A second MMA waits for the tensor cores, and the commit for both.
  EXPECT_NEAR(double(two.kernels.at(0).cycles - one.kernels.at(0).cycles), interval, 2.0);
  EXPECT_EQ(two.sum("gpu.sm[*].tensor.flops"), uint64_t(2 * flops));
}

// A pair MMA (cta_group::2, M = 256 over two SMs): the issuing SM computes its 128 rows, so it
// takes as long as a one-CTA M = 128 MMA, and the FLOPs counted are the whole 256-row product's.
TEST(Tcgen05Timing, APairMmaTakesItsHalfOnTheIssuingSm) {
  const std::string pair = "tcgen05.mma.cta_group::2.kind::f16.m256n256k16.f32.f16.f16";
  auto one = test::simulate_text("b200", mma_trace(1)), two = test::simulate_text("b200", mma_trace(2));
  auto pair_one = test::simulate_text("b200", mma_trace(1, pair)), pair_two = test::simulate_text("b200", mma_trace(2, pair));
  EXPECT_EQ(pair_two.kernels.at(0).cycles - pair_one.kernels.at(0).cycles, two.kernels.at(0).cycles - one.kernels.at(0).cycles);
  EXPECT_EQ(pair_two.sum("gpu.sm[*].tensor.flops"), 2 * two.sum("gpu.sm[*].tensor.flops"));
  try {
    test::simulate_text("b200", mma_trace(1, "tcgen05.mma.cta_group::1.kind::f16.m256n256k16.f32.f16.f16"));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(".cta_group::1 has M = 64 or 128, not 256"), std::string::npos) << e.what();
  }
}

// The MMA reads 32 bytes of shared memory per row of A and of B at the banks' 128 bytes per
// clock: an f16 m128n64k16 MMA with both there reads (128 + 64) x 32 bytes in 48 clocks, longer
// than its FLOPs take (2 x 128 x 64 x 16 / 8192 per clock, x 1980 / 1856 for the tensor clock:
// 34.1); with A in tensor memory it reads 64 rows in 16 and runs at its FLOPs' rate. A pair's SM
// reads half of each: (256 + 64) / 2 rows, 40 clocks. N = 256 stays FLOP-bound (96 against 136.6).
// In a cluster, a pair MMA holds the peer CTA's SM's tensor cores too (its half of the rows is
// computed there), and waits for them when the peer SM is busy with an MMA of its own.
TEST(Tcgen05Timing, APairMmaHoldsThePeerSmsTensorCoresToo) {
  const std::string pair = "tcgen05.mma.cta_group::2.kind::f16.m256n256k16.f32.f16.f16 [%r3], %rd1, %rd2, %r4, %p1\n";
  // CTA 0 issues `mmas` pair MMAs and CTA 1 `peer_mmas` (each holding both SMs); then each
  // commits and waits.
  auto trace = [&](int mmas, int peer_mmas) {
    std::string t = test::kernel_header("tc", 2, 32, 1024) + ".cluster 2 1 1\n";
    for (int cta = 0; cta < 2; ++cta) {
      t += ".cta " + std::to_string(cta) + " 0 0\n.warp 0\n00000001 mbarrier.init.shared::cta.b64 [%r1], 1; mbar=0x100 count=1\n";
      for (int i = 0; i < (cta == 0 ? mmas : peer_mmas); ++i) t += "00000001 " + pair;
      t += "00000001 tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%r1]; mbar=0x100 arrive=1\n"
           "00000001 mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r1], %r5; mbar=0x100 phase=0\nexit\n";
    }
    return t;
  };
  auto alone = test::simulate_text("b200", mma_trace(1, "tcgen05.mma.cta_group::2.kind::f16.m256n256k16.f32.f16.f16"));
  auto paired = test::simulate_text("b200", trace(1, 0));
  // The same interval on each of the two SMs: twice the busy cycles of a pair MMA with no peer.
  EXPECT_EQ(paired.sum("gpu.sm[*].tensor.busy_cycles"), 2 * alone.sum("gpu.sm[*].tensor.busy_cycles"));
  EXPECT_EQ(paired.sum("gpu.sm[*].tensor.flops"), alone.sum("gpu.sm[*].tensor.flops"));
  // With both SMs busy with two pair MMAs of CTA 1's, CTA 0's starts after them: the kernel takes
  // three intervals, where two pair MMAs from CTA 0 alone take two.
  const uint64_t interval = alone.sum("gpu.sm[*].tensor.busy_cycles") / alone.config.spec.topology.sub_partitions_per_sm;
  auto contended = test::simulate_text("b200", trace(1, 2));
  auto two = test::simulate_text("b200", trace(2, 0));
  EXPECT_NEAR(double(contended.kernels.at(0).cycles) - double(two.kernels.at(0).cycles), double(interval), 3.0);
}

TEST(Tcgen05Timing, SharedMemoryOperandReadsBoundNarrowMmas) {
  auto per_mma = [](const std::string& mma) {
    auto one = test::simulate_text("b200", mma_trace(1, mma)), three = test::simulate_text("b200", mma_trace(3, mma));
    return std::pair{double(three.kernels.at(0).cycles - one.kernels.at(0).cycles) / 2, three.sum("gpu.sm[*].tensor.smem_bound_cycles")};
  };
  const double compute64 = 2.0 * 128 * 64 * 16 / 8192 * 1980 / 1856;
  auto [ss, ss_bound] = per_mma("tcgen05.mma.cta_group::1.kind::f16.m128n64k16.f32.f16.f16");
  EXPECT_NEAR(ss, 48.0, 1.0);
  EXPECT_EQ(ss_bound, 3 * 4 * (48 - static_cast<uint64_t>(std::llround(compute64))));  // per sub-partition
  auto [ts, ts_bound] = per_mma("tcgen05.mma.cta_group::1.kind::f16.a_tmem.m128n64k16.f32.f16.f16");
  EXPECT_NEAR(ts, compute64, 1.0);
  EXPECT_EQ(ts_bound, 0u);
  EXPECT_NEAR(per_mma("tcgen05.mma.cta_group::2.kind::f16.m256n64k16.f32.f16.f16").first, 40.0, 1.0);
  EXPECT_NEAR(per_mma("tcgen05.mma.cta_group::1.kind::f16.m128n256k16.f32.f16.f16").first, 4 * compute64, 1.0);
  // 2:4 sparse, K = 32: A's rows hold 16 values (32 bytes), B's 32 (64 bytes): (128 x 32 + 64 x
  // 64) / 128 = 64 clocks, against the 34 its performed half of the products take.
  EXPECT_NEAR(per_mma("tcgen05.mma.cta_group::1.kind::f16.sp.m128n64k32.f32.f16.f16").first, 64.0, 1.0);
}

TEST(Tcgen05Timing, OlderGpusAndShapelessTracesAreRefused) {
  auto error_of = [](const std::string& arch, const std::string& text) {
    try {
      test::simulate_text(arch, text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("h100", mma_trace(1)).find("needs compute capability 10.0 or later (tcgen05 is Blackwell's); h100 has 9.0"),
            std::string::npos);
  std::string shapeless = mma_trace(1);
  shapeless.replace(shapeless.find(".m128n256k16.f32.f16.f16"), 24, "");
  EXPECT_NE(error_of("b200", shapeless).find("needs warpsim's shape and type suffixes"), std::string::npos);
}

TEST(Tcgen05Ptx, ShippedGemmReplaysFromItsTrace) {
  test::TempDir dir;
  const std::string launch = test::source_path("traces/kernels/tcgen05_gemm.launch.yaml");
  const auto r = test::run_and_replay("b200", launch, dir);
  EXPECT_NE(r.trace.find("tcgen05.mma.cta_group::1.kind::f16.m128n128k16.f32.f16.f16"), std::string::npos);
  EXPECT_NE(r.trace.find("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"), std::string::npos);
  EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
}

// The shipped GEMM's PTX with its MMAs that read A and B from shared memory as kind::f16 given
// `kind` and the instruction descriptor `idesc` as an immediate (the kernel computes its own).
std::string with_descriptor(const std::string& ptx, const std::string& kind, uint32_t idesc) {
  static const std::regex mma(R"((tcgen05\.mma\.cta_group::1\.kind::)f16( \[%r\d+\], %rd\d+, %rd\d+,) %r\d+(, p;))");
  EXPECT_TRUE(std::regex_search(ptx, mma)) << "the kernel's shared-memory MMA is not where the test looks for it";
  return std::regex_replace(ptx, mma, "$1" + kind + "$2 " + std::to_string(idesc) + "$3");  // "$2 ": not "$21..."
}

TEST(Tcgen05Ptx, UnmodelledDescriptorsAreFaultsNamingTheField) {
  test::TempDir dir;
  std::string ptx = test::read_file(test::source_path("traces/kernels/ptx/tcgen05_gemm.sm_100a.ptx"));
  std::string launch = test::read_file(test::source_path("traces/kernels/tcgen05_gemm.launch.yaml"));
  launch = launch.substr(0, launch.find("dump:"));
  launch.replace(launch.find("ptx/tcgen05_gemm.sm_100a.ptx"), 28, "k.ptx");
  auto run_with = [&](uint32_t descriptor) {
    dir.write("k.ptx", with_descriptor(ptx, "f16", descriptor));
    return test::run_cli({"run", "--arch", "b200", dir.write("k.launch.yaml", launch), "-q"});
  };
  // FP4 (E2M1, format 5) under kind::f16 is no f16 format; N = 120 is no shape for M = 128.
  auto r = run_with((1u << 4) | (5u << 7) | (5u << 10) | ((128u >> 3) << 17) | ((128u >> 4) << 24));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("A/B formats 5/5 are not formats of this kind"), std::string::npos) << r.err;
  r = run_with((1u << 4) | ((120u >> 3) << 17) | ((128u >> 4) << 24));
  EXPECT_NE(r.err.find("M = 128, N = 120; one CTA's MMA has M = 64 (N a multiple of 8) or 128 (of 16), N up to 256"), std::string::npos) << r.err;
  r = run_with((0u << 4) | ((128u >> 3) << 17) | ((128u >> 4) << 24));
  EXPECT_NE(r.err.find("only f32 accumulators (D format 1) are modelled"), std::string::npos) << r.err;
}

// FP4 and FP6 through kind::f8f6f4: the shipped GEMM's PTX with its kind and instruction
// descriptor changed, fed random bits. The kernel stages each row's bytes into 128-byte-swizzled
// shared memory unchanged, so in every 16-byte chunk of a row the MMA must read 16 elements
// packed from the chunk's lowest bit, the rest padding (the PTX ISA's .b4x16_p64 / .b6x16_p32).
// The reference below decodes the same bytes straight from the global buffers.
double minifloat(uint32_t v, int e_bits, int m_bits) {  // OCP MX: subnormals at exponent 0, no inf/NaN
  const int bias = (1 << (e_bits - 1)) - 1, e = (v >> m_bits) & ((1 << e_bits) - 1), m = v & ((1 << m_bits) - 1);
  const double mag = e == 0 ? std::ldexp(m, 1 - bias - m_bits) : std::ldexp((1 << m_bits) + m, e - bias - m_bits);
  return (v >> (e_bits + m_bits)) & 1 ? -mag : mag;
}

// The shipped GEMM (its four 128 x 128 tiles of 256 x 256, K = 256 bytes a row) with its
// shared-memory MMAs made `kind` with instruction descriptor `idesc`, run on random bytes
// (seeds `seed` and `seed` + 1) into C of `c_elem`: returns A, B^T and C as bytes.
struct GemmBytes {
  std::vector<uint8_t> a, bt, c;
};
GemmBytes gemm_on_random_bytes(const std::string& kind, uint32_t idesc, int seed, const char* c_elem) {
  test::TempDir dir;
  dir.write("k.ptx", with_descriptor(test::read_file(test::source_path("traces/kernels/ptx/tcgen05_gemm.sm_100a.ptx")), kind, idesc));
  const std::string launch = dir.write(
      "k.launch.yaml",
      "ptx: k.ptx\nkernel: tcgen05_gemm\ngrid: [2, 2, 1]\nblock: [128, 1, 1]\nargs:\n"
      "  - {buffer: {name: a, elem: u16, count: 32768, init: {random: {seed: " + std::to_string(seed) + ", min: 0, max: 65535}}}}\n"
      "  - {buffer: {name: bt, elem: u16, count: 32768, init: {random: {seed: " + std::to_string(seed + 1) + ", min: 0, max: 65535}}}}\n"
      "  - {buffer: {name: c, elem: " + c_elem + ", count: 65536}}\n"
      "  - {scalar: s32, value: 256}\n  - {scalar: s32, value: 128}\n  - {scalar: s32, value: 0}\n  - {scalar: s32, value: 0}\n"
      "  - {scalar: s32, value: 0}\n");
  ptx::PtxWorkload w(launch, 100);
  const LoadedConfig config = load_gpu_config("b200");  // the Gpu keeps a reference to the spec
  Gpu gpu(config.spec);
  simulate(gpu, w);
  auto bytes = [&](const char* name) { return w.memory().find(name)->bytes; };
  return GemmBytes{bytes("a"), bytes("bt"), bytes("c")};
}

TEST(Tcgen05Ptx, Fp4AndFp6OperandsUnpackFromTheirChunks) {
  struct Format {
    uint32_t code, bits;
    int e_bits, m_bits;
  };
  const Format e2m1{5, 4, 2, 1}, e3m2{4, 6, 3, 2}, e2m3{3, 6, 2, 3};
  EXPECT_EQ(minifloat(0x7, 2, 1), 6.0);    // E2M1's largest
  EXPECT_EQ(minifloat(0x1f, 3, 2), 28.0);  // E3M2's largest
  EXPECT_EQ(minifloat(0x1f, 2, 3), 7.5);   // E2M3's largest
  for (const auto& [fa, fb] : {std::pair{e2m1, e2m1}, std::pair{e3m2, e2m3}, std::pair{e2m1, e3m2}}) {
    const uint32_t d = (1u << 4) | (fa.code << 7) | (fb.code << 10) | ((128u >> 3) << 17) | ((128u >> 4) << 24);
    const auto [a, bt, c] = gemm_on_random_bytes("f8f6f4", d, 5, "f32");
    // Element e of a row: chunk e / 16 of the row's 256 bytes, bits (e % 16) * bits of it.
    auto element = [](const std::vector<uint8_t>& m, uint32_t row, uint32_t e, const Format& f) {
      const uint8_t* chunk = m.data() + row * 256 + (e / 16) * 16;
      const uint32_t at = (e % 16) * f.bits, two = chunk[at / 8] | (chunk[at / 8 + 1] << 8);
      return minifloat((two >> (at % 8)) & ((1u << f.bits) - 1), f.e_bits, f.m_bits);
    };
    std::vector<double> av(256 * 256), bv(256 * 256);  // decoded once: [row][k]
    for (uint32_t r = 0; r < 256; ++r)
      for (uint32_t e = 0; e < 256; ++e) av[r * 256 + e] = element(a, r, e, fa), bv[r * 256 + e] = element(bt, r, e, fb);
    int wrong = 0;
    for (uint32_t i = 0; i < 256; ++i)
      for (uint32_t j = 0; j < 256; ++j) {
        double sum = 0;
        for (uint32_t e = 0; e < 256; ++e) sum += av[i * 256 + e] * bv[j * 256 + e];
        float got;
        std::memcpy(&got, c.data() + 4 * (i * 256 + j), 4);
        // Float sums in k order against one double sum: equal but for the last bits.
        if (std::fabs(got - sum) > 1e-6 * std::fabs(sum) + 1e-9 && ++wrong < 4) ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got << ", expected " << sum;
      }
    EXPECT_EQ(wrong, 0) << "A format " << fa.code << ", B format " << fb.code;
  }
}

// INT8 through kind::i8: the shipped GEMM's PTX with its kind and instruction descriptor changed
// (D format 2, s32; A and B format 0 u8 or 1 s8), fed random bytes: each row's 256 bytes are 256
// elements, read 32 per MMA, and C holds the exact s32 sums, compared with a sum worked out here.
TEST(Tcgen05Ptx, Int8ProductsSumExactlyInS32) {
  for (const auto& [fa, fb] : {std::pair{1u, 1u}, std::pair{0u, 1u}, std::pair{0u, 0u}}) {
    const uint32_t d = (2u << 4) | (fa << 7) | (fb << 10) | ((128u >> 3) << 17) | ((128u >> 4) << 24);
    const auto [a, bt, c] = gemm_on_random_bytes("i8", d, 7, "s32");
    auto value = [](uint8_t byte, uint32_t format) { return format == 1 ? int64_t{static_cast<int8_t>(byte)} : int64_t{byte}; };
    int wrong = 0;
    for (uint32_t i = 0; i < 256; ++i)
      for (uint32_t j = 0; j < 256; ++j) {
        int64_t sum = 0;
        for (uint32_t e = 0; e < 256; ++e) sum += value(a[i * 256 + e], fa) * value(bt[j * 256 + e], fb);
        int32_t got;
        std::memcpy(&got, c.data() + 4 * (i * 256 + j), 4);
        if (got != sum && ++wrong < 4) ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got << ", expected " << sum;
      }
    EXPECT_EQ(wrong, 0) << "A format " << fa << ", B format " << fb;
  }
}

// The block-scaled kernel (MXFP8, MXFP4, NVFP4; its launch file checks C against a reference
// that applies each row's factor per block of K) replays from its trace: the copies and the
// MMAs' shapes and kinds reach the timing model.
TEST(Tcgen05Ptx, BlockScaledKernelReplaysFromItsTrace) {
  test::TempDir dir;
  const auto r = test::run_and_replay("b200", test::source_path("traces/kernels/tcgen05_block_scaled.launch.yaml"), dir);
  EXPECT_NE(r.trace.find("tcgen05.cp.cta_group::1.32x128b.warpx4"), std::string::npos);
  EXPECT_NE(r.trace.find("kind::mxf8f6f4.block_scale.scale_vec::1X.m128n128k32.f32.e4m3.e5m2"), std::string::npos);
  EXPECT_NE(r.trace.find("kind::mxf4nvf4.block_scale.scale_vec::4X.m128n128k64.f32.e2m1.e2m1"), std::string::npos);
  EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
}

// Descriptors and forms a block-scaled MMA may not take: the kernel's MMAs given an immediate
// instruction descriptor, or its text changed, each a located error naming what is wrong.
TEST(Tcgen05Ptx, BlockScaleMisuseIsAnErrorNamingTheField) {
  test::TempDir dir;
  const std::string ptx = test::read_file(test::source_path("traces/kernels/ptx/tcgen05_block_scaled.sm_100a.ptx"));
  std::string launch = test::read_file(test::source_path("traces/kernels/tcgen05_block_scaled.launch.yaml"));
  launch = launch.substr(0, launch.find("dump:"));
  launch.replace(launch.find("ptx/tcgen05_block_scaled.sm_100a.ptx"), 36, "k.ptx");
  auto run = [&](const std::string& text) {
    dir.write("k.ptx", text);
    return test::run_cli({"run", "--arch", "b200", dir.write("k.launch.yaml", launch), "-q"});
  };
  static const std::regex mma(R"((tcgen05\.mma\.cta_group::1\.kind::mxf8f6f4\.block_scale\.scale_vec::1X \[%r\d+\], %rd\d+, %rd\d+,) %r\d+(,))");
  ASSERT_TRUE(std::regex_search(ptx, mma));
  auto with_idesc = [&](uint32_t idesc) { return std::regex_replace(ptx, mma, "$1 " + std::to_string(idesc) + "$2"); };
  const uint32_t shape = ((128u >> 3) << 17) | ((128u >> 4) << 24);
  // UE4M3 factors (bit 23 clear) with 1X; K = 96 (bit 31).
  auto r = run(with_idesc(shape));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("UE4M3 scale factors (bit 23 clear) go with .scale_vec::4X only"), std::string::npos) << r.err;
  r = run(with_idesc(shape | (1u << 23) | (1u << 31)));
  EXPECT_NE(r.err.find("K = 96 (bit 31) is not modelled"), std::string::npos) << r.err;
  // An MXF4 format code under kind::mxf8f6f4 is E5M2 there: accepted; 2 is no format of the kind.
  r = run(with_idesc(shape | (1u << 23) | (2u << 7)));
  EXPECT_NE(r.err.find("A/B formats 2/0 are not formats of this kind"), std::string::npos) << r.err;
  // Refused when lowered, at the instruction's line.
  auto replace_all = [](std::string text, const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
    return text;
  };
  r = run(replace_all(ptx, "32x128b.warpx4", "4x256b"));
  EXPECT_NE(r.err.find("the 4x256b shape is not modelled"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("k.ptx:300:"), std::string::npos) << r.err;
  r = run(replace_all(ptx, "kind::mxf4.block_scale.scale_vec::2X", "kind::mxf4.block_scale.scale_vec::4X"));
  EXPECT_NE(r.err.find("this scale vector is not one of the kind's"), std::string::npos) << r.err;
  r = run(replace_all(ptx, "kind::mxf4nvf4.block_scale.scale_vec::4X", "kind::mxf4nvf4.block_scale"));
  EXPECT_NE(r.err.find("kind::mxf4nvf4 names its scale vector"), std::string::npos) << r.err;
  r = run(replace_all(ptx, "kind::mxf4.block_scale.scale_vec::2X", "kind::mxf4"));
  EXPECT_NE(r.err.find("take .block_scale"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
