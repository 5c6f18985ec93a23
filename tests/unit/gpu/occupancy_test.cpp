// Occupancy against hand computations with the CUDA occupancy calculator's rules.
#include "gpu/occupancy.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "config/load_config.h"

namespace warpsim {
namespace {

KernelInfo kernel_info(uint32_t threads, uint32_t regs, uint32_t shared) {
  KernelInfo k;
  k.name = "k";
  k.block = Dim3{threads, 1, 1};
  k.registers_per_thread = regs;
  k.shared_bytes = shared;
  return k;
}

TEST(Occupancy, WarpLimited) {
  // 256 threads = 8 warps; 64/8 = 8 CTAs. Registers: 32*32 = 1024 per warp, 64 warps fit.
  for (const char* arch : {"v100", "a100", "h100", "h200", "b200"}) {
    Occupancy o = compute_occupancy(load_gpu_config(arch).spec, kernel_info(256, 32, 0));
    EXPECT_EQ(o.ctas_per_sm, 8u) << arch;
    EXPECT_EQ(o.limiter, "warps") << arch;
    EXPECT_DOUBLE_EQ(o.theoretical_occupancy(), 1.0);
  }
}

TEST(Occupancy, SharedMemoryLimitedPerArchitecture) {
  // 48 KiB per CTA (+1 KiB reserved from CC 8.0, rounded to the allocation unit):
  // V100: 96 KiB / 48 KiB = 2; A100: 164 KiB / 49 KiB = 3; H100: 228 KiB / 49 KiB = 4.
  KernelInfo k = kernel_info(128, 32, 48 * 1024);
  Occupancy v = compute_occupancy(load_gpu_config("v100").spec, k);
  Occupancy a = compute_occupancy(load_gpu_config("a100").spec, k);
  Occupancy h = compute_occupancy(load_gpu_config("h100").spec, k);
  EXPECT_EQ(v.ctas_per_sm, 2u);
  EXPECT_EQ(a.ctas_per_sm, 3u);
  EXPECT_EQ(h.ctas_per_sm, 4u);
  EXPECT_EQ(a.limiter, "shared_mem");
  EXPECT_EQ(a.shared_per_cta, 49u * 1024);
  // The carve-out is the smallest that holds 3 x 49 KiB = 147 KiB: 164 KiB, leaving 28 KiB of L1.
  EXPECT_EQ(a.shared_carveout, 164u * 1024);
  EXPECT_EQ(a.l1_bytes, 28u * 1024);
}

TEST(Occupancy, RegisterLimited) {
  // 255 registers: 255*32 = 8160, rounded to 8192 per warp; 65536/8192 = 8 warps = 1 CTA of 256.
  Occupancy o = compute_occupancy(load_gpu_config("a100").spec, kernel_info(256, 255, 0));
  EXPECT_EQ(o.registers_per_warp, 8192u);
  EXPECT_EQ(o.ctas_per_sm, 1u);
  EXPECT_EQ(o.limiter, "registers");
  // 64 registers, 128 threads: 2048 per warp, 32 warps, 8 CTAs of 4 warps.
  EXPECT_EQ(compute_occupancy(load_gpu_config("a100").spec, kernel_info(128, 64, 0)).ctas_per_sm, 8u);
}

TEST(Occupancy, CtaCountLimited) {
  Occupancy o = compute_occupancy(load_gpu_config("h100").spec, kernel_info(32, 16, 0));
  EXPECT_EQ(o.ctas_per_sm, 32u);
  EXPECT_EQ(o.limiter, "blocks");
  EXPECT_DOUBLE_EQ(o.theoretical_occupancy(), 0.5);
}

TEST(Occupancy, ImpossibleKernelsAreInputErrors) {
  GpuSpec a100 = load_gpu_config("a100").spec;
  EXPECT_THROW(compute_occupancy(a100, kernel_info(2048, 32, 0)), InputError);
  EXPECT_THROW(compute_occupancy(a100, kernel_info(256, 300, 0)), InputError);
  EXPECT_THROW(compute_occupancy(a100, kernel_info(256, 32, 200 * 1024)), InputError);
  EXPECT_NO_THROW(compute_occupancy(load_gpu_config("h100").spec, kernel_info(256, 32, 200 * 1024)));
}

}  // namespace
}  // namespace warpsim
