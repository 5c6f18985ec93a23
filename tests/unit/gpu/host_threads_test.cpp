// SMs ticked on several host threads (gpu/sm_batch.h): every counter of every kernel equals the
// one-thread run's, bit for bit; kernels that cannot tick apart do not; a model error raised
// inside a tick is the one a single thread reports.
#include <gtest/gtest.h>


#include "common/error.h"
#include "common/format.h"
#include "observe/warp_observer.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

test::Simulated simulate_threads(const std::string& arch, const std::string& path, unsigned threads) {
  return test::simulate_file(arch, path, {}, [threads](Gpu& gpu) { gpu.set_host_threads(threads); });
}

// The model's error for `path`, or "no error".
std::string error_of(const std::string& arch, const std::string& path, unsigned threads) {
  try {
    simulate_threads(arch, path, threads);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

void expect_identical(const test::Simulated& one, const test::Simulated& many, const std::string& what) {
  ASSERT_EQ(one.runs.size(), many.runs.size()) << what;
  for (size_t k = 0; k < one.runs.size(); ++k) {
    EXPECT_EQ(one.runs[k].start, many.runs[k].start) << what << " kernel " << k;
    EXPECT_EQ(one.runs[k].end, many.runs[k].end) << what << " kernel " << k;
    EXPECT_EQ(one.runs[k].stats, many.runs[k].stats) << what << " kernel " << k;  // every registered counter
  }
  EXPECT_EQ(one.gpu->engine_ticks(), many.gpu->engine_ticks()) << what;
}

// Many CTAs hitting shared L2 lines from every SM at once: atomics on a few words (served in
// arrival order at L2), loads of lines other CTAs also read, stores, a barrier.
std::string contended_trace(unsigned ctas) {
  std::string t = test::kernel_header("contended", ctas, 128);
  for (unsigned c = 0; c < ctas; ++c) {
    t += ".cta " + std::to_string(c) + " 0 0\n";
    for (unsigned w = 0; w < 4; ++w) {
      const unsigned mine = 0x1000000 + (c * 4 + w) * 128;
      const unsigned shared_line = 0x2000000 + (c % 7) * 128;
      t += ".warp " + std::to_string(w) + "\n";
      t += "ld.global.f32 %f1, [%rd1]; addr=" + hex(mine) + "+4\n";
      t += "ld.global.f32 %f2, [%rd2]; addr=" + hex(shared_line) + "+4\n";
      t += "atom.global.add.u32 %r1, [%rd3], %r2; addr=0x3000000+0\n";
      t += "fma.rn.f32 %f3, %f1, %f2, %f3\n";
      t += "bar.sync 0\n";
      t += "st.global.f32 [%rd4], %f3; addr=" + hex(0x4000000 + (c * 4 + w) * 128) + "+4\n";
      t += "red.global.add.u32 [%rd3], %r1; addr=" + hex(0x3000000 + (w % 2) * 4) + "+0\n";
      t += "exit\n";
    }
  }
  return t;
}

TEST(HostThreads, EveryCounterMatchesOneThreadOnShippedTraces) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a100", "traces/examples/vector_add.trace.gz"},
      {"h100", "traces/examples/shared_reduction.trace"},
      {"h100", "traces/tutorials/precision_fp16.trace.gz"},
      {"b200", "traces/examples/fma_throughput.trace.gz"},
      {"v100", "traces/accelsim/kernelslist.g"},
  };
  for (const auto& [arch, file] : cases) {
    const std::string path = test::source_path(file);
    const auto one = simulate_threads(arch, path, 1);
    EXPECT_FALSE(one.gpu->ran_parallel());
    for (unsigned threads : {2u, 3u}) {
      const auto many = simulate_threads(arch, path, threads);
      EXPECT_TRUE(many.gpu->ran_parallel()) << file;
      expect_identical(one, many, arch + " " + file + " on " + std::to_string(threads) + " threads");
    }
  }
}

TEST(HostThreads, EveryCounterMatchesOneThreadUnderContention) {
  test::TempDir dir;
  const std::string path = dir.write("contended.trace", contended_trace(700));
  for (const std::string arch : {"a100", "h100"}) {
    const auto one = simulate_threads(arch, path, 1);
    const auto four = simulate_threads(arch, path, 4);
    ASSERT_TRUE(four.gpu->ran_parallel());
    expect_identical(one, four, arch);
    // The run did contend: 700 CTAs' atomics on one word, on every SM.
    EXPECT_EQ(one.sum("gpu.sm[*].ctas_launched"), 700u);
    EXPECT_GT(one.sum("gpu.l2.atomics"), 0u);
  }
}

TEST(HostThreads, KernelsThatCannotTickApartUseOneThread) {
  // Clusters: their CTAs reach each other's shared memory and barriers within a cycle.
  std::string clustered = test::kernel_header("clustered", 4, 32) + ".cluster 2\n";
  for (int c = 0; c < 4; ++c) clustered += ".cta " + std::to_string(c) + " 0 0\n.warp 0\nbarrier.cluster.arrive\nbarrier.cluster.wait\nexit\n";
  test::TempDir dir;
  const auto run = simulate_threads("h100", dir.write("c.trace", clustered), 4);
  EXPECT_FALSE(run.gpu->ran_parallel());
  EXPECT_EQ(run.gpu->host_threads(), 4u);

  // Watched warp by warp: observers see one SM at a time.
  struct Quiet : WarpObserver {
    void kernel_started(const KernelInfo&, Cycle) override {}
    void kernel_finished(const KernelInfo&, Cycle) override {}
    void warp_launched(uint32_t, uint32_t, const KernelInfo&, Dim3, uint32_t, Cycle) override {}
    void warp_state(uint32_t, uint32_t, Cycle, StallReason, const WarpInst*) override {}
    void warp_retired(uint32_t, uint32_t, Cycle) override {}
  } quiet;
  const auto watched = test::simulate_file("a100", test::source_path("traces/examples/vector_add.trace.gz"), {}, [&](Gpu& gpu) {
    gpu.set_host_threads(4);
    gpu.set_observer(&quiet);
  });
  EXPECT_FALSE(watched.gpu->ran_parallel());
}

TEST(HostThreads, AnErrorInsideATickIsTheOneOneThreadReports) {
  // Two CTAs far apart in the grid use a precision V100 lacks, on different lines: whichever
  // thread meets one first, the error reported is the first in the engine's order.
  const std::string bad = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0,%f1,%f2,%f3}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f0,%f1,%f2,%f3}\n";
  std::string t = test::kernel_header("k", 200, 32);
  for (int c = 0; c < 200; ++c) {
    t += ".cta " + std::to_string(c) + " 0 0\n.warp 0\n";
    for (int i = 0; i < 20; ++i) t += "fma.rn.f32 %f1, %f1, %f2, %f3\n";
    if (c == 150 || c == 170) t += bad;
    t += "exit\n";
  }
  test::TempDir dir;
  const std::string path = dir.write("bad.trace", t);
  const std::string one = error_of("v100", path, 1);
  EXPECT_NE(one.find("uses bf16 tensor cores, which v100 does not have"), std::string::npos) << one;
  for (int repeat = 0; repeat < 5; ++repeat) EXPECT_EQ(error_of("v100", path, 4), one);
}

TEST(HostThreads, ATraceReadAheadReportsItsErrorsAndCancelledCtasInOrder) {
  // 500 CTAs, more than the GPU holds, so most are read while others run; one CTA far down the
  // file is malformed.
  auto trace = [](bool malformed) {
    std::string t = test::kernel_header("k", 500, 64);
    for (int c = 0; c < 500; ++c) {
      if (c % 97 == 13) {  // cancelled by a CTA that never says so: the trace only lists it
        t += ".cancelled " + std::to_string(c) + " 0 0\n";
        continue;
      }
      t += ".cta " + std::to_string(c) + " 0 0\n";
      for (int w = 0; w < 2; ++w) {
        t += ".warp " + std::to_string(w) + "\n";
        t += "ld.global.f32 %f1, [%rd1]; addr=" + hex(0x100000 + c * 256 + w * 128) + "+4\n";
        for (int i = 0; i < 30; ++i) t += "fma.rn.f32 %f2, %f1, %f2, %f3\n";
        if (malformed && c == 421 && w == 1) t += "frobnicate.u32 %r1, %r2\n";
        t += "exit\n";
      }
    }
    return t;
  };
  test::TempDir dir;
  const std::string good = dir.write("good.trace", trace(false)), bad = dir.write("bad.trace", trace(true));
  const auto one = simulate_threads("b200", good, 1);
  for (unsigned threads : {2u, 3u}) {  // three: a reader and two ticking threads
    const auto many = simulate_threads("b200", good, threads);
    EXPECT_TRUE(many.gpu->ran_parallel());
    expect_identical(one, many, "b200 with cancelled CTAs on " + std::to_string(threads) + " threads");
  }
  EXPECT_EQ(one.sum("gpu.sm[*].ctas_launched"), 500u - 6u);
  const std::string expected = error_of("b200", bad, 1);
  EXPECT_NE(expected.find("bad.trace:"), std::string::npos) << expected;
  EXPECT_NE(expected.find("frobnicate"), std::string::npos) << expected;
  for (unsigned threads : {2u, 3u, 4u}) EXPECT_EQ(error_of("b200", bad, threads), expected) << threads;
}

}  // namespace
}  // namespace warpsim
