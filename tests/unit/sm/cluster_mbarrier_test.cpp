// mbarrier signals between the CTAs of a cluster: a remote arrive (mbarrier.arrive on
// .shared::cluster) reaches the other CTA's barrier after the SM-to-SM network's latency, and a
// multicast bulk copy (.multicast::cluster) completes its bytes on every CTA of its mask. In the
// timing model from traces, and end to end on the shipped kernel (traces/kernels/tma_multicast.cu).
#include <gtest/gtest.h>

#include "support/test_support.h"

namespace warpsim {
namespace {

std::string mbarrier_header() { return test::kernel_header("k", 2, 32, 4096) + ".cluster 2 1 1\n"; }
const char* kSync = "barrier.cluster.arrive.aligned\nbarrier.cluster.wait.aligned\n";

// CTA 0 initialises its barrier (one arrival expected) and waits on it; CTA 1 arrives on it
// from across the cluster once both passed barrier.cluster.
std::string remote_arrive_trace(const std::string& address) {
  return mbarrier_header() + ".cta 0 0 0\n.warp 0\nmbarrier.init.shared::cta.b64 [%r1], 1; mbar=0x100 count=1\n" + kSync +
         "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r5; mbar=0x100 phase=0\n@%p1 add.s32 %r6, %r6, 1\nexit\n"
         ".cta 1 0 0\n.warp 0\n" + kSync + "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r2]; mbar=" + address + " arrive=1\nexit\n";
}

TEST(ClusterMbarrier, ARemoteArriveCountsAfterTheNetworkLatency) {
  auto fast = test::simulate_text("h100", remote_arrive_trace("0x1000100"), {"clusters.dsmem_latency=100"});
  auto slow = test::simulate_text("h100", remote_arrive_trace("0x1000100"), {"clusters.dsmem_latency=1100"});
  // Everything else is equal: the waiting warp, and so the kernel, ends exactly 1000 cycles later.
  EXPECT_EQ(slow.kernels.at(0).cycles - fast.kernels.at(0).cycles, 1000u);
  EXPECT_GT(fast.kernels.at(0).cycles, 100u + fast.config.spec.clusters.barrier_latency);
  EXPECT_EQ(fast.sum("gpu.sm[*].remote_mbarrier_signals"), 1u);
  // A rank outside the cluster is refused at the instruction's line.
  test::TempDir dir;
  auto r = test::run_cli({"run", "--arch", "h100", dir.write("bad.trace", remote_arrive_trace("0x3000100")), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("bad.trace:20:1: 'mbarrier.arrive.release.cluster.shared::cluster.b64' on the mbarrier of the cluster's CTA of rank 2, which is not resident"),
            std::string::npos) << r.err;
}

// CTA 0 multicasts 4 KiB into both CTAs; CTA 1 expects the bytes on its own barrier and waits.
std::string multicast_trace(const std::string& mask) {
  return mbarrier_header() + ".cta 0 0 0\n.warp 0\nmbarrier.init.shared::cta.b64 [%r1], 1; mbar=0x100 count=1\n" + kSync +
         "mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1], %r4; mbar=0x100 arrive=1 tx=4096\n"
         "00000001 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r3], [%rd1], %r4, [%r1], %rs1; addr=0x10000 mbar=0x100 tx=4096 mcast=" +
         mask + "\nmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r5; mbar=0x100 phase=0\nexit\n"
         ".cta 1 0 0\n.warp 0\nmbarrier.init.shared::cta.b64 [%r1], 1; mbar=0x100 count=1\n" + kSync +
         "mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1], %r4; mbar=0x100 arrive=1 tx=4096\n"
         "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r5; mbar=0x100 phase=0\n@%p1 add.s32 %r6, %r6, 1\nexit\n";
}

TEST(ClusterMbarrier, AMulticastCopyReadsOnceAndCompletesEveryCtasBarrier) {
  auto run = test::simulate_text("h100", multicast_trace("0x3"));
  const GpuSpec& spec = run.config.spec;
  // Read once from L2 (a cold miss to DRAM), 128 sectors, for both CTAs.
  EXPECT_EQ(run.sum("gpu.sm[*].bulk_copy.copies"), 1u);
  EXPECT_EQ(run.sum("gpu.sm[*].bulk_copy.sectors"), 4096u / 32);
  const double l2_trip = 2.0 * spec.memory.interconnect.latency + spec.memory.l2.hit_latency;
  EXPECT_GT(double(run.kernels.at(0).cycles), l2_trip + spec.clusters.barrier_latency);
  // Without CTA 1 in the mask its phase never completes: the run reports the stuck wait.
  test::TempDir dir;
  auto r = test::run_cli({"run", "--arch", "h100", dir.write("stuck.trace", multicast_trace("0x1")), "-q"});
  EXPECT_NE(r.err.find("deadlock in kernel 'k'"), std::string::npos) << r.err;
  // A mask naming a CTA the cluster lacks is refused.
  r = test::run_cli({"run", "--arch", "h100", dir.write("bad.trace", multicast_trace("0x4")), "-q"});
  EXPECT_NE(r.err.find("the cluster's CTA of rank 2 is not resident"), std::string::npos) << r.err;
}

// CTA 0 expects 128 bytes on its barrier and waits; CTA 1's warp stores 32 words into CTA 0's
// shared memory with st.async (`store`, whose lanes and barrier can be varied).
std::string async_store_trace(const std::string& store) {
  return mbarrier_header() + ".cta 0 0 0\n.warp 0\nmbarrier.init.shared::cta.b64 [%r1], 1; mbar=0x100 count=1\n" + kSync +
         "mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1], %r4; mbar=0x100 arrive=1 tx=128\n"
         "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r5; mbar=0x100 phase=0\n@%p1 add.s32 %r6, %r6, 1\nexit\n"
         ".cta 1 0 0\n.warp 0\n" + kSync + store + "\nexit\n";
}
const char* kStore = "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r2], %r3, [%r4]; addr=0x1000200+4 mbar=0x1000100";

TEST(ClusterMbarrier, AnAsyncStoreCompletesItsBytesOnTheReceiversBarrierAfterTheNetwork) {
  auto fast = test::simulate_text("h100", async_store_trace(kStore), {"clusters.dsmem_latency=100"});
  auto slow = test::simulate_text("h100", async_store_trace(kStore), {"clusters.dsmem_latency=1100"});
  // The bytes land, and the waiting warp goes on, exactly 1000 cycles later; the store crossed
  // the network once, as four 32-byte segments, and signalled the other CTA's barrier once.
  EXPECT_EQ(slow.kernels.at(0).cycles - fast.kernels.at(0).cycles, 1000u);
  EXPECT_EQ(fast.sum("gpu.sm[*].dsmem.requests"), 1u);
  EXPECT_EQ(fast.sum("gpu.sm[*].dsmem.segments"), 4u);
  EXPECT_EQ(fast.sum("gpu.sm[*].remote_mbarrier_signals"), 1u);
  // The same bytes in two stores of 16 lanes each: the phase needs both.
  const std::string halves = std::string("0000ffff ") + kStore + "\nffff0000 " + kStore;
  auto two = test::simulate_text("h100", async_store_trace(halves), {"clusters.dsmem_latency=100"});
  EXPECT_EQ(two.sum("gpu.sm[*].remote_mbarrier_signals"), 2u);
  EXPECT_GE(two.kernels.at(0).cycles, fast.kernels.at(0).cycles);
  test::TempDir dir;
  // Half the bytes: the phase never completes, and the run reports the stuck wait.
  auto r = test::run_cli({"run", "--arch", "h100", dir.write("short.trace", async_store_trace(std::string("0000ffff ") + kStore)), "-q"});
  EXPECT_NE(r.err.find("deadlock in kernel 'k'"), std::string::npos) << r.err;
  // A barrier in a CTA the cluster lacks, and a GPU without clusters, are refused at the line.
  std::string bad = async_store_trace(kStore);
  bad.replace(bad.find("mbar=0x1000100"), 14, "mbar=0x3000100");
  r = test::run_cli({"run", "--arch", "h100", dir.write("bad.trace", bad), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("bad.trace:21:1: 'st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.b32' on the mbarrier of the cluster's CTA of rank 2, which is not resident"),
            std::string::npos) << r.err;
}

// The shipped kernel: 4 clusters of 2 CTAs each stream 8 tiles; a CTA reads each tile's half
// once (2 KiB: 64 sectors) for both CTAs, and arrives once a tile on the other CTA's barrier.
TEST(ClusterMbarrier, ShippedMulticastKernelReplaysAndReadsEachHalfOnce) {
  test::TempDir dir;
  const auto r = test::run_and_replay("h100", test::source_path("traces/kernels/tma_multicast.launch.yaml"), dir);
  EXPECT_NE(r.trace.find("mcast=0x3"), std::string::npos);
  EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
  auto run = test::simulate_text("h100", r.trace);
  EXPECT_EQ(run.sum("gpu.sm[*].bulk_copy.copies"), 8u * 8);
  EXPECT_EQ(run.sum("gpu.sm[*].bulk_copy.sectors"), 8u * 8 * 2048 / 32);
  EXPECT_EQ(run.sum("gpu.sm[*].remote_mbarrier_signals"), 8u * 8);
  for (const char* arch : {"h200", "b200"}) {
    auto c = test::run_cli({"run", "--arch", arch, test::source_path("traces/kernels/tma_multicast.launch.yaml"), "--checks", "error"});
    EXPECT_EQ(c.exit_code, 0) << arch << c.err;
    EXPECT_NE(c.out.find("check: passed"), std::string::npos) << arch << c.out;
  }
}

}  // namespace
}  // namespace warpsim
