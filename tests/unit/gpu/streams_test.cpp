// Kernels in CUDA streams: kernels of different streams run side by side as far as the SMs'
// warp slots, registers and shared memory allow, the CTA scheduler hands out one kernel's CTAs
// at a time in issue order (the next kernel gets only what room is left), a stream keeps its
// kernels in order, and the default stream waits for everything. Expectations come from
// resource arithmetic and from the same kernels run alone.
#include <gtest/gtest.h>

#include "common/error.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using test::simulate_text;

// A kernel of `grid` CTAs of `block` threads; every warp runs `fmas` dependent FMAs.
std::string stream_kernel(const std::string& name, const std::string& stream, unsigned grid, unsigned block, int fmas,
                          unsigned shared = 0, unsigned regs = 32) {
  std::string t = ".kernel " + name + "\n.grid " + std::to_string(grid) + "\n.block " + std::to_string(block) + "\n.shared " +
                  std::to_string(shared) + "\n.regs " + std::to_string(regs) + "\n";
  if (!stream.empty()) t += ".stream " + stream + "\n";
  for (unsigned c = 0; c < grid; ++c) {
    t += ".cta " + std::to_string(c) + " 0 0\n";
    for (unsigned w = 0; w < (block + 31) / 32; ++w) {
      t += ".warp " + std::to_string(w) + "\n";
      for (int i = 0; i < fmas; ++i) t += "fma.rn.f32 %f1, %f1, %f2, %f3\n";
      t += "exit\n";
    }
  }
  return t;
}

TEST(Streams, KernelsOfTwoStreamsOverlapWhenTheGpuHasRoom) {
  for (const auto& arch : test::kArchs) {
    const uint64_t alone = simulate_text(arch, ".version 1\n" + stream_kernel("a", "", 1, 32, 192)).runs.at(0).cycles();
    auto s = simulate_text(arch, ".version 1\n" + stream_kernel("a", "s1", 1, 32, 192) + stream_kernel("b", "s2", 1, 32, 192));
    ASSERT_EQ(s.runs.size(), 1u) << arch;
    const KernelRun& r = s.runs[0];
    ASSERT_EQ(r.concurrent.size(), 2u) << arch;
    EXPECT_EQ(r.info.name, "a + b");
    // One warp each, on different sub-partitions of SM 0: neither slows the other.
    for (const auto& k : r.concurrent) {
      EXPECT_EQ(k.start, 0u) << arch;
      EXPECT_EQ(k.cycles(), alone) << arch << " " << k.info.name;
      EXPECT_EQ(k.ctas, 1u);
      EXPECT_EQ(k.warp_instructions, 193u);
    }
    EXPECT_EQ(r.cycles(), alone) << arch;
    EXPECT_EQ(s.kernels.at(0).warp_instructions, 386u) << arch;
  }
}

TEST(Streams, OneStreamKeepsItsKernelsInOrder) {
  const uint64_t alone = simulate_text("h100", ".version 1\n" + stream_kernel("a", "", 1, 32, 192)).runs.at(0).cycles();
  auto s = simulate_text("h100", ".version 1\n" + stream_kernel("a", "s1", 1, 32, 192) + stream_kernel("b", "s1", 1, 32, 192));
  ASSERT_EQ(s.runs.size(), 2u);
  EXPECT_TRUE(s.runs[0].concurrent.empty());
  EXPECT_EQ(s.runs[0].info.stream, "s1");
  EXPECT_EQ(s.runs[0].cycles(), alone);
  EXPECT_EQ(s.runs[1].cycles(), alone);
  // b may begin (on another SM) in the cycle a's last warp retires, the last of a's span.
  EXPECT_GE(s.runs[1].start + 1, s.runs[0].end);
  EXPECT_GT(s.runs[1].start, s.runs[0].start + alone / 2);
}

TEST(Streams, TheDefaultStreamWaitsForEverythingAndHoldsBackWhatFollows) {
  auto s = simulate_text("a100", ".version 1\n" + stream_kernel("a", "s1", 1, 32, 96) + stream_kernel("d", "", 1, 32, 8) +
                                     stream_kernel("b", "s2", 1, 32, 96) + stream_kernel("c", "s3", 1, 32, 8));
  ASSERT_EQ(s.runs.size(), 3u);
  EXPECT_EQ(s.runs[0].info.name, "a");
  EXPECT_EQ(s.runs[1].info.name, "d");
  EXPECT_EQ(s.runs[2].info.name, "b + c");
  EXPECT_GE(s.runs[1].start, s.runs[0].end);
  EXPECT_GE(s.runs[2].start, s.runs[1].end);
  ASSERT_EQ(s.runs[2].concurrent.size(), 2u);
  EXPECT_EQ(s.runs[2].concurrent[0].start, s.runs[2].concurrent[1].start);  // c did not wait for b
}

TEST(Streams, TheNextKernelGetsOnlyTheRoomLeft) {
  for (const auto& arch : test::kArchs) {
    const GpuSpec spec = load_gpu_config(arch).spec;
    const unsigned sms = spec.topology.sms, full = spec.limits.max_warps_per_sm * 32;  // threads filling an SM's warp slots
    ASSERT_LE(full, 2048u);
    // CTAs taking every warp slot (two of 1024 threads where an SM holds 64 warps) but half the
    // registers: the other stream's kernel waits for a CTA to retire.
    const unsigned per_sm = full / 1024;
    auto busy = simulate_text(arch, ".version 1\n" + stream_kernel("a", "s1", sms * per_sm, 1024, 16, 0, 16) + stream_kernel("b", "s2", 1, 32, 8));
    ASSERT_EQ(busy.runs.at(0).concurrent.size(), 2u) << arch;
    const auto& a = busy.runs[0].concurrent[0];
    const auto& b = busy.runs[0].concurrent[1];
    EXPECT_GT(b.start, a.start) << arch;
    EXPECT_LT(b.start, a.end) << arch;  // it took the first room a CTA left
    // Half the warp slots taken: the second kernel starts beside the first at once.
    auto half = simulate_text(arch, ".version 1\n" + stream_kernel("a", "s1", sms, full / 2, 16, 0, 16) + stream_kernel("b", "s2", 1, 32, 8));
    // Every register taken (64 per thread over all warp slots' threads halved): it waits again.
    auto registers = simulate_text(arch, ".version 1\n" + stream_kernel("a", "s1", sms, full / 2, 16, 0, 64) + stream_kernel("b", "s2", 1, 32, 8));
    ASSERT_EQ(registers.runs.at(0).concurrent.size(), 2u) << arch;
    EXPECT_GT(registers.runs[0].concurrent[1].start, 0u) << arch;
    ASSERT_EQ(half.runs.at(0).concurrent.size(), 2u) << arch;
    EXPECT_EQ(half.runs[0].concurrent[1].start, 0u) << arch;
  }
}

TEST(Streams, SharedMemoryHeldByOneKernelKeepsTheOtherOut) {
  // A100: a CTA may take 163 KiB, plus the 1 KiB every CTA reserves (CUDA-PG), which fills the
  // largest carve-out (164 KiB); a kernel declaring no shared memory still needs that 1 KiB.
  const GpuSpec spec = load_gpu_config("a100").spec;
  const unsigned sms = spec.topology.sms, most = spec.limits.max_shared_per_cta_bytes;
  auto full = simulate_text("a100", ".version 1\n" + stream_kernel("a", "s1", sms, 32, 64, most) + stream_kernel("b", "s2", 1, 32, 8));
  ASSERT_EQ(full.runs.at(0).concurrent.size(), 2u);
  EXPECT_GE(full.runs[0].concurrent[1].start, full.runs[0].concurrent[0].end - 1);
  auto room = simulate_text("a100", ".version 1\n" + stream_kernel("a", "s1", sms, 32, 64, most - 4096) + stream_kernel("b", "s2", 1, 32, 8));
  ASSERT_EQ(room.runs.at(0).concurrent.size(), 2u);
  EXPECT_EQ(room.runs[0].concurrent[1].start, 0u);
}

TEST(Streams, CountsAddUpOverTheKernelsSideBySide) {
  auto s = simulate_text("h100", ".version 1\n" + stream_kernel("a", "s1", 300, 256, 40) + stream_kernel("b", "s2", 77, 96, 25) +
                                     stream_kernel("c", "s3", 5, 1024, 10));
  ASSERT_EQ(s.runs.size(), 1u);
  const KernelRun& r = s.runs[0];
  ASSERT_EQ(r.concurrent.size(), 3u);
  uint64_t instructions = 0, ctas = 0;
  Cycle first = kNever, last = 0;
  for (const auto& k : r.concurrent) {
    instructions += k.warp_instructions;
    ctas += k.ctas;
    first = std::min(first, k.start);
    last = std::max(last, k.end);
    EXPECT_EQ(k.ctas, k.info.grid.count());
    EXPECT_EQ(k.warp_instructions, k.info.grid.count() * k.info.warps_per_cta() * (k.info.name == "a" ? 41 : k.info.name == "b" ? 26 : 11));
  }
  EXPECT_EQ(instructions, s.sum("gpu.sm[*].inst_executed"));
  EXPECT_EQ(ctas, r.ctas);
  EXPECT_EQ(ctas, s.sum("gpu.sm[*].ctas_launched"));
  EXPECT_EQ(r.start, first);
  EXPECT_EQ(r.end, last);
}

TEST(Streams, ResultsDoNotDependOnHostThreads) {
  const std::string trace = ".version 1\n" + stream_kernel("a", "s1", 200, 128, 30) + stream_kernel("b", "s2", 90, 64, 20);
  auto one = simulate_text("a100", trace);
  auto four = simulate_text("a100", trace, {}, [](Gpu& g) { g.set_host_threads(4); });
  ASSERT_EQ(one.runs.size(), four.runs.size());
  EXPECT_EQ(one.runs[0].stats, four.runs[0].stats);
  EXPECT_EQ(one.runs[0].concurrent[1].start, four.runs[0].concurrent[1].start);
}

TEST(Streams, AKernelWaitingForOtherStreamsStartsAfterTheirKernels) {
  // Fork and join: a (s1) and b (s2) side by side; c (s3) waits for both; d (s4) for neither.
  std::string joining = stream_kernel("c", "s3", 1, 32, 8);
  joining.insert(joining.find(".cta"), ".wait_for s1 s2\n");
  auto s = simulate_text("a100", ".version 1\n" + stream_kernel("a", "s1", 1, 32, 96) + stream_kernel("b", "s2", 1, 32, 192) + joining +
                                     stream_kernel("d", "s4", 1, 32, 8));
  // a and b overlapped; c and d, which started once b finished, are a stretch of their own.
  ASSERT_EQ(s.runs.size(), 2u);
  ASSERT_EQ(s.runs[0].concurrent.size(), 2u);
  ASSERT_EQ(s.runs[1].concurrent.size(), 2u);
  const auto& a = s.runs[0].concurrent[0];
  const auto& b = s.runs[0].concurrent[1];
  const auto& c = s.runs[1].concurrent[0];
  const auto& d = s.runs[1].concurrent[1];
  EXPECT_EQ(c.info.name, "c");
  EXPECT_GE(c.start + 1, std::max(a.end, b.end));  // from the cycle b's last warp retires
  // d was issued after c, so it waited behind it (one queue), and started with it.
  EXPECT_GE(d.start, c.start);
  EXPECT_LE(d.start, c.start + 1);
  // Without the join, c starts with the others.
  auto free = simulate_text("a100", ".version 1\n" + stream_kernel("a", "s1", 1, 32, 96) + stream_kernel("b", "s2", 1, 32, 192) +
                                        stream_kernel("c", "s3", 1, 32, 8));
  EXPECT_EQ(free.runs.at(0).concurrent.at(2).start, 0u);
}

TEST(Streams, ClusteredKernelsRunAlone) {
  const std::string clustered = ".kernel c\n.grid 2\n.block 32\n.cluster 2\n.stream s2\n.cta 0 0 0\n.warp 0\nexit\n.cta 1 0 0\n.warp 0\nexit\n";
  auto s = simulate_text("h100", ".version 1\n" + stream_kernel("a", "s1", 1, 32, 64) + clustered + stream_kernel("b", "s3", 1, 32, 64));
  ASSERT_EQ(s.runs.size(), 3u);
  EXPECT_EQ(s.runs[1].info.name, "c");
  EXPECT_GE(s.runs[1].start, s.runs[0].end);
  EXPECT_GE(s.runs[2].start, s.runs[1].end);
}

TEST(Streams, AccelSimTracesKeepTheirCudaStreamIds) {
  // kernel-1.traceg twice: in the default stream (0) the two run in order; with two stream
  // handles (what the tracer writes for cudaStream_t) side by side.
  const std::string kernel = test::read_file(test::source_path("traces/accelsim/kernel-1.traceg"));
  ASSERT_NE(kernel.find("-cuda stream id = 0\n"), std::string::npos);
  auto with_stream = [&](const std::string& id) {
    std::string k = kernel;
    k.replace(k.find("-cuda stream id = 0"), 19, "-cuda stream id = " + id);
    return k;
  };
  test::TempDir dir;
  dir.write("kernel-1.traceg", with_stream("0"));
  dir.write("kernel-2.traceg", with_stream("0"));
  dir.write("kernel-3.traceg", with_stream("94558874820112"));
  dir.write("kernel-4.traceg", with_stream("94558874820640"));
  auto in_order = test::simulate_file("a100", dir.write("one.g", "kernel-1.traceg\nkernel-2.traceg\n"));
  auto side_by_side = test::simulate_file("a100", dir.write("two.g", "kernel-3.traceg\nkernel-4.traceg\n"));
  ASSERT_EQ(in_order.runs.size(), 2u);
  ASSERT_EQ(side_by_side.runs.size(), 1u);
  ASSERT_EQ(side_by_side.runs[0].concurrent.size(), 2u);
  EXPECT_EQ(side_by_side.runs[0].concurrent[1].info.stream, "94558874820640");
  EXPECT_EQ(side_by_side.runs[0].concurrent[1].start, 0u);
  EXPECT_EQ(side_by_side.kernels[0].warp_instructions, in_order.kernels[0].warp_instructions + in_order.kernels[1].warp_instructions);
  EXPECT_LT(side_by_side.runs[0].cycles(), in_order.runs[0].cycles() + in_order.runs[1].cycles());
}

TEST(Streams, AStreamWithoutANameIsAnErrorAtItsLine) {
  try {
    simulate_text("a100", ".version 1\n.kernel a\n.grid 1\n.block 32\n.stream\n.cta 0 0 0\n.warp 0\nexit\n");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":5:8: expected a stream name after .stream"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace warpsim
