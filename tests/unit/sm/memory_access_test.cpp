// Coalescing into sectors and lines, and shared-memory bank conflicts, against hand counts.
#include <gtest/gtest.h>

#include <numeric>

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

TEST(SharedBanks, StrideInWordsGivesThatManyWays) {
  // Lane l reads word l*n: banks (l*n) % 32 hold n distinct words each, for n a power of two.
  for (uint32_t n : {1u, 2u, 4u, 8u, 16u, 32u}) {
    SCOPED_TRACE(n);
    Access a("ld.shared.f32", 0xffffffff, 0, 4 * n);
    EXPECT_EQ(shared_wavefronts(a.inst, 32, 4), n);
  }
}

TEST(SharedBanks, OddStrideIsConflictFree) {
  Access a("ld.shared.f32", 0xffffffff, 0, 4 * 3);
  EXPECT_EQ(shared_wavefronts(a.inst, 32, 4), 1u);
}

TEST(SharedBanks, SameWordIsBroadcast) {
  Access a("ld.shared.f32", 0xffffffff, 64, 0);
  EXPECT_EQ(shared_wavefronts(a.inst, 32, 4), 1u);
}

TEST(SharedBanks, WideAccessesNeedMorePasses) {
  EXPECT_EQ(shared_wavefronts(Access("ld.shared.f64", 0xffffffff, 0, 8).inst, 32, 4), 2u);
  EXPECT_EQ(shared_wavefronts(Access("ld.shared.v4.f32", 0xffffffff, 0, 16).inst, 32, 4), 4u);
  EXPECT_EQ(shared_wavefronts(Access("ld.shared.f64", 0x0000ffff, 0, 8).inst, 32, 4), 1u);  // half warp fits one pass
}

TEST(SharedBanks, DistinctAddresses) {
  EXPECT_EQ(distinct_addresses(Access("ld.const.f32", 0xffffffff, 0, 0).inst), 1u);
  EXPECT_EQ(distinct_addresses(Access("ld.const.f32", 0xffffffff, 0, 4).inst), 32u);
}

}  // namespace
}  // namespace warpsim
