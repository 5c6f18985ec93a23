// The HBM channel model: row hits, empty banks and conflicts cost what the timings say, the bus
// sets the bandwidth ceiling, and refresh takes its share.
#include <gtest/gtest.h>

#include "mem/dram_channel.h"

namespace warpsim {
namespace {

DramTiming timing() {
  DramTiming t;
  t.banks = 4;
  t.rcd = 10, t.rp = 12, t.cl = 14, t.ras = 30;
  return t;  // no refresh unless a test sets it
}

TEST(DramChannel, EmptyHitAndConflictCostWhatTheTimingsSay) {
  DramChannel c(32.0, timing());  // 32 bytes per cycle: a 32-byte sector crosses in 1 cycle
  DramChannel::RowResult r;
  // Bank 0 has no open row: activate (tRCD), column (tCL), one cycle of data.
  EXPECT_EQ(c.access(100, 0, 7, 32, &r), 100u + 10 + 14 + 1);
  EXPECT_EQ(r, DramChannel::RowResult::kEmpty);
  // The same row again: column and data only.
  EXPECT_EQ(c.access(200, 0, 7, 32, &r), 200u + 14 + 1);
  EXPECT_EQ(r, DramChannel::RowResult::kHit);
  // Another row: precharge (tRP), activate, column. tRAS (30 after the activate at 100) is long past.
  EXPECT_EQ(c.access(300, 0, 8, 32, &r), 300u + 12 + 10 + 14 + 1);
  EXPECT_EQ(r, DramChannel::RowResult::kConflict);
  // A conflict soon after an activate waits for tRAS first: row 8 opened at 312.
  EXPECT_EQ(c.access(320, 0, 9, 32, &r), 312u + 30 + 12 + 10 + 14 + 1);
  EXPECT_EQ(c.stats().row_hits, 1u);
  EXPECT_EQ(c.stats().row_empty, 1u);
  EXPECT_EQ(c.stats().row_conflicts, 2u);
}

TEST(DramChannel, BanksOverlapRowOpeningsAndTheBusSetsTheCeiling) {
  DramChannel c(32.0, timing());
  // Four requests at once to four banks: the activations overlap, the data queues on the bus.
  Cycle last = 0;
  for (uint32_t b = 0; b < 4; ++b) last = std::max(last, c.access(0, b, 1, 128));
  EXPECT_EQ(last, 10u + 14 + 4 * 4);  // 4 x 128 bytes at 32 B/cycle after the first data is ready
  // A long run of row hits in one bank moves data at the bus rate.
  DramChannel d(32.0, timing());
  Cycle done = 0;
  for (int i = 0; i < 1000; ++i) done = d.access(0, 0, 1, 128);
  EXPECT_EQ(done, 10u + 14 + 1000 * 4);
}

TEST(DramChannel, AnEarlyRequestUsesTheBusGapInFrontOfALateOne) {
  DramChannel c(32.0, timing());
  c.access(0, 0, 1, 32);                  // opens row 1 in bank 0
  const Cycle late = c.access(0, 0, 2, 32);  // conflict: data after tRAS + tRP + tRCD + tCL
  const Cycle early = c.access(0, 1, 5, 32); // another bank, empty: data after tRCD + tCL
  EXPECT_LT(early, late);
  EXPECT_EQ(early, 10u + 14 + 1 + 1);      // right behind the first transfer
}

TEST(DramChannel, RefreshTakesItsShareAndClosesRows) {
  DramTiming t = timing();
  t.refi = 1000, t.rfc = 100;
  DramChannel c(32.0, t);
  DramChannel::RowResult r;
  c.access(900, 0, 3, 32);
  // At 1050 all banks are refreshing (1000 to 1100): the request waits, and the row has closed.
  EXPECT_EQ(c.access(1050, 0, 3, 32, &r), 1100u + 10 + 14 + 1);
  EXPECT_EQ(r, DramChannel::RowResult::kEmpty);
  EXPECT_EQ(c.stats().refresh_wait_cycles, 50u);
  // Per-bank refresh staggers the banks: bank 2 of 4 refreshes during [1500, 1600).
  t.per_bank_refresh = true;
  DramChannel p(32.0, t);
  EXPECT_EQ(p.access(1050, 0, 3, 32), 1100u + 10 + 14 + 1);  // bank 0: [1000, 1100)
  EXPECT_EQ(p.access(1050, 2, 3, 32), 1050u + 10 + 14 + 1 + 0);
  EXPECT_EQ(p.access(1520, 2, 4, 32), 1600u + 10 + 14 + 1);  // closed by the refresh: empty, not a conflict
}

TEST(DramChannel, AllBankRefreshCostsItsShareOfTheBus) {
  DramTiming t = timing();
  t.refi = 1000, t.rfc = 100;
  DramChannel c(32.0, t);
  Cycle done = 0;
  for (int i = 0; i < 25000; ++i) done = c.access(0, 0, 1, 128);  // 100,000 cycles of data
  // Every 1000 cycles the bank stops for 100, and restarting costs tCL before data flows again:
  // about 1 - 114 / 1000 of the bus is left.
  const double efficiency = 100000.0 / double(done);
  EXPECT_GT(efficiency, 0.87);
  EXPECT_LT(efficiency, 0.90);
}

// The activation window: activates in a pseudo-channel at least tRRD apart and at most four in
// any tFAW. Empty banks at once: activates at 0, rrd, 2 rrd, ...; the data follows each by tRCD
// + tCL (one cycle of bus each, never in each other's way here).
TEST(DramChannel, ActivatesKeepTrrdApartAndFourPerTfaw) {
  DramTiming t = timing();
  t.banks = 8;
  t.rrd = 4;
  DramChannel c(32.0, t);
  for (uint32_t b = 0; b < 5; ++b) EXPECT_EQ(c.access(0, b, 1, 32), 4u * b + 10 + 14 + 1) << b;
  EXPECT_EQ(c.stats().activate_wait_cycles, 4u + 8 + 12 + 16);
  DramChannel later(32.0, t);
  later.access(0, 0, 1, 32);
  EXPECT_EQ(later.access(2, 1, 1, 32), 4u + 10 + 14 + 1);  // arriving 2 after an activate: waits until 4
  // Four activates 1 apart, then the fifth waits for the window opened by the first (0 + 20),
  // and the sixth for the second's (1 + 20).
  t.rrd = 1;
  t.faw = 20;
  DramChannel w(32.0, t);
  for (uint32_t b = 0; b < 4; ++b) EXPECT_EQ(w.access(0, b, 1, 32), b + 10u + 14 + 1) << b;
  EXPECT_EQ(w.access(0, 4, 1, 32), 20u + 10 + 14 + 1);
  EXPECT_EQ(w.access(0, 5, 1, 32), 21u + 10 + 14 + 1);
  // The same when each request comes after the last activate (the controller's usual order):
  // the fifth, arriving at 4, waits for the window opened at 0.
  DramChannel ordered(32.0, t);
  for (uint32_t b = 0; b < 4; ++b) EXPECT_EQ(ordered.access(b, b, 1, 32), b + 10u + 14 + 1) << b;
  EXPECT_EQ(ordered.access(4, 4, 1, 32), 20u + 10 + 14 + 1);
  EXPECT_EQ(ordered.access(25, 5, 1, 32), 25u + 10 + 14 + 1);  // 25 - 1 >= tFAW: no wait
  EXPECT_EQ(ordered.access(25, 6, 1, 32), 26u + 10 + 14 + 1);  // tRRD after the one at 25
  // A row hit needs no activate, so the window does not hold it up.
  const uint64_t waited = w.stats().activate_wait_cycles;
  DramChannel::RowResult r;
  w.access(100, 0, 1, 32, &r);
  EXPECT_EQ(r, DramChannel::RowResult::kHit);
  EXPECT_EQ(w.stats().activate_wait_cycles, waited);
}

// Each pseudo-channel has its own window; and an activate booked far ahead (a conflict waiting
// for tRAS and tRP) does not hold up another bank's activate now, which takes the gap before it.
TEST(DramChannel, ActivateWindowsArePerPseudoChannelAndBookedNotQueued) {
  DramTiming t = timing();
  t.banks = 8;
  t.rrd = 1;
  t.faw = 20;
  t.activate_groups = 2;  // banks 0-3 and 4-7
  DramChannel c(32.0, t);
  for (uint32_t b = 0; b < 4; ++b) c.access(0, b, 1, 32);
  EXPECT_EQ(c.stats().activate_wait_cycles, 1u + 2 + 3);
  c.access(0, 4, 1, 32);  // the other pseudo-channel: activates at 0
  EXPECT_EQ(c.stats().activate_wait_cycles, 1u + 2 + 3);
  c.access(0, 5, 1, 32);  // and 1
  EXPECT_EQ(c.stats().activate_wait_cycles, 1u + 2 + 3 + 1);
  DramTiming u = timing();
  u.rrd = 4;
  DramChannel d(32.0, u);
  d.access(0, 0, 1, 32);                                    // activate at 0
  EXPECT_EQ(d.access(0, 0, 2, 32), 30u + 12 + 10 + 14 + 1);  // conflict: activate at tRAS + tRP = 42
  EXPECT_EQ(d.access(0, 1, 1, 32), 4u + 10 + 14 + 1);        // activate at 4, between 0 and 42
}

}  // namespace
}  // namespace warpsim
