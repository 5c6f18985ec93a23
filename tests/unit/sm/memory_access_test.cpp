// Coalescing into sectors and lines, and shared-memory bank conflicts, against hand counts.
#include <gtest/gtest.h>

#include <bit>
#include <numeric>
#include <set>

#include "sm/coalescer.h"
#include "sm/shared_banks.h"

namespace warpsim {
namespace {

struct Access {
  OpInfo op;
  WarpInst inst;
  std::vector<uint64_t> list;
  Access(const char* mnemonic, uint32_t mask, uint64_t base, int64_t stride) {
    std::string error;
    EXPECT_TRUE(decode_mnemonic(mnemonic, op, error));
    inst.op = &op;
    inst.active_mask = mask;
    inst.addr = LaneAddresses{base, stride, nullptr};
  }
  Access(const char* mnemonic, std::vector<uint64_t> addresses) : Access(mnemonic, 0, 0, 0) {
    list = std::move(addresses);
    inst.active_mask = list.size() == 32 ? 0xffffffffu : (1u << list.size()) - 1;
    inst.addr.list = list.data();
  }
};

std::vector<LineAccess> lines_of(const Access& a) {
  std::vector<LineAccess> out;
  coalesce(a.inst, 128, 32, out);
  return out;
}

int sectors(const std::vector<LineAccess>& v) {
  int n = 0;
  for (const auto& l : v) n += __builtin_popcount(l.sectors);
  return n;
}

TEST(Coalescer, UnitStrideFloatsAreOneLineFourSectors) {
  auto v = lines_of(Access("ld.global.f32", 0xffffffff, 0x1000, 4));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].line, 0x1000u / 128);
  EXPECT_EQ(v[0].sectors, 0xfu);
}

TEST(Coalescer, MisalignedUnitStrideSpansTwoLinesFiveSectors) {
  auto v = lines_of(Access("ld.global.f32", 0xffffffff, 0x1010, 4));
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(sectors(v), 5);
}

TEST(Coalescer, WidthAndStrideSetTheSectorCount) {
  EXPECT_EQ(sectors(lines_of(Access("ld.global.f64", 0xffffffff, 0, 8))), 8);
  EXPECT_EQ(lines_of(Access("ld.global.f64", 0xffffffff, 0, 8)).size(), 2u);
  EXPECT_EQ(sectors(lines_of(Access("ld.global.v4.f32", 0xffffffff, 0, 16))), 16);
  EXPECT_EQ(lines_of(Access("ld.global.v4.f32", 0xffffffff, 0, 16)).size(), 4u);
  auto scattered = lines_of(Access("ld.global.f32", 0xffffffff, 0, 128));
  EXPECT_EQ(scattered.size(), 32u);
  EXPECT_EQ(sectors(scattered), 32);
  EXPECT_EQ(sectors(lines_of(Access("ld.global.f32", 0xffffffff, 0, 0))), 1);  // broadcast
}

TEST(Coalescer, InactiveLanesDoNotCount) {
  EXPECT_EQ(sectors(lines_of(Access("ld.global.f32", 0x0000ffff, 0, 4))), 2);
  EXPECT_EQ(sectors(lines_of(Access("ld.global.f32", 0x80000001, 0, 4))), 2);
}

TEST(Coalescer, ExplicitListFollowsTheAddresses) {
  auto v = lines_of(Access("ld.global.f32", {0x0, 0x100, 0x104, 0x20}));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].sectors, 0b11u);  // sectors 0 and 1 of line 0
  EXPECT_EQ(v[1].sectors, 0b1u);
}

// Strided accesses with lanes no further apart than their width take a path of their own (by
// byte range, not lane by lane); the same addresses given as a list go lane by lane. Both must
// give the same lines, sectors and order, whatever the mask, base, width and stride.
TEST(Coalescer, ByteRangesMatchLaneByLaneForNarrowStrides) {
  const char* widths[] = {"ld.global.u8", "ld.global.u16", "ld.global.f32", "ld.global.f64", "ld.global.v4.f32"};
  uint64_t seed = 12345;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return seed >> 33;
  };
  int fast_cases = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    Access strided(widths[next() % 5], 0, 0, 0);
    const uint64_t bytes = strided.op.access_bytes;
    uint32_t mask = static_cast<uint32_t>(next()) | static_cast<uint32_t>(next() << 31);
    if (trial % 4 == 0) mask = 0xffffffffu;
    if (trial % 4 == 1) mask = static_cast<uint32_t>(((uint64_t{1} << (next() % 33)) - 1) << (next() % 8));
    const auto stride = static_cast<int64_t>(next() % (bytes + 2));  // up to one past the width
    const uint64_t base = 0x7000000000ULL + next() % 4096;
    strided.inst.active_mask = mask;
    strided.inst.addr = LaneAddresses{base, stride, nullptr};
    Access listed(widths[0], 0, 0, 0);
    listed.op = strided.op;
    listed.inst = strided.inst;
    listed.inst.op = &listed.op;
    for (uint32_t m = mask; m; m &= m - 1) listed.list.push_back(base + static_cast<uint64_t>(stride * std::countr_zero(m)));
    listed.inst.addr = LaneAddresses{0, 0, listed.list.data()};
    const auto a = lines_of(strided), b = lines_of(listed);
    ASSERT_EQ(a.size(), b.size()) << "trial " << trial;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].line, b[i].line) << "trial " << trial;
      EXPECT_EQ(a[i].sectors, b[i].sectors) << "trial " << trial;
    }
    fast_cases += static_cast<uint64_t>(stride) <= bytes && mask != 0;
  }
  EXPECT_GT(fast_cases, 3000);  // most trials exercise the byte-range path
}

TEST(SharedBanks, StrideInWordsGivesThatManyWays) {
  // Lane l reads word l*n: banks (l*n) % 32 hold n distinct words each, for n a power of two.
  for (uint32_t n : {1u, 2u, 4u, 8u, 16u, 32u}) {
    SCOPED_TRACE(n);
    Access a("ld.shared.f32", 0xffffffff, 0, 4 * n);
    EXPECT_EQ(shared_passes(a.inst, 32, 4).wavefronts, n);
    EXPECT_EQ(shared_passes(a.inst, 32, 4).ideal, 1u);  // 32 distinct words: one pass at best
  }
}

TEST(SharedBanks, OddStrideIsConflictFree) {
  Access a("ld.shared.f32", 0xffffffff, 0, 4 * 3);
  EXPECT_EQ(shared_passes(a.inst, 32, 4).wavefronts, 1u);
}

TEST(SharedBanks, SameWordIsBroadcast) {
  Access a("ld.shared.f32", 0xffffffff, 64, 0);
  EXPECT_EQ(shared_passes(a.inst, 32, 4).wavefronts, 1u);
}

TEST(SharedBanks, WideAccessesNeedMorePasses) {
  EXPECT_EQ(shared_passes(Access("ld.shared.f64", 0xffffffff, 0, 8).inst, 32, 4).wavefronts, 2u);
  EXPECT_EQ(shared_passes(Access("ld.shared.v4.f32", 0xffffffff, 0, 16).inst, 32, 4).wavefronts, 4u);
  EXPECT_EQ(shared_passes(Access("ld.shared.f64", 0x0000ffff, 0, 8).inst, 32, 4).wavefronts, 1u);  // half warp fits one pass
}

// Nsight Compute's bank conflicts are the wavefronts beyond the ideal ones: a conflict-free
// 128-bit load of a full warp (512 bytes, 128 bytes a pass) takes 4 wavefronts and has no
// conflicts (NVIDIA developer forum, "Clarification: bank_conflicts metric vs wavefronts for
// shared memory LDS.128", measured: 4 wavefronts per LDS.128 and 0 conflicts).
TEST(SharedBanks, IdealPassesAreTheDistinctWordsOverTheBanks) {
  auto passes = [](const Access& a) { return shared_passes(a.inst, 32, 4); };
  SharedPasses v4 = passes(Access("ld.shared.v4.f32", 0xffffffff, 0, 16));
  EXPECT_EQ(v4.ideal, 4u);
  EXPECT_EQ(v4.wavefronts - v4.ideal, 0u);
  SharedPasses f64 = passes(Access("ld.shared.f64", 0xffffffff, 0, 8));
  EXPECT_EQ(f64.ideal, 2u);
  EXPECT_EQ(passes(Access("ld.shared.f64", 0x0000ffff, 0, 8)).ideal, 1u);  // 32 words
  EXPECT_EQ(passes(Access("ld.shared.f64", 0x000000ff, 0, 8)).ideal, 1u);  // 16 words
  // 128-bit loads 32 bytes apart: 128 distinct words would fit 4 passes, but they fall in banks
  // 0-3, 8-11, 16-19 and 24-27 only, 8 words each: 8 wavefronts, 4 of them conflicts.
  SharedPasses spread = passes(Access("ld.shared.v4.f32", 0xffffffff, 0, 32));
  EXPECT_EQ(spread.wavefronts, 8u);
  EXPECT_EQ(spread.ideal, 4u);
  // Same word in every lane: one pass, no conflict.
  EXPECT_EQ(passes(Access("ld.shared.v4.f32", 0xffffffff, 64, 0)).ideal, 1u);
  // Scattered: words 0, 32, 64 twice each and word 1 are four distinct words (one pass at best,
  // three taken).
  SharedPasses scattered = passes(Access("ld.shared.f32", {0, 128, 256, 0, 128, 256, 4}));
  EXPECT_EQ(scattered.wavefronts, 3u);
  EXPECT_EQ(scattered.ideal, 1u);
  // ldmatrix-like: 32 rows of 16 bytes, 144 bytes apart (rows padded by 16 bytes): 128 distinct
  // words over all 32 banks, 4 each.
  std::vector<uint64_t> rows(32);
  for (uint32_t l = 0; l < 32; ++l) rows[l] = 144 * l;
  SharedPasses padded = passes(Access("ld.shared.v4.f32", rows));
  EXPECT_EQ(padded.wavefronts, 4u);
  EXPECT_EQ(padded.ideal, 4u);
}

// Scattered lists (no single stride): the passes are the most distinct words any bank holds,
// lanes on one word sharing a pass. Hand counts, then lists drawn at random against a count
// made with a set per bank.
TEST(SharedBanks, ScatteredAddressesCountDistinctWordsPerBank) {
  // Two half-warps reading the same 16 consecutive words (a tile row read by two rows of threads).
  std::vector<uint64_t> halves(32);
  for (uint32_t l = 0; l < 32; ++l) halves[l] = 4 * (l % 16);
  EXPECT_EQ(shared_passes(Access("ld.shared.f32", halves).inst, 32, 4).wavefronts, 1u);
  // Words 0, 32, 64 (bank 0) twice each and word 1 (bank 1): three passes.
  EXPECT_EQ(shared_passes(Access("ld.shared.f32", {0, 128, 256, 0, 128, 256, 4}).inst, 32, 4).wavefronts, 3u);
  // 16-byte accesses at 0 and 128 (words 0-3 and 32-35): banks 0-3 hold two words each.
  EXPECT_EQ(shared_passes(Access("ld.shared.v4.f32", {0, 128, 0}).inst, 32, 4).wavefronts, 2u);
  uint64_t seed = 12345;
  auto next = [&] { return (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (int trial = 0; trial < 200; ++trial) {
    SCOPED_TRACE(trial);
    const uint32_t lanes = 1 + static_cast<uint32_t>(next() % 32), span_words = 1 + static_cast<uint32_t>(next() % 256);
    const char* mnemonic = trial % 3 == 0 ? "ld.shared.v2.f32" : "ld.shared.f32";
    const uint32_t words_per_lane = trial % 3 == 0 ? 2 : 1;
    std::vector<uint64_t> list(lanes);
    for (auto& a : list) a = 4 * words_per_lane * (next() % span_words);
    std::vector<std::set<uint64_t>> per_bank(32);
    for (uint64_t a : list) {
      for (uint32_t j = 0; j < words_per_lane; ++j) per_bank[(a / 4 + j) % 32].insert(a / 4 + j);
    }
    size_t want = 1;
    for (const auto& bank : per_bank) want = std::max(want, bank.size());
    EXPECT_EQ(shared_passes(Access(mnemonic, list).inst, 32, 4).wavefronts, want);
  }
}

TEST(SharedBanks, DistinctAddresses) {
  EXPECT_EQ(distinct_addresses(Access("ld.const.f32", 0xffffffff, 0, 0).inst), 1u);
  EXPECT_EQ(distinct_addresses(Access("ld.const.f32", 0xffffffff, 0, 4).inst), 32u);
}

}  // namespace
}  // namespace warpsim
