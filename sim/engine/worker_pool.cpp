#include "engine/worker_pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WARPSIM_PAUSE() _mm_pause()
#else
#define WARPSIM_PAUSE() std::this_thread::yield()
#endif

namespace warpsim {
namespace {
// About 20-50 us of pausing: long enough to span the serial work between two cycles' batches
// (the memory side's tick, applying the SMs' messages), short enough not to hold a core through
// a long serial stretch (a trace being read, a kernel's set-up).
constexpr uint32_t kSpinsBeforeSleep = 1u << 14;
}  // namespace

WorkerPool::WorkerPool(unsigned threads) {
  for (unsigned t = 1; t < threads; ++t) workers_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
  stop_ = true;
  generation_.fetch_add(1);
  generation_.notify_all();
  for (auto& t : workers_) t.join();
}

void WorkerPool::take_jobs() {
  for (size_t i = next_.fetch_add(1, std::memory_order_relaxed); i < count_; i = next_.fetch_add(1, std::memory_order_relaxed)) (*job_)(i);
}

void WorkerPool::work() {
  uint32_t seen = 0;
  while (true) {
    uint32_t g = generation_.load(std::memory_order_acquire);
    for (uint32_t spin = 0; g == seen; g = generation_.load(std::memory_order_acquire)) {
      if (++spin < kSpinsBeforeSleep) {
        WARPSIM_PAUSE();
      } else {
        // Counted before waiting, so that the caller (which bumps the generation, then looks at
        // the count) either sees this thread asleep or this thread sees the new generation.
        sleepers_.fetch_add(1);
        generation_.wait(seen);
        sleepers_.fetch_sub(1);
      }
    }
    seen = g;
    if (stop_) return;
    take_jobs();
    checked_in_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void WorkerPool::for_each(size_t n, const std::function<void(size_t)>& job) {
  if (workers_.empty() || n < 2) {
    for (size_t i = 0; i < n; ++i) job(i);
    return;
  }
  job_ = &job;
  count_ = n;
  next_.store(0, std::memory_order_relaxed);
  checked_in_.store(0, std::memory_order_relaxed);
  generation_.fetch_add(1);  // publishes the fields above
  if (sleepers_.load() > 0) generation_.notify_all();
  take_jobs();
  // Every worker checks in, so none can still be taking jobs from this batch when the next
  // one resets the counters; their writes are visible once they have.
  while (checked_in_.load(std::memory_order_acquire) < workers_.size()) WARPSIM_PAUSE();
}

}  // namespace warpsim
