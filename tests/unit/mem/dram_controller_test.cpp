// The HBM controller's policy: FR-FCFS lets a later request to the open row go before an older
// one to another row, FCFS does not, and the queue window bounds how far a hit can overtake.
// Times follow from the timings (dram_channel_test.cpp checks the channel's own arithmetic).
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "mem/dram_controller.h"

namespace warpsim {
namespace {

DramTiming controller_timing() {
  DramTiming t;
  t.banks = 4;
  t.rcd = 10, t.rp = 12, t.cl = 14, t.ras = 30;
  return t;
}

using Issued = std::vector<DramController::Issued>;

// Issues what is due at each decision until nothing waits; returns tag -> done.
std::map<uint64_t, Cycle> drain(DramController& c) {
  std::map<uint64_t, Cycle> done;
  Issued issued;
  for (Cycle turn = c.next_decision(); turn != kNever; turn = c.next_decision()) {
    issued.clear();
    c.issue_until(turn, issued);
    for (const auto& i : issued) done[i.tag] = i.done;
  }
  return done;
}

// Bank 0 has row 1 open (a request at cycle 0: activate, column, data at 25, so it takes its next
// command at 25 - tCL = 11). Then an older request to row 2 and a younger one to row 1 arrive.
std::map<uint64_t, Cycle> open_then_conflict_then_hit(DramPolicy policy, uint32_t window, DramController::Stats* stats = nullptr) {
  DramController c(32.0, controller_timing(), policy, window);
  c.enqueue({0, 0, 1, 32, 0});
  EXPECT_EQ(c.next_decision(), 0u);
  auto done = drain(c);
  EXPECT_EQ(done[0], 10u + 14 + 1);
  c.enqueue({1, 0, 2, 32, 1});  // older, another row
  c.enqueue({2, 0, 1, 32, 2});  // younger, the open row
  EXPECT_EQ(c.next_decision(), 11u);
  for (const auto& [tag, at] : drain(c)) done[tag] = at;
  if (stats) *stats = c.stats();
  return done;
}

TEST(DramController, FrFcfsServesALaterRowHitBeforeAnOlderConflict) {
  DramController::Stats stats;
  auto done = open_then_conflict_then_hit(DramPolicy::kFrFcfs, 64, &stats);
  // The hit: its column command at 11, data ready at 25 behind the first transfer, one cycle.
  EXPECT_EQ(done[2], 11u + 14 + 1);
  // The conflict, after the hit (bank free at 26 - 14 = 12): precharge once tRAS has passed since
  // the activate at 0 (30), activate at 42, column at 52, data at 66.
  EXPECT_EQ(done[1], 30u + 12 + 10 + 14 + 1);
  EXPECT_EQ(stats.reordered, 1u);
}

TEST(DramController, FcfsServesInArrivalOrder) {
  DramController::Stats stats;
  auto done = open_then_conflict_then_hit(DramPolicy::kFcfs, 64, &stats);
  EXPECT_EQ(done[1], 30u + 12 + 10 + 14 + 1);  // as above, now first
  // Row 1 was closed by the conflict (opened at 42, free at 67 - 14 = 53): precharge at
  // max(53, 42 + tRAS) = 72, activate 84, column 94, data 108.
  EXPECT_EQ(done[2], 72u + 12 + 10 + 14 + 1);
  EXPECT_EQ(stats.reordered, 0u);
}

TEST(DramController, TheWindowBoundsHowFarAHitOvertakes) {
  // With a window of one, only the oldest request is a candidate: FR-FCFS orders as FCFS.
  auto windowed = open_then_conflict_then_hit(DramPolicy::kFrFcfs, 1);
  auto fcfs = open_then_conflict_then_hit(DramPolicy::kFcfs, 64);
  EXPECT_EQ(windowed, fcfs);
}

TEST(DramController, ARequestBeyondTheWindowWaitsForAnOlderOneToLeave) {
  // Window 1: the request to bank 1 (idle) arrives after one to bank 0 (busy until 11) and may
  // not start before that one does, at 11, though its bank could take it at 1.
  DramController c(32.0, controller_timing(), DramPolicy::kFrFcfs, 1);
  c.enqueue({0, 0, 1, 32, 0});
  Issued issued;
  c.issue_until(0, issued);
  c.enqueue({1, 0, 1, 32, 1});
  c.enqueue({1, 1, 5, 32, 2});
  auto done = drain(c);
  EXPECT_EQ(done[1], 11u + 14 + 1);
  EXPECT_EQ(done[2], 11u + 10 + 14 + 1);  // activate at 11, column 21, data 35
  // With room for both, bank 1 starts at its arrival.
  DramController wide(32.0, controller_timing(), DramPolicy::kFrFcfs, 2);
  wide.enqueue({0, 0, 1, 32, 0});
  wide.issue_until(0, issued);
  wide.enqueue({1, 0, 1, 32, 1});
  wide.enqueue({1, 1, 5, 32, 2});
  EXPECT_EQ(drain(wide)[2], 1u + 10 + 14 + 1);
}

TEST(DramController, EveryRequestIsIssuedOnceAndNoEarlierThanItCouldBe) {
  for (DramPolicy policy : {DramPolicy::kFrFcfs, DramPolicy::kFcfs}) {
    DramController c(16.0, controller_timing(), policy, 8);
    std::mt19937 random(7);
    std::map<uint64_t, Cycle> arrival;
    Issued issued;
    std::map<uint64_t, Cycle> done;
    Cycle now = 0;
    for (uint64_t tag = 0; tag < 400; ++tag) {
      now += random() % 6;
      // Requests handed over at `now` arrive at or after it; due decisions are made first.
      for (Cycle turn = c.next_decision(); turn <= now; turn = c.next_decision()) {
        issued.clear();
        c.issue_until(turn, issued);
        for (const auto& i : issued) EXPECT_TRUE(done.emplace(i.tag, i.done).second) << "issued twice: " << i.tag;
      }
      const Cycle at = now + random() % 4;
      arrival[tag] = at;
      c.enqueue({at, static_cast<uint32_t>(random() % 4), random() % 3, 32, tag});
    }
    for (const auto& [tag, at] : drain(c)) EXPECT_TRUE(done.emplace(tag, at).second);
    ASSERT_EQ(done.size(), arrival.size());
    for (const auto& [tag, at] : done) EXPECT_GE(at, arrival[tag] + 14 + 2) << tag;  // tCL and the transfer at least
    const auto& rows = c.channel_stats();
    EXPECT_EQ(rows.row_hits + rows.row_empty + rows.row_conflicts, 400u);
    EXPECT_EQ(c.waiting(), 0u);
  }
}

}  // namespace
}  // namespace warpsim
