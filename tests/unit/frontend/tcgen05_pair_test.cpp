// Blackwell's CTA-pair MMAs (tcgen05 .cta_group::2) in the PTX emulator: the shipped 2-SM GEMM
// (whose results the kernel reference check compares with Python's) replays from its trace, and
// the misuses the PTX ISA forbids or warpsim does not model are errors naming what is wrong.
#include <gtest/gtest.h>

#include <functional>
#include <regex>
#include <string>

#include "support/test_support.h"

namespace warpsim {
namespace {

const char* const kLaunch = "traces/kernels/tcgen05_pair.launch.yaml";
const char* const kPtx = "traces/kernels/ptx/tcgen05_pair.sm_100a.ptx";

TEST(Tcgen05Pair, ShippedPairGemmReplaysFromItsTrace) {
  test::TempDir dir;
  const auto r = test::run_and_replay("b200", test::source_path(kLaunch), dir);
  EXPECT_NE(r.trace.find("tcgen05.mma.cta_group::2.kind::f16.m256n256k16.f32.f16.f16"), std::string::npos);
  // The commit arrives on the mbarrier of both CTAs of the pair, in the timing model too.
  EXPECT_NE(r.trace.find(".multicast::cluster.b64 %r176, %rs20; mbar=0x8008 arrive=1 mcast=0x3"), std::string::npos);
  EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
}

// Runs the shipped pair GEMM with its PTX changed by `edit`; returns the CLI's result.
test::CliResult run_edited(test::TempDir& dir, const std::function<std::string(std::string)>& edit) {
  std::string launch = test::read_file(test::source_path(kLaunch));
  launch = launch.substr(0, launch.find("dump:"));
  launch.replace(launch.find("ptx/tcgen05_pair.sm_100a.ptx"), 28, "k.ptx");
  dir.write("k.ptx", edit(test::read_file(test::source_path(kPtx))));
  return test::run_cli({"run", "--arch", "b200", dir.write("k.launch.yaml", launch), "-q"});
}

std::string replace_first(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << "the kernel's PTX has no '" << from << "'";
  return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

TEST(Tcgen05Pair, MisuseIsAnErrorNamingWhatIsWrong) {
  test::TempDir dir;
  // The PTX ISA: one .cta_group for all of a kernel's tcgen05 instructions.
  auto r = run_edited(dir, [](std::string p) { return replace_first(p, "tcgen05.relinquish_alloc_permit.cta_group::2", "tcgen05.relinquish_alloc_permit.cta_group::1"); });
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(k\.ptx:\d+:\d+: 'tcgen05\.relinquish_alloc_permit\.cta_group::1\.sync\.aligned' names \.cta_group::1 where line 63 names \.cta_group::2; all tcgen05 instructions of a kernel must name the same \.cta_group)")))
      << r.err;
  // Without its cluster, a CTA has no peer.
  r = run_edited(dir, [](std::string p) { return replace_first(replace_first(p, ".explicitcluster\n", ""), ".reqnctapercluster 2, 1, 1\n", ""); });
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(".cta_group::2 spans a pair of CTAs of one cluster (ranks 2i and 2i + 1); the CTA of rank 0 has no peer in its cluster of 1"),
            std::string::npos)
      << r.err;
  // M = 128 over a pair (64 rows a CTA) is not modelled; the instruction descriptor says M / 16 in bits 24-28.
  const uint32_t m128 = (1u << 4) | ((256u >> 3) << 17) | ((128u >> 4) << 24);
  r = run_edited(dir, [&](std::string p) {
    return std::regex_replace(p, std::regex(R"((tcgen05\.mma\.cta_group::2\.kind::f16 \[%r5\], %rd\d+, %rd\d+,) %r174(, p;))"),
                              "$1 " + std::to_string(m128) + "$2");
  });
  EXPECT_NE(r.err.find("M = 128 over a CTA pair (64 rows in each CTA's tensor memory) is not modelled"), std::string::npos) << r.err;
  r = run_edited(dir, [](std::string p) { return replace_first(p, "tcgen05.mma.cta_group::2.kind::f16 [%r5], %rd37,", "tcgen05.mma.cta_group::2.kind::f16 [%r5], [%r5],"); });
  EXPECT_NE(r.err.find("A from tensor memory over a CTA pair is not modelled"), std::string::npos) << r.err;
  // A multicast commit to no CTA.
  r = run_edited(dir, [](std::string p) { return replace_first(p, "[%r176], %rs20;", "[%r176], 0;"); });
  EXPECT_NE(r.err.find("tcgen05.commit with .multicast::cluster and an empty CTA mask"), std::string::npos) << r.err;
  // Pair forms warpsim does not model are refused at their line.
  r = run_edited(dir, [](std::string p) { return replace_first(p, "\tmov.u32 %r50, %cluster_ctarank;", "\tmov.u32 %r50, %cluster_ctarank;\n\ttcgen05.cp.cta_group::2.128x256b [%r50], %rd1;"); });
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("over a CTA pair (cta_group::2), tcgen05.cp, tcgen05.shift and block-scaled MMAs are not modelled"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace warpsim
