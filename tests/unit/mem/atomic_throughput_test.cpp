// Atomics are performed at L2, in the slice of the line's home partition, by its atomic unit: one
// update per 32-byte sector per clock, lanes to different words of a sector sharing it, lanes to
// the same word taking one each. Atomics that all hit one address take (lane operations) /
// (updates per clock) whichever partitions ask; a warp's lanes over one line's 32 words take 4.
#include <gtest/gtest.h>

#include <array>

#include "config/load_config.h"
#include "frontend/synthetic/generated_workload.h"
#include "gpu/simulation.h"
#include "isa/op_info.h"

namespace warpsim {
namespace {

struct Result {
  Cycle cycles;
  uint64_t ops;
};

// `ctas` CTAs of 8 warps; each warp issues `count` atom.global.add.u32 with all 32 lanes, to
// one shared address (`stride` 0) or to addresses `stride` bytes apart (each warp and each
// instruction its own span, unless `one_span`: every warp and instruction the same lanes).
Result atomics(const GpuSpec& spec, uint32_t ctas, uint32_t count, int64_t stride, bool one_span = false) {
  static OpInfo atom;
  std::string error;
  decode_mnemonic("atom.global.add.u32", atom, error);
  GeneratedKernel k;
  k.info.name = "atomics";
  k.info.grid = Dim3{ctas, 1, 1};
  k.info.block = Dim3{256, 1, 1};
  k.info.registers_per_thread = 32;
  k.program = [=](uint32_t cta, uint32_t warp) -> WarpProgram {
    const uint64_t base = 0x1000000 + (stride && !one_span ? (uint64_t{cta} * 8 + warp) * count * 32 * uint64_t(stride) : 0);
    return [=, regs = std::array<RegId, 3>{}](uint64_t i, WarpInst& in) mutable {
      if (i >= count) return false;
      regs = {static_cast<RegId>(2 + i % 8), 0, 1};  // destination, address, value: no dependences
      in.op = &atom, in.active_mask = 0xffffffffu, in.num_dst = 1, in.num_src = 2, in.regs = regs.data();
      in.addr = LaneAddresses{base + (one_span ? 0 : i * 32 * uint64_t(stride)), stride, nullptr};
      return true;
    };
  };
  std::vector<GeneratedKernel> kernels;
  kernels.push_back(std::move(k));
  Gpu gpu(spec);
  GeneratedWorkload w(std::move(kernels));
  auto runs = simulate(gpu, w).kernels;
  return {runs.at(0).cycles(), gpu.stats().sum("gpu.l2.atomic_ops", runs.at(0).stats)};
}

// h200's unit is calibrated to 0.69 updates per clock (configs/h200.yaml): a fractional rate.
TEST(AtomicThroughput, OneAddressSerialisesAtItsSlice) {
  for (const char* arch : {"v100", "a100", "h100", "h200"}) {
    SCOPED_TRACE(arch);
    GpuSpec spec = load_gpu_config(arch).spec;
    const uint32_t ctas = 4, count = 8;
    const uint64_t ops = uint64_t{ctas} * 8 * count * 32;
    Result same = atomics(spec, ctas, count, 0);
    EXPECT_EQ(same.ops, ops);  // one per active lane
    const double floor = double(ops) / spec.memory.l2.atomic_ops_per_clk_per_slice;
    EXPECT_GE(double(same.cycles), floor);
    EXPECT_LE(double(same.cycles), floor + 2000);  // plus one trip to L2 and back
    // The same number of operations on 128-byte-apart addresses spreads over every slice.
    Result spread = atomics(spec, ctas, count, 128);
    EXPECT_EQ(spread.ops, ops);
    EXPECT_LT(double(spread.cycles), 0.5 * double(same.cycles));
  }
}

// One CTA on every SM, so both L2 partitions of an A100 or H100 ask: the adds still meet at one
// atomic unit (the address's home partition), not one per partition.
TEST(AtomicThroughput, BothPartitionsQueueAtTheAddresssOneAtomicUnit) {
  for (const char* arch : {"a100", "h100"}) {
    SCOPED_TRACE(arch);
    GpuSpec spec = load_gpu_config(arch).spec;
    ASSERT_EQ(spec.memory.l2.partitions, 2u);
    const uint32_t ctas = spec.topology.sms, count = 2;
    const uint64_t ops = uint64_t{ctas} * 8 * count * 32;
    Result same = atomics(spec, ctas, count, 0);
    EXPECT_EQ(same.ops, ops);
    const double floor = double(ops) / spec.memory.l2.atomic_ops_per_clk_per_slice;
    EXPECT_GE(double(same.cycles), floor);
    EXPECT_LE(double(same.cycles), floor + 3000);
  }
}

// 32 lanes over one line's 32 consecutive words: 4 sectors, so 4 updates per warp instruction,
// every warp on the same line: an eighth of the one-address time for the same lane operations.
TEST(AtomicThroughput, DistinctWordsOfASectorShareAnUpdate) {
  GpuSpec spec = load_gpu_config("a100").spec;
  const uint32_t ctas = 4, count = 16;
  const uint64_t ops = uint64_t{ctas} * 8 * count * 32;
  Result words = atomics(spec, ctas, count, 4, true);
  EXPECT_EQ(words.ops, ops);
  const double floor = double(ops) / 8 / spec.memory.l2.atomic_ops_per_clk_per_slice;
  EXPECT_GE(double(words.cycles), floor);
  EXPECT_LE(double(words.cycles), floor + 2000);
  // The same lane operations on one address: 32 updates per instruction, eight times as many.
  Result same = atomics(spec, ctas, count, 0);
  EXPECT_GT(double(same.cycles), 6 * double(words.cycles));
}

}  // namespace
}  // namespace warpsim
