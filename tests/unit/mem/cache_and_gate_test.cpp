#include <gtest/gtest.h>

#include <climits>
#include <random>

#include "mem/bandwidth_gate.h"
#include "mem/sectored_cache.h"

namespace warpsim {
namespace {

TEST(SectoredCache, SectorsFillIndependently) {
  SectoredCache c(4 * 128, 2, 128, 32, false);  // 2 sets x 2 ways
  EXPECT_EQ(c.find(10), -1);
  SectoredCache::Victim v;
  int way = c.allocate(10, v);
  EXPECT_FALSE(v.valid);
  c.fill(10, way, 0b0101, 0);
  EXPECT_EQ(c.find(10), way);
  EXPECT_EQ(c.valid_sectors(10, way), 0b0101u);
}

TEST(SectoredCache, LeastRecentlyUsedIsEvictedWithItsDirtySectors) {
  SectoredCache c(4 * 128, 2, 128, 32, false);
  SectoredCache::Victim v;
  // Lines 0, 2, 4 map to set 0 (line % 2).
  int w0 = c.allocate(0, v);
  c.fill(0, w0, 0xf, 0);
  c.mark_dirty(0, w0, 0b0011);
  int w2 = c.allocate(2, v);
  c.fill(2, w2, 0xf, 0);
  c.touch(2, w2);
  c.touch(0, w0);  // line 0 is now the most recent: line 2 goes next
  int w4 = c.allocate(4, v);
  EXPECT_TRUE(v.valid);
  EXPECT_EQ(v.line, 2u);
  EXPECT_EQ(v.dirty_sectors, 0u);
  c.fill(4, w4, 0x1, 0);
  c.allocate(6, v);
  EXPECT_TRUE(v.valid);
  EXPECT_EQ(v.line, 0u);
  EXPECT_EQ(v.dirty_sectors, 0b0011u);
  EXPECT_EQ(c.find(1), -1);  // set 1 untouched
}

TEST(SectoredCache, CountsTheDirtySectorsItHolds) {
  SectoredCache c(4 * 128, 2, 128, 32, false);  // 2 sets x 2 ways; lines 0, 2, 4 share set 0
  SectoredCache::Victim v;
  const int w0 = c.allocate(0, v);
  c.fill(0, w0, 0xf, 0);
  c.mark_dirty(0, w0, 0b0011);
  c.mark_dirty(0, w0, 0b0110);  // sector 1 again: counted once
  EXPECT_EQ(c.dirty_sectors(), 3u);
  const int w2 = c.allocate(2, v);
  c.fill(2, w2, 0xf, 0);
  c.mark_dirty(2, w2, 0b1000);
  EXPECT_EQ(c.dirty_sectors(), 4u);
  c.touch(2, w2);
  c.allocate(4, v);  // evicts line 0 with its three dirty sectors
  EXPECT_EQ(v.line, 0u);
  EXPECT_EQ(v.dirty_sectors, 0b0111u);
  EXPECT_EQ(c.dirty_sectors(), 1u);
  c.invalidate(2, w2);  // a dropped copy owes nothing
  EXPECT_EQ(c.dirty_sectors(), 0u);
}

TEST(SectoredCache, EvictFirstLinesGoBeforeOlderOnes) {
  SectoredCache c(4 * 128, 4, 128, 32, false);  // one set of 4 ways
  SectoredCache::Victim v;
  for (uint64_t line : {0, 1, 2, 3}) {
    int w = c.allocate(line, v);
    c.fill(line, w, 0xf, 0);
    c.touch(line, w);
  }
  int s = c.allocate(10, v);  // a streaming line takes line 0's way (least recent)...
  EXPECT_EQ(v.line, 0u);
  c.fill(10, s, 0xf, 0);
  c.demote(10, s);            // ...and is the next to go, though it is the newest
  int t = c.allocate(11, v);
  EXPECT_TRUE(v.valid);
  EXPECT_EQ(v.line, 10u);
  EXPECT_EQ(t, s);
  for (uint64_t line : {1, 2, 3}) EXPECT_GE(c.find(line), 0);
}

// The recency stamps are 32 bits and renumbered when they run out: a cache whose clock starts
// just short of that makes exactly the choices of one whose clock starts at 0.
TEST(SectoredCache, RenumberingTheStampsChangesNoEviction) {
  SectoredCache fresh(8 * 4 * 128, 4, 128, 32, false);  // 8 sets x 4 ways
  SectoredCache wrapping(8 * 4 * 128, 4, 128, 32, false);
  wrapping.set_clock_for_test(UINT32_MAX - 200);
  std::mt19937 rng(3);
  int evictions = 0;
  for (int step = 0; step < 5000; ++step) {
    const uint64_t line = rng() % 64;  // 8 lines per set: plenty of evictions
    const int way = fresh.find(line);
    ASSERT_EQ(wrapping.find(line), way) << step;
    if (way < 0) {
      SectoredCache::Victim a, b;
      const int wa = fresh.allocate(line, a), wb = wrapping.allocate(line, b);
      ASSERT_EQ(wa, wb) << step;
      ASSERT_EQ(a.valid, b.valid) << step;
      ASSERT_EQ(a.line, b.line) << step;
      evictions += a.valid;
      const uint32_t sectors = 1 + rng() % 15;
      fresh.fill(line, wa, sectors, 0), wrapping.fill(line, wb, sectors, 0);
    } else if (const uint32_t r = rng() % 8; r == 0) {
      fresh.demote(line, way), wrapping.demote(line, way);
    } else if (r == 1) {
      fresh.invalidate(line, way), wrapping.invalidate(line, way);
    } else {
      fresh.touch(line, way), wrapping.touch(line, way);
    }
  }
  EXPECT_GT(evictions, 1000);
}

TEST(SectoredCache, NonPowerOfTwoSetCount) {
  SectoredCache c(3 * 128, 1, 128, 32, true);
  EXPECT_EQ(c.sets(), 3u);
  SectoredCache::Victim v;
  int w = c.allocate(5, v);
  c.fill(5, w, 0b1, 77);
  EXPECT_EQ(c.sector_ready(5, w, 0), 77u);
}

TEST(SectoredCache, ZeroSizeNeverHolds) {
  SectoredCache c(0, 4, 128, 32, false);
  SectoredCache::Victim v;
  EXPECT_EQ(c.allocate(1, v), -1);
  EXPECT_EQ(c.find(1), -1);
}

TEST(BandwidthGate, QueuesBehindEarlierUse) {
  BandwidthGate g(32.0);  // 32 bytes per cycle
  EXPECT_EQ(g.serve(10, 64), 12u);
  EXPECT_EQ(g.serve(10, 32), 13u);  // waits for the first transfer
  EXPECT_EQ(g.serve(100, 16), 101u);  // idle gap: starts at once, half a cycle rounds up
  EXPECT_EQ(g.backlog(100), 0u);
}

TEST(BandwidthGate, FractionalRatesAccumulateExactly) {
  BandwidthGate g(36.15);
  Cycle end = 0;
  for (int i = 0; i < 100000; ++i) end = g.serve(0, 32);
  EXPECT_NEAR(double(end), 100000 * 32 / 36.15, 1e-4 * 100000 * 32 / 36.15);
}

}  // namespace
}  // namespace warpsim
