// Thread-block clusters in the PTX emulator: the special registers, mapa/getctarank and
// .shared::cluster accesses against values worked out by hand, the shipped kernels replayed from
// their traces, and the faults and launch errors for a cluster used wrongly.
#include <gtest/gtest.h>

#include <cstring>

#include "support/test_support.h"

namespace warpsim {
namespace {

// Clusters of (2,2,1) over a grid of (4,2,1); one warp per CTA. Lane 0 of each CTA writes its
// rank into its shared word, syncs the cluster, then reads the word of rank `peer` = rank ^ 1
// through mapa.shared::cluster and records, per CTA (12 words apart): the peer's word, getctarank of the mapped
// address, %clusterid.x/y, %cluster_ctaid.x/y, %cluster_nctaid.x, %nclusterid.x and
// %is_explicit_cluster. `peer` can be replaced to plant a bad rank.
std::string cluster_kernel(const std::string& peer = "  xor.b32 %r3, %r1, 1;\n", const std::string& directives = ".reqnctapercluster 2, 2, 1\n") {
  return R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
)" + directives + R"({
  .reg .pred %p<2>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 word;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, word;
  st.shared.u32 [%r2], %r1;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
)" + peer + R"(  mapa.shared::cluster.u32 %r4, %r2, %r3;
  ld.shared::cluster.u32 %r5, [%r4];
  getctarank.shared::cluster.u32 %r6, %r4;
  mov.u32 %r7, %clusterid.x;
  mov.u32 %r8, %clusterid.y;
  mov.u32 %r9, %cluster_ctaid.x;
  mov.u32 %r10, %cluster_ctaid.y;
  mov.u32 %r11, %cluster_nctaid.x;
  mov.u32 %r12, %nclusterid.x;
  mov.u32 %r13, %is_explicit_cluster;
  mov.u32 %r14, %ctaid.x;
  mov.u32 %r15, %ctaid.y;
  mov.u32 %r16, %nctaid.x;
  mad.lo.u32 %r17, %r15, %r16, %r14;
  mul.wide.u32 %rd2, %r17, 48;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r18, %tid.x;
  setp.ne.u32 %p1, %r18, 0;
  @%p1 bra DONE;
  st.global.v4.u32 [%rd3], {%r1, %r5, %r6, %r7};
  st.global.v4.u32 [%rd3+16], {%r8, %r9, %r10, %r11};
  st.global.v2.u32 [%rd3+32], {%r12, %r13};
DONE:
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
)";
}

std::string cluster_launch(test::TempDir& dir, const std::string& ptx, const std::string& extra = "") {
  dir.write("k.ptx", ptx);
  return dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [4, 2, 1]\nblock: [32]\n" + extra +
                                        "args:\n  - {buffer: {name: out, elem: u32, count: 96}}\ndump: [out]\n");
}

TEST(ClusterPtx, SpecialRegistersMapaAndRemoteLoadsAgreeWithTheClusterLayout) {
  test::TempDir dir;
  auto r = test::run_cli({"run", "--arch", "h100", cluster_launch(dir, cluster_kernel()), "--dump-dir", dir.path(""), "--checks", "error"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out = test::read_file(dir.path("out.bin"));
  ASSERT_EQ(out.size(), 96u * 4);
  for (uint32_t y = 0; y < 2; ++y) {
    for (uint32_t x = 0; x < 4; ++x) {
      uint32_t v[10];
      std::memcpy(v, out.data() + 48 * (y * 4 + x), 40);
      // Clusters are 2 x 2: CTA (x, y) is at (x % 2, y % 2) in cluster (x / 2, y / 2); ranks go x first.
      const uint32_t rank = (x % 2) + 2 * (y % 2), peer = rank ^ 1;
      SCOPED_TRACE("CTA (" + std::to_string(x) + "," + std::to_string(y) + ")");
      EXPECT_EQ(v[0], rank);
      EXPECT_EQ(v[1], peer);  // the peer wrote its own rank into its word
      EXPECT_EQ(v[2], peer);  // getctarank of the mapped address
      EXPECT_EQ(v[3], x / 2);
      EXPECT_EQ(v[4], y / 2);
      EXPECT_EQ(v[5], x % 2);
      EXPECT_EQ(v[6], y % 2);
      EXPECT_EQ(v[7], 2u);
      EXPECT_EQ(v[8], 2u);
      EXPECT_EQ(v[9], 1u);
    }
  }
  // The same shape from the launch file agrees; a different one is refused.
  r = test::run_cli({"run", "--arch", "h100", cluster_launch(dir, cluster_kernel(), "cluster: [2, 2, 1]\n"), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli({"run", "--arch", "h100", cluster_launch(dir, cluster_kernel(), "cluster: [4, 1, 1]\n"), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("was compiled for clusters of (2,2,1) (.reqnctapercluster); the launch file asks for (4,1,1)"), std::string::npos) << r.err;
  r = test::run_cli({"run", "--arch", "h100", cluster_launch(dir, cluster_kernel("  xor.b32 %r3, %r1, 1;\n", ".explicitcluster\n")), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("is .explicitcluster: give its cluster shape with 'cluster: [x, y, z]'"), std::string::npos) << r.err;
  r = test::run_cli({"run", "--arch", "h100", cluster_launch(dir, cluster_kernel(), "cluster: [2, 2, 1]\ngrid: [3, 2, 1]\n"), "-q"});
  EXPECT_NE(r.exit_code, 0);
}

TEST(ClusterPtx, ARankOutsideTheClusterIsAFaultAtItsLine) {
  test::TempDir dir;
  auto r = test::run_cli({"run", "--arch", "h100", cluster_launch(dir, cluster_kernel("  add.u32 %r3, %r1, 4;\n")), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.ptx:19:1: shared::cluster address"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; the cluster has 4 CTAs by thread (0,0,0) of CTA"), std::string::npos) << r.err;
}

// Another CTA's mbarrier is reached by arrive, arrive_drop, expect_tx and complete_tx only (the PTX ISA's forms); a
// multicast copy's CTA mask must name CTAs of the cluster.
TEST(ClusterPtx, RemoteMbarriersAndMulticastMasksAreChecked) {
  test::TempDir dir;
  auto r = test::run_cli({"run", "--arch", "h100", cluster_launch(dir, cluster_kernel("  xor.b32 %r3, %r1, 1;\n  mbarrier.init.shared::cluster.b64 [%r2], 1;\n")), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k.ptx:18:3: 'mbarrier.init.shared::cluster.b64': the PTX ISA reaches another CTA's mbarrier (.shared::cluster) with arrive, arrive_drop, expect_tx and complete_tx only"), std::string::npos) << r.err;
  r = test::run_cli({"run", "--arch", "h100", cluster_launch(dir, cluster_kernel("  xor.b32 %r3, %r1, 1;\n  mov.u32 %r20, 16;\n"
      "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r2], [%rd1], 16, [%r2], %r20;\n")), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("multicast CTA mask 0x10 for a cluster of 4 CTAs"), std::string::npos) << r.err;
}

// The shared-memory checker across a cluster: a word another CTA stored is initialised for its
// owner (no false report when the owner reads it after barrier.cluster), and a remote read of a
// word nothing wrote is reported with the CTA it belongs to.
TEST(ClusterPtx, RemoteWritesInitialiseTheOwnersWordsAndRemoteReadsAreChecked) {
  test::TempDir dir;
  dir.write("k.ptx", R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
.reqnctapercluster 2, 1, 1
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 word[2];
  mov.u32 %r1, %cluster_ctarank;
  xor.b32 %r3, %r1, 1;
  mov.u32 %r2, word;
  mapa.shared::cluster.u32 %r4, %r2, %r3;
  add.u32 %r9, %r1, 7;
  st.shared::cluster.u32 [%r4], %r9;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ld.shared.u32 %r5, [%r2];
  ld.shared::cluster.u32 %r6, [%r4+4];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  ret;
}
)");
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [2]\nblock: [32]\n"
                                                        "args:\n  - {buffer: {name: out, elem: u32, count: 2}}\ndump: [out]\n");
  auto r = test::run_cli({"run", "--arch", "h100", launch, "--dump-dir", dir.path(""), "--checks", "warn"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out = test::read_file(dir.path("out.bin"));
  uint32_t v[2];
  std::memcpy(v, out.data(), 8);
  EXPECT_EQ(v[0], 8u);  // rank 1 stored 1 + 7 into rank 0's word
  EXPECT_EQ(v[1], 7u);
  const std::string all = r.out + r.err;
  EXPECT_EQ(all.find("reads shared 0x0,"), std::string::npos) << all;  // the remotely stored word
  EXPECT_NE(all.find("k.ptx:20: thread (0,0,0) of CTA (1,0,0) reads shared 0x4 of the cluster's CTA of rank 0, which no thread has written"),
            std::string::npos) << all;
}

// The shipped kernels replay from their traces with the same timing: the cluster shape, the
// resolved .shared::cluster accesses and the cluster barriers all travel in the trace.
TEST(ClusterPtx, ShippedKernelsReplayFromTheirTraces) {
  test::TempDir dir;
  for (const char* name : {"cluster_exchange", "cluster_histogram"}) {
    SCOPED_TRACE(name);
    const auto r = test::run_and_replay("h100", test::source_path(std::string("traces/kernels/") + name + ".launch.yaml"), dir);
    EXPECT_NE(r.trace.find("\n.cluster 4 1 1\n"), std::string::npos);
    EXPECT_NE(r.trace.find("barrier.cluster.wait"), std::string::npos);
    EXPECT_NE(r.trace.find(".shared::cluster."), std::string::npos);
    EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
    EXPECT_EQ(r.direct, r.replay);
  }
}

}  // namespace
}  // namespace warpsim
