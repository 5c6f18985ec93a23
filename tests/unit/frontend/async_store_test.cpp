// Hopper's asynchronous stores and the mbarrier forms around them in the PTX emulator: st.async
// and red.async into a cluster sibling's shared memory completing on its mbarrier (the shipped
// kernels against CPU references, replayed from their traces), mbarrier.complete_tx and
// arrive_drop against phases worked out by hand, and the faults for misuse.
#include <gtest/gtest.h>

#include "support/test_support.h"

namespace warpsim {
namespace {

TEST(AsyncStorePtx, ShippedKernelsMatchTheirReferencesAndReplayFromTheirTraces) {
  test::TempDir dir;
  for (const char* name : {"async_store_ring", "async_reduce"}) {
    SCOPED_TRACE(name);
    const std::string launch = test::source_path(std::string("traces/kernels/") + name + ".launch.yaml");
    for (const char* arch : {"h100", "b200"}) {
      auto c = test::run_cli({"run", "--arch", arch, launch, "--checks", "error"});
      EXPECT_EQ(c.exit_code, 0) << arch << c.err;
      EXPECT_NE(c.out.find("check: passed"), std::string::npos) << arch << c.out;
    }
    const auto r = test::run_and_replay("h100", launch, dir);
    // The stores travel as .shared::cluster accesses naming the receiver's barrier and bytes.
    EXPECT_NE(r.trace.find(".async."), std::string::npos);
    EXPECT_NE(r.trace.find(" mbar=0x"), std::string::npos);
    EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
    EXPECT_EQ(r.direct, r.replay);
  }
  // Ampere has no clusters: the launch file says so before anything runs.
  auto c = test::run_cli({"run", "--arch", "a100", test::source_path("traces/kernels/async_store_ring.launch.yaml"), "-q"});
  EXPECT_NE(c.exit_code, 0);
}

// One thread walks an mbarrier through its phases (count 2):
//   expect_tx 16, arrive_drop (1 of 2 arrived, and later phases expect 1), complete_tx 16:
//   phase 0 still waits for one arrival -> out[0] = 0
//   arrive: phase 0 completes -> out[1] = 1
//   arrive: phase 1 completes with this one arrival, the dropped one gone -> out[2] = 1
//   complete_tx 8 before its expect_tx: the count goes negative and phase 2 waits -> out[3] = 0
//   expect_tx 8 then arrive: phase 2 completes -> out[4] = 1
std::string phases_kernel(const std::string& extra = "") {
  return R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, bar;
  mbarrier.init.shared.b64 [%r1], 2;
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 16;
  mbarrier.arrive_drop.shared.b64 %rd2, [%r1];
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], 16;
  mbarrier.test_wait.parity.shared.b64 %p1, [%r1], 0;
  mbarrier.arrive.shared.b64 %rd3, [%r1];
  mbarrier.test_wait.parity.shared.b64 %p2, [%r1], 0;
  mbarrier.arrive.shared.b64 %rd4, [%r1];
  mbarrier.test_wait.parity.shared.b64 %p3, [%r1], 1;
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], 8;
  mbarrier.test_wait.parity.shared.b64 %p4, [%r1], 0;
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 8;
)" + extra + R"(  mbarrier.arrive.shared.b64 %rd5, [%r1];
  mbarrier.test_wait.parity.shared.b64 %p5, [%r1], 0;
  selp.u32 %r2, 1, 0, %p1;
  selp.u32 %r3, 1, 0, %p2;
  selp.u32 %r4, 1, 0, %p3;
  selp.u32 %r5, 1, 0, %p4;
  selp.u32 %r6, 1, 0, %p5;
  st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};
  st.global.u32 [%rd1+16], %r6;
  ret;
}
)";
}

TEST(AsyncStorePtx, CompleteTxAndArriveDropMoveThePhasesAsThePtxIsaSays) {
  // The timing model replays the same contributions: a phase it did not complete would leave the
  // waits (which the emulator saw succeed) stuck, and the run would fail.
  EXPECT_EQ(test::run_words("h100", phases_kernel(), 5), (std::vector<uint32_t>{0, 1, 1, 0, 1}));
  // .noComplete on an arrive that completes the phase is undefined in the PTX ISA: a fault.
  test::TempDir dir;
  dir.write("k.ptx", phases_kernel("  mbarrier.arrive.noComplete.shared.b64 %rd6, [%r1], 1;\n"));
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [1]\nargs:\n  - {buffer: {name: out, elem: u32, count: 5}}\n");
  auto r = test::run_cli({"run", "--arch", "h100", launch, "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.ptx:24:1: mbarrier.arrive.noComplete at shared 0x0 completes the phase, which the PTX ISA leaves undefined"),
            std::string::npos) << r.err;
}

// Two CTAs of a cluster; rank 1's lanes store into rank 0's word array with `store` ([%r4]: the
// mapped array; %r6: the barrier named by `barrier`), and rank 0 expects 128 bytes and waits.
std::string pair_kernel(const std::string& store, const std::string& barrier = "  mapa.shared::cluster.u32 %r6, %r5, 0;\n") {
  return R"(.version 8.1
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
.reqnctapercluster 2, 1, 1
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b32 words[32];
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, %tid.x;
  mov.u32 %r5, bar;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra INITED;
  mbarrier.init.shared.b64 [%r5], 1;
INITED:
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra SEND;
  @%p1 bra WAIT;
  mbarrier.arrive.expect_tx.shared.b64 %rd2, [%r5], 128;
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p3, [%r5], 0;
  @!%p3 bra WAIT;
  mov.u32 %r7, words;
  shl.b32 %r8, %r2, 2;
  add.u32 %r9, %r7, %r8;
  ld.shared.u32 %r10, [%r9];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r10;
  ret;
SEND:
  mov.u32 %r3, words;
  mapa.shared::cluster.u32 %r4, %r3, 0;
  shl.b32 %r8, %r2, 2;
  add.u32 %r4, %r4, %r8;
  mul.lo.u32 %r11, %r2, 3;
)" + barrier + store + R"(  ret;
}
)";
}

std::string pair_launch(test::TempDir& dir, const std::string& ptx, const std::string& extra = "") {
  dir.write("k.ptx", ptx);
  return dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [2]\nblock: [32]\n" + extra +
                                    "args:\n  - {buffer: {name: out, elem: u32, count: 32}}\ndump: [out]\n");
}

TEST(AsyncStorePtx, RemoteStoresLandBeforeTheReceiversPhaseCompletes) {
  test::TempDir dir;
  auto r = test::run_cli({"run", "--arch", "h100", pair_launch(dir, pair_kernel("  st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r4], %r11, [%r6];\n")),
                          "--dump-dir", dir.path(""), "--checks", "error"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<uint32_t> expected;
  for (uint32_t t = 0; t < 32; ++t) expected.push_back(3 * t);
  const std::string out = test::read_file(dir.path("out.bin"));
  ASSERT_EQ(out.size(), 128u);
  EXPECT_EQ(std::vector<uint32_t>(reinterpret_cast<const uint32_t*>(out.data()), reinterpret_cast<const uint32_t*>(out.data()) + 32), expected);
}

// A CTA may st.async into its own shared memory (its own rank, or no rank bits): a banked shared
// store whose bytes complete on its own barrier, with nothing crossing the network.
TEST(AsyncStorePtx, AStoreIntoTheIssuingCtaCompletesLocally) {
  const std::string ptx = R"(.version 8.1
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
.reqnctapercluster 1, 1, 1
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  .shared .align 16 .b32 words[32];
  mov.u32 %r2, %tid.x;
  mov.u32 %r5, bar;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra INITED;
  mbarrier.init.shared.b64 [%r5], 1;
  mbarrier.arrive.expect_tx.shared.b64 %rd2, [%r5], 128;
INITED:
  bar.sync 0;
  mov.u32 %r3, words;
  shl.b32 %r8, %r2, 2;
  add.u32 %r4, %r3, %r8;
  mul.lo.u32 %r11, %r2, 5;
  st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r4], %r11, [%r5];
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p3, [%r5], 0;
  @!%p3 bra WAIT;
  ld.shared.u32 %r10, [%r4];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r10;
  ret;
}
)";
  std::vector<uint32_t> expected;
  for (uint32_t t = 0; t < 32; ++t) expected.push_back(5 * t);
  EXPECT_EQ(test::run_words("h100", ptx, 32, 32), expected);
  test::TempDir dir;
  auto r = test::run_cli({"trace", "--arch", "h100", dir.write("k.launch.yaml", "ptx: " + dir.write("k.ptx", ptx) +
                                                                                  "\nkernel: k\ngrid: [1]\nblock: [32]\nargs:\n  - {buffer: {name: out, elem: u32, count: 32}}\n"),
                          "-o", dir.path("k.trace")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto run = test::simulate_text("h100", test::read_file(dir.path("k.trace")));
  EXPECT_EQ(run.sum("gpu.sm[*].dsmem.requests"), 0u);  // nothing crossed the network
  EXPECT_EQ(run.sum("gpu.sm[*].remote_mbarrier_signals"), 0u);
}

TEST(AsyncStorePtx, MisuseIsAFaultAtItsLine) {
  test::TempDir dir;
  // The barrier in the sender's own CTA while the store goes to rank 0.
  auto r = test::run_cli({"run", "--arch", "h100",
                          pair_launch(dir, pair_kernel("  st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r4], %r11, [%r6];\n",
                                                       "  mapa.shared::cluster.u32 %r6, %r5, 1;\n")),
                          "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.ptx:44:1: shared::cluster 0x1000010 and its mbarrier at 0x2000000 are in different CTAs of the cluster"), std::string::npos)
      << r.err;
  // A 64-bit store at a 4-byte aligned address.
  r = test::run_cli({"run", "--arch", "h100",
                     pair_launch(dir, pair_kernel("  cvt.u64.u32 %rd5, %r11;\n  st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.b64 [%r4+4], %rd5, [%r6];\n")),
                     "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.ptx:45:1: misaligned 8-byte st.async at shared::cluster 0x1000014"), std::string::npos) << r.err;
  // Fewer bytes than the receiver expects (16 lanes of 4 bytes short): its phase never
  // completes, which is reported at its wait as soon as nothing in the cluster can change it
  // (the instruction limit only bounds the run should that report fail).
  r = test::run_cli({"run", "--arch", "h100",
                     pair_launch(dir, pair_kernel("  setp.lt.u32 %p3, %r2, 16;\n  @%p3 st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r4], %r11, [%r6];\n"),
                                 "max_warp_instructions: 20000\n"),
                     "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.ptx:26:1: warp 0 of CTA (0,0,0) waits forever on the mbarrier at shared 0x0: its phase 0 (waited for with parity 0) has "
                       "had its 1 arrival but 64 of the transaction bytes expect_tx announced never arrive"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("nothing in its cluster can change that (its warps: 1 polling in loops that write nothing, 0 at barriers, 0 exited; 1 CTA has exited)"),
            std::string::npos)
      << r.err;
  // The forms warpsim does not model are refused where they are written.
  r = test::run_cli({"run", "--arch", "h100", pair_launch(dir, pair_kernel("  st.async.release.gpu.global.b32 [%rd1], %r11;\n")), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("st.async is modelled in its .shared::cluster form completing on an mbarrier"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
