// Thread-block clusters in the timing model: the cross-SM barrier's phase bookkeeping on its own,
// then traces whose distributed-shared-memory loads and cluster barriers must take exactly the
// config's latencies, CTAs of a cluster placed together on one GPC, and launches the hardware
// would refuse.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "common/error.h"
#include "observe/warp_observer.h"
#include "sm/cluster_barriers.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

TEST(ClusterBarriers, APhaseCompletesWhenEveryWarpArrivedOrExited) {
  ClusterBarriers b;
  std::vector<std::tuple<uint32_t, uint32_t, Cycle>> released;
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, Cycle>> signals;  // sm, slot, address, landed, at
  b.start_kernel(100, [&](uint32_t sm, uint32_t warp, Cycle at) { released.emplace_back(sm, warp, at); },
                 [&](uint32_t sm, uint32_t slot, const MbarrierSignal& s, Cycle at) { signals.emplace_back(sm, slot, s.address, s.tx_landed, at); });
  b.open(7, 2, 3);  // two CTAs, three warps
  b.place(7, 0, 5, 1);
  b.place(7, 1, 6, 0);
  b.arrive(7, 1, 10);
  EXPECT_EQ(b.wait(7, 1, 0, 4), kNever);  // two warps still to arrive
  b.arrive(7, 1, 12);
  b.exit(7, 0, 20);  // the third exits without arriving: it counts as arrived from now on
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0], std::make_tuple(0u, 4u, Cycle{120}));  // 20 + the barrier latency
  EXPECT_EQ(b.wait(7, 1, 3, 9), 120u);  // a later wait on a completed phase sees its cycle
  // Phase 2 needs only the two live warps now.
  b.arrive(7, 2, 30);
  EXPECT_EQ(b.wait(7, 2, 1, 2), kNever);
  b.arrive(7, 2, 45);
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(released[1], std::make_tuple(1u, 2u, Cycle{145}));
  // Signals reach the CTA of a rank where it sits, until it retires.
  EXPECT_TRUE(b.signal(7, 1, MbarrierSignal{0x40, 0, 0, 256, false}, 50));
  ASSERT_EQ(signals.size(), 1u);
  EXPECT_EQ(signals[0], std::make_tuple(6u, 0u, 0x40u, 256u, Cycle{50}));
  EXPECT_FALSE(b.signal(7, 2, MbarrierSignal{0x40, 1, 0, 0, false}, 50));  // no rank 2 in a cluster of two
  b.cta_retired(7, 1);
  EXPECT_FALSE(b.signal(7, 1, MbarrierSignal{0x40, 1, 0, 0, false}, 60));
  EXPECT_EQ(b.open_clusters(), 1u);
  b.cta_retired(7, 0);
  EXPECT_EQ(b.open_clusters(), 0u);
}

// A kernel of `grid` CTAs of one warp in clusters of `cluster`.
std::string cluster_header(unsigned grid, unsigned cluster, unsigned shared = 1024) {
  return test::kernel_header("k", grid, 32, shared) + ".cluster " + std::to_string(cluster) + " 1 1\n";
}

// One warp of CTA 0 loads 32 consecutive words of the CTA of rank `target_plus_one` - 1 (0: its
// own shared memory), then uses the value.
std::string dsmem_trace(uint64_t target_plus_one) {
  const uint64_t base = target_plus_one << kClusterRankShift;
  std::string t = cluster_header(2, 2) + ".cta 0 0 0\n.warp 0\n";
  t += "ld.shared::cluster.u32 %r1, [%r2]; addr=0x" + [&] {
    char b[32];
    std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(base));
    return std::string(b);
  }() + "+4\nadd.s32 %r3, %r1, 1\nexit\n";
  return t + ".cta 1 0 0\n.warp 0\nexit\n";
}

TEST(ClusterTiming, ARemoteLoadTakesTheNetworkLatencyAndItsSegments) {
  auto local = test::simulate_text("h100", dsmem_trace(0));
  auto remote = test::simulate_text("h100", dsmem_trace(2));
  const GpuSpec& spec = remote.config.spec;
  // Local: one MIO pass, then the shared latency. Remote: one MIO pass hands it to the network,
  // whose port moves 4 segments of 32 bytes, then the network latency.
  const uint64_t segments = 4, port = segments * 32 / spec.clusters.dsmem_bytes_per_clk_per_sm;
  EXPECT_EQ(remote.kernels.at(0).cycles - local.kernels.at(0).cycles, spec.clusters.dsmem_latency + port - spec.memory.shared.latency);
  EXPECT_EQ(remote.sum("gpu.sm[*].dsmem.requests"), 1u);
  EXPECT_EQ(remote.sum("gpu.sm[*].dsmem.segments"), segments);
  EXPECT_EQ(local.sum("gpu.sm[*].dsmem.requests"), 0u);
  EXPECT_EQ(local.sum("gpu.sm[*].shared_load.requests"), 1u);  // rank bits 0: the CTA's own memory
  // The CTA's own rank spelled out (rank 0 + 1) is its own memory too.
  auto own = test::simulate_text("h100", dsmem_trace(1));
  EXPECT_EQ(own.kernels.at(0).cycles, local.kernels.at(0).cycles);
}

// Both CTAs arrive and wait; CTA 1 first runs `work` (one instruction per line).
std::string barrier_trace(const std::string& work) {
  const std::string sync = "barrier.cluster.arrive.aligned\nbarrier.cluster.wait.aligned\nadd.s32 %r3, %r3, 1\nexit\n";
  return cluster_header(2, 2) + ".cta 0 0 0\n.warp 0\n" + sync + ".cta 1 0 0\n.warp 0\n" + work + sync;
}

TEST(ClusterTiming, AnArriveCountsOnceTheWarpsRemoteStoresHaveLanded) {
  // CTA 1 stores 32 words into CTA 0's shared memory, then both sync the cluster: the arrive is
  // a release, so the barrier completes only after the store crossed the network.
  const std::string store = "st.shared::cluster.u32 [%r2], %r1; addr=0x1000000+4\n";
  auto fast = test::simulate_text("h100", barrier_trace(store), {"clusters.dsmem_latency=100"});
  auto slow = test::simulate_text("h100", barrier_trace(store), {"clusters.dsmem_latency=1100"});
  EXPECT_EQ(slow.kernels.at(0).cycles - fast.kernels.at(0).cycles, 1000u);
  EXPECT_GT(fast.kernels.at(0).cycles, 100u + fast.config.spec.clusters.barrier_latency);
  // A store into its own shared memory does not hold the arrive up.
  auto local = test::simulate_text("h100", barrier_trace("st.shared::cluster.u32 [%r2], %r1; addr=0x2000000+4\n"),
                                   {"clusters.dsmem_latency=1100"});
  EXPECT_LT(local.kernels.at(0).cycles, 1000u);
}

TEST(ClusterTiming, AWaitEndsTheBarrierLatencyAfterTheLastArrival) {
  auto quick = test::simulate_text("h100", barrier_trace(""));
  const GpuSpec& spec = quick.config.spec;
  // Arrivals at about cycle 1; the waits end barrier_latency later; then an add and exit.
  EXPECT_GE(quick.kernels.at(0).cycles, spec.clusters.barrier_latency);
  EXPECT_LT(quick.kernels.at(0).cycles, spec.clusters.barrier_latency + 40);
  EXPECT_EQ(quick.sum("gpu.sm[*].cluster_barriers"), 2u);
  // CTA 1 first waits for a global load that misses everywhere: CTA 0's wait lasts that long more.
  auto slow = test::simulate_text("h100", barrier_trace("ld.global.u32 %r1, [%rd1]; addr=0x1000+4\nadd.s32 %r2, %r1, 1\n"));
  const double dram = 2.0 * spec.memory.interconnect.latency + spec.memory.l2.hit_latency + spec.memory.hbm.latency;
  EXPECT_GT(double(slow.kernels.at(0).cycles), dram + spec.clusters.barrier_latency);
  const auto barrier = static_cast<size_t>(StallReason::kBarrier);
  EXPECT_GT(slow.kernels.at(0).stalls[barrier], quick.kernels.at(0).stalls[barrier]);
}

// Records the SM each CTA runs on.
struct Placement : WarpObserver {
  std::map<uint64_t, uint32_t> sm_of;  // CTA x -> SM
  void kernel_started(const KernelInfo&, Cycle) override {}
  void kernel_finished(const KernelInfo&, Cycle) override {}
  void warp_launched(uint32_t sm, uint32_t, const KernelInfo&, Dim3 cta, uint32_t, Cycle) override { sm_of[cta.x] = sm; }
  void warp_state(uint32_t, uint32_t, Cycle, StallReason, const WarpInst*) override {}
  void warp_retired(uint32_t, uint32_t, Cycle) override {}
};

TEST(ClusterScheduling, AClusterRunsOnOneGpcSpreadOverItsSms) {
  // 12 clusters of 4 CTAs, each CTA using most of an SM's shared memory (one CTA per SM): more
  // CTAs than H100's 132 SMs can hold at once would be fine too, but 48 keeps the test short.
  std::string t = cluster_header(48, 4, 200 * 1024);
  for (unsigned c = 0; c < 48; ++c) t += ".cta " + std::to_string(c) + " 0 0\n.warp 0\nadd.s32 %r1, %r1, 1\nexit\n";
  Placement placement;
  auto run = test::simulate_text("h100", t, {}, [&](Gpu& gpu) { gpu.set_observer(&placement); });
  const auto& topo = run.config.spec.topology;
  auto gpc_of = [&](uint32_t sm) {
    for (uint32_t g = 0; g < topo.gpcs; ++g)
      if (sm >= topo.first_sm(g) && sm < topo.first_sm(g + 1)) return g;
    return topo.gpcs;
  };
  ASSERT_EQ(placement.sm_of.size(), 48u);
  std::set<uint32_t> gpcs_used;
  for (unsigned c = 0; c < 48; c += 4) {
    std::set<uint32_t> sms, gpcs;
    for (unsigned r = 0; r < 4; ++r) sms.insert(placement.sm_of.at(c + r)), gpcs.insert(gpc_of(placement.sm_of.at(c + r)));
    EXPECT_EQ(gpcs.size(), 1u) << "cluster " << c / 4;
    EXPECT_EQ(sms.size(), 4u) << "cluster " << c / 4;  // one CTA per SM fits, so no SM is shared
    gpcs_used.insert(*gpcs.begin());
  }
  EXPECT_EQ(gpcs_used.size(), topo.gpcs);  // clusters go round the GPCs
}

TEST(ClusterScheduling, LaunchesTheHardwareRefusesAreClearErrors) {
  auto error_of = [](const std::string& arch, const std::string& text, const std::vector<std::string>& sets = {}) {
    try {
      test::simulate_text(arch, text, sets);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string two = cluster_header(2, 2) + ".cta 0 0 0\n.warp 0\nexit\n.cta 1 0 0\n.warp 0\nexit\n";
  EXPECT_NE(error_of("a100", two).find("has no thread-block clusters (compute capability 9.0 or later)"), std::string::npos);
  EXPECT_NE(error_of("h100", cluster_header(32, 32)).find("a cluster of 32 CTAs; h100 allows at most 16 (8 portable)"), std::string::npos);
  EXPECT_NE(error_of("h100", cluster_header(6, 4)).find("the grid (6,1,1) is not a whole number of clusters (4,1,1)"), std::string::npos);
  // 32 CTAs of one per SM cannot sit in a GPC of 16 or 17 SMs, even where the size is allowed.
  EXPECT_NE(error_of("h100", cluster_header(32, 32, 200 * 1024), {"clusters.max_size=64"}).find("cannot be resident in one GPC"), std::string::npos);
  // A trace must list a cluster's CTAs together.
  const std::string apart = cluster_header(4, 2) + ".cta 0 0 0\n.warp 0\nexit\n.cta 2 0 0\n.warp 0\nexit\n"
                            ".cta 1 0 0\n.warp 0\nexit\n.cta 3 0 0\n.warp 0\nexit\n";
  EXPECT_NE(error_of("h100", apart).find("CTA (2,0,0) is not in cluster 0 with CTA (0,0,0)"), std::string::npos);
  // barrier.cluster on a GPU without clusters.
  const std::string sync = test::kernel_header("k", 1, 32) + ".cta 0 0 0\n.warp 0\nbarrier.cluster.arrive\nexit\n";
  EXPECT_NE(error_of("a100", sync).find("'barrier.cluster.arrive' needs thread-block clusters"), std::string::npos);
}

TEST(ClusterTiming, AKernelWithoutClustersRunsEachCtaAsItsOwnCluster) {
  // barrier.cluster then synchronises the CTA's warps, like bar.sync but through the network.
  std::string t = test::kernel_header("k", 1, 64) + ".cta 0 0 0\n";
  for (int w = 0; w < 2; ++w) t += ".warp " + std::to_string(w) + "\nbarrier.cluster.arrive\nbarrier.cluster.wait\nexit\n";
  auto run = test::simulate_text("h100", t);
  EXPECT_GE(run.kernels.at(0).cycles, run.config.spec.clusters.barrier_latency);
}

}  // namespace
}  // namespace warpsim
