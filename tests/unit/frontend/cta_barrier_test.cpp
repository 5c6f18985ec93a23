// The CTA's sixteen barriers in the PTX emulator (PTX ISA, "bar, barrier"): named barriers with
// thread counts, bar.arrive, bar.red; and the race checker's happens-before through them and
// through mbarriers. Expected values are worked out from the kernels' arithmetic by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "config/load_config.h"
#include "frontend/ptx/launch.h"
#include "gpu/gpu.h"
#include "gpu/simulation.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using test::TempDir;

const char* kBarrierHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

// Producer/consumer over one 64-word shared buffer for four rounds (the PTX ISA's example):
// warps 0-1 write s[tid] = 100 round + tid and arrive at barrier 1; warps 2-3 wait there, add
// s[tid - 64] to a sum and arrive at barrier 2, which the producers wait at before the next round.
// Consumer c stores 0 + 100 + 200 + 300 + 4c = 600 + 4c to out[c]. Racy variants: consumers
// that do not wait (`consumer_wait` empty), or that say "empty" before they read (`early_release`).
std::string pipeline(const std::string& consumer_wait = "bar.sync 1, 128;", bool early_release = false) {
  const std::string release = "  @%p2 bar.arrive 2, 128;\n";
  return std::string(kBarrierHeader) + R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  .shared .align 4 .b32 s[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  mov.u32 %r10, 0;
  mov.u32 %r11, 0;
  setp.ge.u32 %p1, %r1, 64;
  @%p1 bra CONSUMER;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
PRODUCE:
  mul.lo.u32 %r5, %r10, 100;
  add.u32 %r5, %r5, %r1;
  st.shared.u32 [%r4], %r5;
  bar.arrive 1, 128;
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p2, %r10, 4;
  @!%p2 bra DONE;
  bar.sync 2, 128;
  bra PRODUCE;
CONSUMER:
  sub.u32 %r6, %r1, 64;
  shl.b32 %r3, %r6, 2;
  add.u32 %r4, %r2, %r3;
CONSUME:
  )" + consumer_wait + R"(
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p2, %r10, 4;
)" + (early_release ? release : "") + R"(
  ld.shared.u32 %r7, [%r4];
  add.u32 %r11, %r11, %r7;
)" + (early_release ? "" : release) + R"(
  @%p2 bra CONSUME;
  mul.wide.u32 %rd2, %r6, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r11;
DONE:
  ret;
}
)";
}

// Runs `ptx` (entry k, one .u64 parameter) with one CTA of `threads` threads on h100, checkers
// on, and returns what they found.
std::vector<ptx::Finding> findings_of(const std::string& ptx, uint32_t threads, uint32_t words = 64) {
  TempDir dir;
  dir.write("k.ptx", ptx);
  const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [" + std::to_string(threads) +
                                                            "]\nargs:\n  - {buffer: {name: out, elem: u32, count: " + std::to_string(words) + "}}\n");
  LoadedConfig c = load_gpu_config("h100");
  ptx::PtxWorkload w(launch, 90);
  Gpu gpu(c.spec);
  simulate(gpu, w);
  return w.findings().list;
}

size_t races(const std::vector<ptx::Finding>& f) {
  size_t n = 0;
  for (const auto& x : f) n += x.kind == "race";
  return n;
}

TEST(CtaBarriers, NamedBarriersHandOffInProgramOrder) {
  const auto out = test::run_words("h100", pipeline(), 64, 128);
  ASSERT_EQ(out.size(), 64u);
  for (uint32_t c = 0; c < 64; ++c) EXPECT_EQ(out[c], 600 + 4 * c) << "consumer " << c;
  EXPECT_EQ(races(findings_of(pipeline(), 128)), 0u);
}

bool mentions(const std::vector<ptx::Finding>& f, const std::string& text) {
  for (const auto& x : f)
    if (x.kind == "race" && x.message.find(text) != std::string::npos) return true;
  return false;
}

// The race checker orders accesses through exactly the phases warps arrive in and wait for.
TEST(CtaBarriers, RaceCheckerFollowsTheHandOff) {
  // Consumers that do not wait for "full" read the producers' stores unordered.
  const auto no_consumer_wait = findings_of(pipeline(""), 128);
  EXPECT_GT(races(no_consumer_wait), 0u);
  EXPECT_TRUE(mentions(no_consumer_wait, "thread (64,0,0)")) << no_consumer_wait.front().message;
  // Consumers that say "empty" before they read race with the producers' next stores.
  const auto early = findings_of(pipeline("bar.sync 1, 128;", true), 128);
  EXPECT_GT(races(early), 0u);
}

// One warp's tree reduction of s[lane] = lane in shared memory, the warp-synchronous idiom:
// lanes below 16, 8, 4, 2, 1 add s[lane + step] to s[lane]. Under independent thread scheduling
// the lanes need not run in step, so each step must be separated by __syncwarp (bar.warp.sync);
// without it lane 0 reads s[16] that lane 16 wrote with nothing ordering them (a race; the
// emulator still computes 496). Volatile (strong) accesses are not a data race in the PTX memory
// model, so the old volatile idiom is not reported.
std::string warp_reduction(const std::string& sync, const std::string& qualifier = "") {
  std::string body = R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<2>;
  .reg .pred %p<3>;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared{Q}.u32 [%r4], %r1;
  {SYNC}
  setp.lt.u32 %p1, %r1, 16;
  @%p1 ld.shared{Q}.u32 %r5, [%r4+64];
  @%p1 ld.shared{Q}.u32 %r6, [%r4];
  add.u32 %r6, %r6, %r5;
  @%p1 st.shared{Q}.u32 [%r4], %r6;
  {SYNC}
  setp.lt.u32 %p1, %r1, 8;
  @%p1 ld.shared{Q}.u32 %r5, [%r4+32];
  @%p1 ld.shared{Q}.u32 %r6, [%r4];
  add.u32 %r6, %r6, %r5;
  @%p1 st.shared{Q}.u32 [%r4], %r6;
  {SYNC}
  setp.lt.u32 %p1, %r1, 4;
  @%p1 ld.shared{Q}.u32 %r5, [%r4+16];
  @%p1 ld.shared{Q}.u32 %r6, [%r4];
  add.u32 %r6, %r6, %r5;
  @%p1 st.shared{Q}.u32 [%r4], %r6;
  {SYNC}
  setp.lt.u32 %p1, %r1, 2;
  @%p1 ld.shared{Q}.u32 %r5, [%r4+8];
  @%p1 ld.shared{Q}.u32 %r6, [%r4];
  add.u32 %r6, %r6, %r5;
  @%p1 st.shared{Q}.u32 [%r4], %r6;
  {SYNC}
  setp.lt.u32 %p1, %r1, 1;
  @%p1 ld.shared{Q}.u32 %r5, [%r4+4];
  @%p1 ld.shared{Q}.u32 %r6, [%r4];
  add.u32 %r6, %r6, %r5;
  @%p1 st.shared{Q}.u32 [%r4], %r6;
  {SYNC}
  setp.eq.u32 %p2, %r1, 0;
  @%p2 ld.shared{Q}.u32 %r7, [%r2];
  @%p2 st.global.u32 [%rd1], %r7;
  ret;
}
)";
  for (size_t at; (at = body.find("{SYNC}")) != std::string::npos;) body.replace(at, 6, sync);
  for (size_t at; (at = body.find("{Q}")) != std::string::npos;) body.replace(at, 3, qualifier);
  return std::string(kBarrierHeader) + body;
}

TEST(CtaBarriers, WarpSynchronousCodeNeedsSyncwarp) {
  for (const char* sync : {"", "bar.warp.sync -1;"}) {
    const std::string ptx = warp_reduction(sync);
    const auto f = findings_of(ptx, 32, 1);
    if (*sync) {
      EXPECT_EQ(test::run_words("h100", ptx, 1, 32).at(0), 496u);
      EXPECT_EQ(races(f), 0u) << f.front().message;
    } else {
      EXPECT_GT(races(f), 0u);
      EXPECT_TRUE(mentions(f, "thread (0,0,0) of CTA (0,0,0) reads shared 0x40, which thread (16,0,0) of CTA (0,0,0) wrote at")) << (f.empty() ? "" : f.front().message);
      EXPECT_TRUE(mentions(f, "with no __syncwarp (bar.warp.sync) or barrier ordering them"));
    }
  }
  EXPECT_EQ(races(findings_of(warp_reduction("", ".volatile"), 32, 1)), 0u);
  EXPECT_EQ(test::run_words("h100", warp_reduction("", ".volatile"), 1, 32).at(0), 496u);
}

// bar.red over the CTA's 96 threads, then over barrier 1 with 64 threads (warps 0-1 only):
// popc of (tid % 3 == 0) is 32; and of (tid < 96) is 1; or of (tid == 95) is 1, of !(tid < 96) 0;
// popc of odd tids among 64 threads is 32.
TEST(CtaBarriers, BarRedReducesOverItsPhase) {
  const auto out = test::run_words("h100", std::string(kBarrierHeader) + R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .reg .pred %p<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 3;
  setp.eq.u32 %p1, %r2, 0;
  bar.red.popc.u32 %r3, 0, %p1;
  setp.lt.u32 %p2, %r1, 96;
  bar.red.and.pred %p3, 0, %p2;
  setp.eq.u32 %p4, %r1, 95;
  barrier.red.or.aligned.pred %p5, 0, %p4;
  bar.red.or.pred %p6, 0, !%p2;
  selp.u32 %r4, 1, 0, %p3;
  selp.u32 %r5, 1, 0, %p5;
  selp.u32 %r6, 1, 0, %p6;
  mov.u32 %r7, 99;
  setp.ge.u32 %p7, %r1, 64;
  @%p7 bra WRITE;
  and.b32 %r8, %r1, 1;
  setp.ne.u32 %p1, %r8, 0;
  bar.red.popc.u32 %r7, 1, 64, %p1;
WRITE:
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};
  st.global.u32 [%rd3+16], %r7;
  ret;
}
)",
                                   96 * 8, 96);
  ASSERT_EQ(out.size(), 96u * 8);
  for (uint32_t t = 0; t < 96; ++t) {
    EXPECT_EQ(out[t * 8 + 0], 32u) << t;
    EXPECT_EQ(out[t * 8 + 1], 1u) << t;
    EXPECT_EQ(out[t * 8 + 2], 1u) << t;
    EXPECT_EQ(out[t * 8 + 3], 0u) << t;
    EXPECT_EQ(out[t * 8 + 4], t < 64 ? 32u : 99u) << t;
  }
}

// A barrier without a thread count waits for the warps that have not exited: warp 0 exits, the
// others (threads 32-95) exchange through shared memory around bar.sync 0: t reads t ^ 96.
TEST(CtaBarriers, DefaultCountIgnoresExitedWarps) {
  const auto out = test::run_words("h100", std::string(kBarrierHeader) + R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  .shared .align 4 .b32 s[96];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra DONE;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  mul.lo.u32 %r5, %r1, 7;
  st.shared.u32 [%r4], %r5;
  bar.sync 0;
  xor.b32 %r6, %r1, 96;
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r2, %r7;
  ld.shared.u32 %r9, [%r8];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
DONE:
  ret;
}
)",
                                   96, 96);
  ASSERT_EQ(out.size(), 96u);
  for (uint32_t t = 32; t < 96; ++t) EXPECT_EQ(out[t], (t ^ 96) * 7) << t;
}

// Misuse is a located error naming what the PTX ISA requires, never a hang.
TEST(CtaBarriers, MisuseIsAClearError) {
  auto run = [](const std::string& body, uint32_t threads) {
    TempDir dir;
    dir.write("k.ptx", std::string(kBarrierHeader) + ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<4>;\n  .reg .pred %p<2>;\n  mov.u32 %r1, %tid.x;\n" +
                           body + "  ret;\n}\n");
    const std::string launch = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [" + std::to_string(threads) +
                                                              "]\nargs:\n  - {buffer: {name: out, elem: u32, count: 1}}\n");
    return test::run_cli({"run", "--arch", "h100", launch});
  };
  for (const auto& [body, threads, message] : std::vector<std::tuple<std::string, uint32_t, std::string>>{
           {"  bar.sync 16;\n", 64, "barrier 16: the PTX ISA names a CTA's barriers 0 to 15"},
           {"  bar.sync 1, 48;\n", 64, "thread count 48: the PTX ISA requires a non-zero multiple of the warp size"},
           {"  bar.sync 1, 256;\n", 64, "expects 256 threads, more than the CTA's 2 warps hold"},
           {"  setp.lt.u32 %p1, %r1, 32;\n  selp.u32 %r2, 64, 128, %p1;\n  bar.sync 1, %r2;\n", 128,
            "while its phase under way expects"},
           {"  setp.lt.u32 %p1, %r1, 32;\n  @%p1 bra END;\n  bar.sync 1, 128;\nEND:\n", 128,
            "barrier 1 can never complete in CTA (0,0,0): its phase expects 128 threads (4 warps), more than can still arrive"}}) {
    const auto r = run(body, threads);
    EXPECT_EQ(r.exit_code, 3) << body << r.err;
    EXPECT_NE(r.err.find("k.ptx:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << body << r.err;
  }
}

// A producer warp hands a tile to consumer warp 1 through an mbarrier (one arrival per phase):
// warp 1's reads after its wait are ordered after warp 0's stores; warp 2, which reads the same
// words without waiting, races with them. Reads come before writes the next round only through
// the "empty" barrier warp 1 arrives on.
std::string mbarrier_handoff(const std::string& warp2) {
  return std::string(kBarrierHeader) + R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<6>;
  .reg .pred %p<4>;
  .shared .align 8 .b64 full;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  mov.u32 %r4, full;
  mov.u32 %r5, s;
  shl.b32 %r6, %r3, 2;
  add.u32 %r7, %r5, %r6;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INIT_DONE;
  mbarrier.init.shared.b64 [%r4], 1;
INIT_DONE:
  bar.sync 0;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra NOT_PRODUCER;
  mul.lo.u32 %r8, %r3, 3;
  st.shared.u32 [%r7], %r8;
  setp.ne.u32 %p2, %r3, 0;
  @%p2 bra DONE;
  mbarrier.arrive.shared.b64 %rd2, [%r4];
  bra DONE;
NOT_PRODUCER:
  setp.ne.u32 %p1, %r2, 1;
  @%p1 bra WARP2;
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p3, [%r4], 0;
  @!%p3 bra WAIT;
  ld.shared.u32 %r9, [%r7];
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r9;
  bra DONE;
WARP2:
)" + warp2 + R"(
DONE:
  ret;
}
)";
}

TEST(CtaBarriers, MbarrierHandOffOrdersOnlyTheWarpsInIt) {
  const auto quiet = findings_of(mbarrier_handoff(""), 96, 32);
  EXPECT_EQ(races(quiet), 0u) << (quiet.empty() ? "" : quiet.front().message);
  const auto racy = findings_of(mbarrier_handoff("  ld.shared.u32 %r10, [%r7];\n  add.u32 %r10, %r10, 1;\n"), 96, 32);
  ASSERT_EQ(races(racy), 1u);
  EXPECT_NE(racy.front().message.find("thread (64,0,0)"), std::string::npos) << racy.front().message;
  EXPECT_EQ(test::run_words("h100", mbarrier_handoff(""), 32, 96), [] {
    std::vector<uint32_t> v(32);
    for (uint32_t i = 0; i < 32; ++i) v[i] = 3 * i;
    return v;
  }());
}

// Warp 0 reads s[lane] as soon as the CTA's barrier lets it; warp 1 spins a while, then reads
// s[lane] and writes it back plus one. Nothing orders warp 0's read before warp 1's write (a
// write-after-read race) unless `order` adds a hand-off through named barrier 1. Warp 1's own
// read comes last, so a checker that kept only each word's latest reader would miss the race:
// two unordered readers of a word are both remembered until a write orders them away.
std::string read_then_late_write(bool order) {
  return std::string(kBarrierHeader) + R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  mov.u32 %r4, s;
  shl.b32 %r5, %r3, 2;
  add.u32 %r6, %r4, %r5;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra INIT_DONE;
  st.shared.u32 [%r6], %r3;
INIT_DONE:
  bar.sync 0;
  @%p1 bra LATE;
  ld.shared.u32 %r7, [%r6];
)" + (order ? "  bar.arrive 1, 64;\n" : "") + R"(
  bra DONE;
LATE:
  mov.u32 %r8, 0;
DELAY:
  add.u32 %r8, %r8, 1;
  setp.lt.u32 %p2, %r8, 200;
  @%p2 bra DELAY;
  ld.shared.u32 %r7, [%r6];
  add.u32 %r7, %r7, 1;
)" + (order ? "  bar.sync 1, 64;\n" : "") + R"(
  st.shared.u32 [%r6], %r7;
DONE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}
)";
}

TEST(CtaBarriers, EveryUnorderedReaderOfAWordIsRemembered) {
  const auto racy = findings_of(read_then_late_write(false), 64);
  ASSERT_EQ(races(racy), 1u);
  // Reported at warp 1's store, naming warp 0's read (thread 0 of each is the first lane found).
  EXPECT_NE(racy.front().message.find("thread (32,0,0) of CTA (0,0,0) writes shared 0x0, which thread (0,0,0) of CTA (0,0,0) read at"),
            std::string::npos)
      << racy.front().message;
  const auto quiet = findings_of(read_then_late_write(true), 64);
  EXPECT_EQ(races(quiet), 0u) << (quiet.empty() ? "" : quiet.front().message);
  // Warp 0 read lane, warp 1 lane + 1, whichever order ran.
  std::vector<uint32_t> expect(64);
  for (uint32_t t = 0; t < 64; ++t) expect[t] = (t % 32) + t / 32;
  EXPECT_EQ(test::run_words("h100", read_then_late_write(true), 64, 64), expect);
}

// 1024 threads each write their own 8 words of a 32 KiB buffer, then read them and the 8 words of
// the thread 32 above (another warp's): 8192 words read by two warps with nothing ordering the
// reads, twice what the checker's 1 MiB of per-warp read records holds for 32 warps (4096
// words). Past that the words keep their latest reader; without a barrier before the store the
// race between it and the other warp's read is still found (one pair of lines, whichever ran
// first: a store can also come before the read it races with), and with the barrier nothing is.
std::string many_shared_readers(bool barrier_before_store) {
  return std::string(kBarrierHeader) + R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<28>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b32 s[8192];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 5;
  add.u32 %r4, %r2, %r3;
  st.shared.v4.u32 [%r4], {%r1, %r1, %r1, %r1};
  st.shared.v4.u32 [%r4+16], {%r1, %r1, %r1, %r1};
  bar.sync 0;
  add.u32 %r5, %r1, 32;
  and.b32 %r5, %r5, 1023;
  shl.b32 %r6, %r5, 5;
  add.u32 %r7, %r2, %r6;
  ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [%r4];
  ld.shared.v4.u32 {%r12, %r13, %r14, %r15}, [%r4+16];
  ld.shared.v4.u32 {%r16, %r17, %r18, %r19}, [%r7];
  ld.shared.v4.u32 {%r20, %r21, %r22, %r23}, [%r7+16];
  add.u32 %r24, %r8, %r16;
  add.u32 %r24, %r24, %r23;
)" + (barrier_before_store ? "  bar.sync 0;\n" : "") + R"(
  st.shared.u32 [%r4], %r24;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r24;
  ret;
}
)";
}

TEST(CtaBarriers, ReadersPastTheRecordPoolAreStillChecked) {
  const auto racy = findings_of(many_shared_readers(false), 1024, 1024);
  EXPECT_EQ(races(racy), 1u) << (racy.empty() ? "" : racy.front().message);
  const auto quiet = findings_of(many_shared_readers(true), 1024, 1024);
  EXPECT_EQ(races(quiet), 0u) << (quiet.empty() ? "" : quiet.front().message);
  // Thread t: its own word (t) plus two of thread (t + 32) mod 1024's.
  std::vector<uint32_t> expect(1024);
  for (uint32_t t = 0; t < 1024; ++t) expect[t] = t + 2 * ((t + 32) % 1024);
  EXPECT_EQ(test::run_words("h100", many_shared_readers(true), 1024, 1024), expect);
}

// A flag in shared memory: warp 0 writes data, then sets the flag with st.release (or an atomic
// exchange); warp 1 spins on ld.acquire until it sees the flag, then reads the data. The checker
// takes strong accesses and atomics to release and acquire through their word, so the hand-off
// is ordered; reading the data before the spin is a race.
std::string flag_handoff(const std::string& set_flag, bool read_before_spin) {
  const std::string read = "  ld.shared.u32 %r9, [%r7];\n";
  return std::string(kBarrierHeader) + R"(.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<6>;
  .reg .pred %p<4>;
  .shared .align 4 .b32 flag;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  mov.u32 %r4, flag;
  mov.u32 %r5, s;
  shl.b32 %r6, %r3, 2;
  add.u32 %r7, %r5, %r6;
  mov.u32 %r8, 1;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra CONSUMER;
  mul.lo.u32 %r10, %r3, 5;
  st.shared.u32 [%r7], %r10;
)" + set_flag + R"(
  bra DONE;
CONSUMER:
)" + (read_before_spin ? read : "") + R"(
SPIN:
  ld.acquire.cta.shared.u32 %r11, [%r4];
  setp.eq.u32 %p2, %r11, 0;
  @%p2 bra SPIN;
)" + (read_before_spin ? "" : read) + R"(
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
DONE:
  ret;
}
)";
}

TEST(CtaBarriers, FlagsInMemoryOrderTheirHandOff) {
  const std::string release = "  st.release.cta.shared.u32 [%r4], %r8;\n";
  const std::string exchange = "  atom.exch.shared.b32 %r12, [%r4], %r8;\n";
  for (const auto& set : {release, exchange}) {
    const auto quiet = findings_of(flag_handoff(set, false), 64, 32);
    EXPECT_EQ(races(quiet), 0u) << set << (quiet.empty() ? "" : quiet.front().message);
    EXPECT_GT(races(findings_of(flag_handoff(set, true), 64, 32)), 0u) << set;
  }
  // The consumer reads what the producer wrote, under either reconvergence model's order.
  const auto out = test::run_words("h100", flag_handoff(release, false), 32, 64);
  ASSERT_EQ(out.size(), 32u);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(out[i], 5 * i);
}

// The shipped warp-specialised kernels replay from their traces (barrier ids and counts in
// `bar=`/`threads=`, bar.red's destination) with the statistics of the direct run.
TEST(CtaBarriers, ShippedKernelsReplayFromTheirTraces) {
  test::TempDir dir;
  for (const char* k : {"named_pipeline", "sync_reduce", "mbarrier_pipeline"}) {
    const auto r = test::run_and_replay("h100", test::source_path(std::string("traces/kernels/") + k + ".launch.yaml"), dir);
    EXPECT_EQ(r.direct.rfind("error", 0), std::string::npos) << r.direct;
    EXPECT_EQ(r.direct, r.replay) << k;
  }
  const auto r = test::run_and_replay("h100", test::source_path("traces/kernels/named_pipeline.launch.yaml"), dir);
  EXPECT_NE(r.trace.find("bar.arrive %r"), std::string::npos);
  EXPECT_NE(r.trace.find("; bar=1 threads=384"), std::string::npos);
}

// While a warp waits at a barrier the others run ahead, but not through a spin on an mbarrier:
// under independent thread scheduling a spinning warp is not seen as blocked, and running it
// greedily recorded spin iterations by the million (tma_multicast took 54 s instead of 0.04 s).
// The kernel's dynamic instructions stay within a few percent of the stack model's.
TEST(CtaBarriers, WaitingDoesNotRunSpinsAhead) {
  const std::string launch = test::source_path("traces/kernels/tma_multicast.launch.yaml");
  auto count = [&](const std::string& mode) {
    const auto r = test::run_cli({"run", "--arch", "h100", "--reconvergence", mode, launch});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto at = r.out.find("warp instructions");
    return at == std::string::npos ? 0.0 : std::stod(r.out.substr(at + 17));
  };
  const double stack = count("stack"), independent = count("independent");
  ASSERT_GT(stack, 0.0);
  EXPECT_LT(independent, stack * 1.1);
  EXPECT_GT(independent, stack * 0.9);
}

}  // namespace
}  // namespace warpsim
