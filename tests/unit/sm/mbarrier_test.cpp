// Hopper's mbarriers and bulk copies in the timing model: the phase bookkeeping on its own, then
// traces whose waits must hold a warp until a bulk copy lands or another warp arrives, with the
// expectations derived from the config's latencies.
#include <gtest/gtest.h>

#include "sm/mbarrier_table.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

TEST(MbarrierTable, APhaseCompletesWhenArrivalsAndBytesAreDone) {
  MbarrierTable t;
  MbarrierTable::Release released;
  std::string error;
  ASSERT_TRUE(t.init(0x40, 2, error)) << error;
  EXPECT_EQ(t.wait(0x40, {7, 3, 0}, error), kNever);  // queued: phase 0 is open
  ASSERT_TRUE(t.arrive(0x40, 1, 256, 10, released, error)) << error;  // arrive.expect_tx 256 bytes
  ASSERT_TRUE(t.arrive(0x40, 1, 0, 12, released, error)) << error;    // arrivals done, bytes not
  EXPECT_TRUE(released.empty());
  ASSERT_TRUE(t.complete_tx(0x40, 128, 30, released, error));
  EXPECT_TRUE(released.empty());
  ASSERT_TRUE(t.complete_tx(0x40, 128, 55, released, error));
  ASSERT_EQ(released.size(), 1u);  // the last bytes complete phase 0 at cycle 55
  EXPECT_EQ(released[0].first.warp, 7u);
  EXPECT_EQ(released[0].first.reg, 3u);
  EXPECT_EQ(released[0].second, 55u);
  EXPECT_EQ(t.wait(0x40, {1, 1, 0}, error), 55u);  // a later wait on phase 0 sees its cycle
  // Phase 1 starts with the expected count again; bytes landing before their expect_tx leave
  // the count negative and the phase open.
  released.clear();
  ASSERT_TRUE(t.complete_tx(0x40, 64, 60, released, error));
  ASSERT_TRUE(t.arrive(0x40, 2, 0, 61, released, error));
  EXPECT_TRUE(released.empty());
  EXPECT_EQ(t.wait(0x40, {2, 2, 1}, error), kNever);
  ASSERT_TRUE(t.arrive(0x40, 0, 64, 70, released, error));  // expect_tx brings it back to zero
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0].second, 70u);
}

TEST(MbarrierTable, ArriveDropLowersWhatLaterPhasesExpect) {
  MbarrierTable t;
  MbarrierTable::Release released;
  std::string error;
  ASSERT_TRUE(t.init(0x40, 3, error)) << error;
  ASSERT_TRUE(t.signal(MbarrierSignal{0x40, 1, 0, 0, true}, 5, released, error)) << error;  // arrive_drop
  ASSERT_TRUE(t.arrive(0x40, 2, 0, 9, released, error)) << error;  // phase 0 still needed all three
  EXPECT_EQ(t.wait(0x40, {1, 1, 0}, error), 9u);
  // Phase 1 expects two: one arrival leaves it open, the second completes it.
  ASSERT_TRUE(t.arrive(0x40, 1, 0, 20, released, error)) << error;
  EXPECT_EQ(t.wait(0x40, {1, 1, 1}, error), kNever);
  released.clear();
  ASSERT_TRUE(t.arrive(0x40, 1, 0, 24, released, error)) << error;
  ASSERT_EQ(released.size(), 1u);
  EXPECT_EQ(released[0].second, 24u);
  // One signal can carry bytes expected, bytes landed and an arrival at once.
  ASSERT_TRUE(t.signal(MbarrierSignal{0x40, 2, 32, 32, false}, 30, released, error)) << error;
  EXPECT_EQ(t.wait(0x40, {1, 1, 2}, error), 30u);
}

TEST(MbarrierTable, InconsistentUseIsAnError) {
  MbarrierTable t;
  MbarrierTable::Release released;
  std::string error;
  EXPECT_FALSE(t.arrive(0x8, 1, 0, 0, released, error));
  EXPECT_NE(error.find("mbarrier at shared 0x8 is used before mbarrier.init"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(t.init(0x8, 0, error));
  EXPECT_NE(error.find("expected count of 0"), std::string::npos) << error;
  error.clear();
  ASSERT_TRUE(t.init(0x8, 1, error));
  EXPECT_FALSE(t.arrive(0x8, 2, 0, 0, released, error));
  EXPECT_NE(error.find("2 arrivals when only 1 of its phase are pending"), std::string::npos) << error;
}

// One lane of one warp: init, a bulk copy of `bytes` onto the barrier, arrive.expect_tx, a wait
// that saw phase `phase` complete (-1: it saw it open), and an instruction guarded by the wait.
std::string bulk_trace(uint32_t bytes, int phase) {
  const std::string tx = std::to_string(bytes);
  return test::kernel_header("bulk", 1, 32, 65536 + 64) + ".cta 0 0 0\n.warp 0\n"
         "00000001 mbarrier.init.shared.b64 [%r1], %r2; mbar=0x10000 count=1\n"
         "00000001 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1], %r4, [%r1]; addr=0x10000000+0 mbar=0x10000 tx=" + tx + "\n"
         "00000001 mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1], %r4; mbar=0x10000 arrive=1 tx=" + tx + "\n"
         "00000001 mbarrier.try_wait.shared.b64 %p1, [%r1], %rd2; mbar=0x10000 phase=" + std::to_string(phase) + "\n"
         "@%p1 add.s32 %r5, %r5, 1\n"
         "exit\n";
}

TEST(BulkCopy, AWaitHoldsTheWarpUntilTheCopyLands) {
  auto held = test::simulate_text("h100", bulk_trace(4096, 0));
  auto open = test::simulate_text("h100", bulk_trace(4096, -1));
  const GpuSpec& spec = held.config.spec;
  // The copy misses L2 (nothing has touched the line): its bytes need an interconnect round trip,
  // an L2 lookup and an HBM access, and only then can the guarded add issue. Without the wait
  // the warp only drains the copy at exit, which takes as long minus the add's short latency.
  const double l2_round_trip = 2.0 * spec.memory.interconnect.latency + spec.memory.l2.hit_latency;
  EXPECT_GT(double(held.kernels.at(0).cycles), l2_round_trip + spec.memory.hbm.latency);
  EXPECT_GE(held.kernels.at(0).cycles, open.kernels.at(0).cycles);
  const auto long_sb = static_cast<size_t>(StallReason::kLongScoreboard);
  EXPECT_GT(held.kernels.at(0).stalls[long_sb], 0.0);
  EXPECT_EQ(open.kernels.at(0).stalls[long_sb], 0.0);
  // Conservation: 4096 bytes are 128 sectors of one copy, all read from DRAM once.
  EXPECT_EQ(held.sum("gpu.sm[*].bulk_copy.copies"), 1u);
  EXPECT_EQ(held.sum("gpu.sm[*].bulk_copy.sectors"), 4096u / spec.memory.sector_bytes);
  EXPECT_EQ(held.kernels.at(0).dram_bytes_read, 4096u);
  EXPECT_EQ(held.sum("gpu.sm[*].mbarrier.instructions"), 3u);
  // A 16x larger copy takes longer to land (same latency, more sectors through the same paths).
  auto big = test::simulate_text("h100", bulk_trace(65536, 0));
  EXPECT_GT(big.kernels.at(0).cycles, held.kernels.at(0).cycles);
  EXPECT_EQ(big.kernels.at(0).dram_bytes_read, 65536u);
}

TEST(Mbarrier, AWaitIsReleasedByTheLastArrivalOfAnotherWarp) {
  // Warp 0 initialises a barrier expecting two arrivals, arrives and waits; warp 1 arrives only
  // after a chain of `chain` dependent FMAs. Warp 0's guarded add cannot issue before that.
  auto run = [](int chain) {
    std::string t = test::kernel_header("pair", 1, 64, 64) + ".cta 0 0 0\n.warp 0\n"
                    "mbarrier.init.shared.b64 [%r1], %r2; mbar=0x0 count=2\n"
                    "bar.sync 0\n"
                    "00000001 mbarrier.arrive.shared::cta.b64 %rd2, [%r1]; mbar=0x0 arrive=1\n"
                    "mbarrier.try_wait.shared.b64 %p1, [%r1], %rd2; mbar=0x0 phase=0\n"
                    "@%p1 add.s32 %r5, %r5, 1\nexit\n.warp 1\nbar.sync 0\n";
    for (int i = 0; i < chain; ++i) t += "fma.rn.f32 %f1, %f1, %f2, %f3\n";
    t += "00000001 mbarrier.arrive.shared::cta.b64 %rd2, [%r1], %f1; mbar=0x0 arrive=1\nexit\n";
    return test::simulate_text("h100", t);
  };
  auto quick = run(0), late = run(50);
  const GpuSpec& spec = quick.config.spec;
  const uint32_t fma = spec.pipe(Pipe::kFma).latency;
  // The chain, then warp 1's arrival through MIO (one shared-memory latency), then the add.
  EXPECT_GE(late.kernels.at(0).cycles, 50u * fma + spec.memory.shared.latency);
  // Without the chain, warp 0 is released as soon as both arrivals are through MIO.
  EXPECT_LT(quick.kernels.at(0).cycles, 50u * fma);
}

TEST(Mbarrier, TraceErrorsNameTheLine) {
  auto expect_error = [](const std::string& body, const std::string& what) {
    test::TempDir dir;
    std::string path = dir.write("t.trace", test::kernel_header("k", 1, 32, 64) + ".cta 0 0 0\n.warp 0\n" + body);
    auto r = test::run_cli({"run", "--arch", "h100", path, "-q"});
    EXPECT_EQ(r.exit_code, 3) << body;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  };
  expect_error("mbarrier.arrive.shared.b64 %rd1, [%r1]; mbar=0x0 arrive=1\nexit\n",
               "t.trace:9:1: mbarrier at shared 0x0 is used before mbarrier.init in this CTA");
  expect_error("mbarrier.init.shared.b64 [%r1], %r2\nexit\n", "t.trace:9:1: 'mbarrier.init.shared.b64' needs '; mbar=ADDRESS'");
  expect_error("mbarrier.init.shared.b64 [%r1], %r2; mbar=0x0 count=1\n"
               "00000001 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd1], %r4, [%r1]; addr=0x1000+0 mbar=0x0 tx=10\nexit\n",
               "t.trace:10:");
  expect_error("add.s32 %r1, %r1, 1; mbar=0x0\nexit\n", "mbar= given for 'add.s32', which is not an mbarrier operation");
  expect_error("mbarrier.frob.shared.b64 [%r1]; mbar=0x0\nexit\n", "unknown mbarrier operation 'frob'");
}

}  // namespace
}  // namespace warpsim
