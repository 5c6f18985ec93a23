// Atomics are performed at L2, one lane operation after another in each slice's atomic unit:
// atomics that all hit one address take (lane operations) / (ops per clock), spread ones do not.
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
// one shared address (`stride` 0) or to addresses `stride` bytes apart.
Result atomics(const GpuSpec& spec, uint32_t ctas, uint32_t count, int64_t stride) {
  static OpInfo atom;
  std::string error;
  decode_mnemonic("atom.global.add.u32", atom, error);
  GeneratedKernel k;
  k.info.name = "atomics";
  k.info.grid = Dim3{ctas, 1, 1};
  k.info.block = Dim3{256, 1, 1};
  k.info.registers_per_thread = 32;
  k.program = [=](uint32_t cta, uint32_t warp) -> WarpProgram {
    const uint64_t base = 0x1000000 + (stride ? (uint64_t{cta} * 8 + warp) * count * 32 * uint64_t(stride) : 0);
    return [=, regs = std::array<RegId, 3>{}](uint64_t i, WarpInst& in) mutable {
      if (i >= count) return false;
      regs = {static_cast<RegId>(2 + i % 8), 0, 1};  // destination, address, value: no dependences
      in.op = &atom, in.active_mask = 0xffffffffu, in.num_dst = 1, in.num_src = 2, in.regs = regs.data();
      in.addr = LaneAddresses{base + i * 32 * uint64_t(stride), stride, nullptr};
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

TEST(AtomicThroughput, OneAddressSerialisesAtItsSlice) {
  for (const char* arch : {"v100", "a100", "h100"}) {
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

}  // namespace
}  // namespace warpsim
