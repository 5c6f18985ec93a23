#include "engine/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

namespace warpsim {
namespace {

// Many batches of every size, back to back: each job runs exactly once per batch, and all of a
// batch's writes are visible when for_each returns (the next batch reads them).
void check_batches(unsigned threads) {
  WorkerPool pool(threads);
  EXPECT_EQ(pool.threads(), threads);
  std::vector<uint64_t> value(64, 0);
  std::vector<std::atomic<uint32_t>> runs(64);
  uint64_t expected_total = 0;
  for (uint32_t round = 0; round < 3000; ++round) {
    const size_t n = round % 65;
    for (auto& r : runs) r.store(0);
    pool.for_each(n, [&](size_t i) {
      runs[i].fetch_add(1);
      value[i] += i + round;  // plain writes: each index belongs to one job
    });
    for (size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), i < n ? 1u : 0u) << "round " << round << " job " << i;
    for (size_t i = 0; i < n; ++i) expected_total += i + round;
  }
  EXPECT_EQ(std::accumulate(value.begin(), value.end(), uint64_t{0}), expected_total);
}

TEST(WorkerPool, OneThreadRunsEveryJobOnTheCaller) {
  WorkerPool pool(1);
  std::set<std::thread::id> seen;
  pool.for_each(10, [&](size_t) { seen.insert(std::this_thread::get_id()); });
  EXPECT_EQ(seen, std::set<std::thread::id>{std::this_thread::get_id()});
  check_batches(1);
}

TEST(WorkerPool, EveryJobRunsOnceInEveryBatch) {
  check_batches(2);
  check_batches(4);
}

TEST(WorkerPool, WorkersThatFellAsleepWakeForTheNextBatch) {
  WorkerPool pool(3);
  std::atomic<uint32_t> done{0};
  pool.for_each(8, [&](size_t) { done.fetch_add(1); });
  // Long enough for the workers to stop spinning and wait on the generation counter.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::set<std::thread::id> seen;
  std::mutex m;
  pool.for_each(64, [&](size_t) {
    done.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // slow jobs: the sleepers must take some
    std::lock_guard lock(m);
    seen.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(done.load(), 72u);
  EXPECT_GT(seen.size(), 1u);
}

}  // namespace
}  // namespace warpsim
