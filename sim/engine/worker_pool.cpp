#include "engine/worker_pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define WARPSIM_PAUSE() _mm_pause()
#else
#define WARPSIM_PAUSE() std::this_thread::yield()
#endif

namespace warpsim {
namespace {
// 16k pause instructions (well under a millisecond; a pause's length differs between CPUs):
// meant to span the serial work between two cycles' batches (the memory side's tick, applying
// the SMs' effects) without holding a core through a long serial stretch (a kernel's set-up).
constexpr uint32_t kSpinsBeforeSleep = 1u << 14;
// The caller, waiting for the workers to finish a batch, sleeps after as long: a worker that
// takes longer than that is most likely one the OS descheduled, whose core the caller may hold.
constexpr uint32_t kSpinsBeforeCallerSleeps = kSpinsBeforeSleep;
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
    // Counted, then the caller's flag read: the caller sets its flag, then reads the count, so
    // one of the two sees the other's write and a sleeping caller is always woken.
    checked_in_.fetch_add(1);
    if (caller_sleeping_.load()) checked_in_.notify_one();
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
  // Spinning, then sleeping. With more threads than free cores each batch waits for the OS to
  // run a descheduled worker, which no waiting strategy makes fast (three threads on two cores:
  // ten times slower than one), so the command line asks for no more than the machine has.
  for (uint32_t spin = 0;; ++spin) {
    const uint32_t in = checked_in_.load();
    if (in == workers_.size()) break;
    if (spin < kSpinsBeforeCallerSleeps) {
      WARPSIM_PAUSE();
      continue;
    }
    caller_sleeping_.store(true);  // then the count looked at again by wait(): see work()
    if (checked_in_.load() != workers_.size()) checked_in_.wait(in);
    caller_sleeping_.store(false);
  }
}

}  // namespace warpsim
