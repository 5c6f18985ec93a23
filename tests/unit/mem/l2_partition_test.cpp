// L2 partitions: a line another partition holds costs the far-partition latency on top of an L2
// hit; the copy then serves the new partition at near latency; lines evicted from one partition
// move to the other; a write drops the other partition's stale copy.
#include <gtest/gtest.h>

#include <array>

#include "config/load_config.h"
#include "frontend/synthetic/generated_workload.h"
#include "gpu/simulation.h"
#include "isa/op_info.h"

namespace warpsim {
namespace {

struct Step {
  uint32_t sm;           // the CTA index; CTA i runs on SM i (a grid of one CTA per SM)
  const char* mnemonic;  // ld.global.u64 or st.global.u64
  uint64_t lines;
};

// One kernel per step; in each, only the named CTA's warp accesses memory: one lane touching
// `lines` consecutive 128-byte lines from 0x1000000, each load waiting for the previous one.
// `written`, if given, receives each kernel's bytes written to DRAM.
std::vector<KernelRun> run_steps(const GpuSpec& spec, const std::vector<Step>& steps, std::vector<uint64_t>* written = nullptr) {
  static OpInfo load, store, add;
  std::string error;
  decode_mnemonic("ld.global.u64", load, error);
  decode_mnemonic("st.global.u64", store, error);
  decode_mnemonic("add.s32", add, error);
  std::vector<GeneratedKernel> kernels;
  for (const Step& s : steps) {
    GeneratedKernel k;
    k.info.name = "step";
    k.info.grid = Dim3{spec.topology.sms, 1, 1};
    k.info.block = Dim3{32, 1, 1};
    k.info.registers_per_thread = 32;
    const OpInfo* op = std::string(s.mnemonic) == "ld.global.u64" ? &load : &store;
    k.program = [=](uint32_t cta, uint32_t) -> WarpProgram {
      return [=, regs = std::array<RegId, 2>{}](uint64_t i, WarpInst& in) mutable {
        if (cta != s.sm) {  // one instruction, so that the CTA holds its SM during the first dispatch
          regs = {5, 5};
          in.op = &add, in.active_mask = 1, in.regs = regs.data(), in.num_dst = 1, in.num_src = 1;
          return i == 0;
        }
        if (i >= s.lines) return false;
        const bool is_load = op == &load;
        regs = {static_cast<RegId>((i + 1) % 2), static_cast<RegId>(i % 2)};
        in.op = op, in.active_mask = 1, in.regs = regs.data();
        in.num_dst = is_load ? 1 : 0, in.num_src = is_load ? 1 : 2;
        in.addr = LaneAddresses{0x1000000 + i * 128, 0, nullptr};
        return true;
      };
    };
    kernels.push_back(std::move(k));
  }
  Gpu gpu(spec);
  GeneratedWorkload w(std::move(kernels));
  auto runs = simulate(gpu, w).kernels;
  if (written)
    for (const auto& k : runs) written->push_back(gpu.stats().sum("gpu.dram.bytes_written", k.stats));
  return runs;
}

std::vector<Cycle> run_partitions(const GpuSpec& spec, const std::vector<Step>& steps) {
  std::vector<Cycle> cycles;
  for (const auto& k : run_steps(spec, steps)) cycles.push_back(k.cycles());
  return cycles;
}

TEST(L2Partitions, AFarCopyCostsTheFarLatencyOnceThenServesNear) {
  GpuSpec spec = load_gpu_config("a100").spec;
  ASSERT_EQ(spec.memory.l2.partitions, 2u);
  const uint32_t near_sm = 0, far_sm = spec.topology.sms - 1;  // SMs are split in index order
  // Per load: the second kernel's time with 128 lines minus with 64, over 64.
  auto per_load = [&](uint32_t reader) {
    auto a = run_partitions(spec, {{near_sm, "ld.global.u64", 128}, {reader, "ld.global.u64", 128}, {reader, "ld.global.u64", 128}});
    auto b = run_partitions(spec, {{near_sm, "ld.global.u64", 64}, {reader, "ld.global.u64", 64}, {reader, "ld.global.u64", 64}});
    return std::pair{double(a[1] - b[1]) / 64, double(a[2] - b[2]) / 64};
  };
  const auto [near_first, near_again] = per_load(near_sm);
  const auto [far_first, far_again] = per_load(far_sm);
  // The far-partition latency, plus one cycle for the sector to cross the far slice's port.
  EXPECT_DOUBLE_EQ(far_first - near_first, spec.memory.l2.far_partition_extra_latency + 1.0);
  EXPECT_DOUBLE_EQ(far_again, near_again);  // the copy now lives in the reader's partition
}

TEST(L2Partitions, AWriteDropsTheOtherPartitionsCopy) {
  GpuSpec spec = load_gpu_config("a100").spec;
  const uint32_t p0 = 0, p1 = spec.topology.sms - 1;
  // p1 reads (copy in p1), p0 writes (p1's copy is dropped), p1 reads again: far, not near.
  auto with = [&](uint64_t lines) {
    return run_partitions(spec, {{p0, "ld.global.u64", lines}, {p1, "ld.global.u64", lines}, {p0, "st.global.u64", lines}, {p1, "ld.global.u64", lines}});
  };
  auto a = with(128), b = with(64);
  const double after_write = double(a[3] - b[3]) / 64, first_far = double(a[1] - b[1]) / 64;
  EXPECT_DOUBLE_EQ(after_write, first_far);
}

// Conservation of stored bytes in the write-back L2: every sector a kernel makes dirty is either
// written to DRAM during it or still dirty in L2 at its end (what sampled runs' write estimate
// rests on). 6000 one-sector stores to distinct lines into an L2 of 256 KiB (2048 lines), so
// most are written back and some stay, with one partition and with two.
TEST(L2Partitions, EveryStoredSectorIsWrittenBackOrStillDirty) {
  for (const char* gpu : {"v100", "a100"}) {
    SCOPED_TRACE(gpu);
    GpuSpec spec = load_gpu_config(gpu).spec;
    spec.memory.l2.size_bytes = 256 * 1024;
    std::vector<uint64_t> bytes_written;
    const auto runs = run_steps(spec, {{0, "st.global.u64", 6000}}, &bytes_written);
    ASSERT_EQ(runs.size(), 1u);
    const KernelRun& k = runs[0];
    const uint64_t written = bytes_written[0];
    EXPECT_EQ(k.l2_dirty_bytes_start, 0u);
    EXPECT_GT(written, 0u);
    EXPECT_GT(k.l2_dirty_bytes_end, 0u);
    EXPECT_LE(k.l2_dirty_bytes_end, spec.memory.l2.size_bytes / 128 * 32);  // one dirty sector per line at most
    EXPECT_EQ(written + k.l2_dirty_bytes_end, 6000u * 32);
  }
}

TEST(L2Partitions, OnePartitionHasNoFarPath) {
  GpuSpec spec = load_gpu_config("v100").spec;
  ASSERT_EQ(spec.memory.l2.partitions, 1u);
  auto a = run_partitions(spec, {{0, "ld.global.u64", 128}, {spec.topology.sms - 1, "ld.global.u64", 128}});
  auto b = run_partitions(spec, {{0, "ld.global.u64", 64}, {spec.topology.sms - 1, "ld.global.u64", 64}});
  auto c = run_partitions(spec, {{0, "ld.global.u64", 128}, {0, "ld.global.u64", 128}});
  auto d = run_partitions(spec, {{0, "ld.global.u64", 64}, {0, "ld.global.u64", 64}});
  EXPECT_DOUBLE_EQ(double(a[1] - b[1]), double(c[1] - d[1]));
}

}  // namespace
}  // namespace warpsim
