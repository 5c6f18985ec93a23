#pragma once
// Host threads that share out a batch of independent jobs (the SMs due in one simulated cycle).
// Batches come thousands of times a simulated microsecond, so waiting threads spin for a while
// before they sleep, and every thread checks in once per batch: no thread can still be inside an
// old batch when the next one starts.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace warpsim {

class WorkerPool {
 public:
  // `threads` in all, the caller's included (1: no extra threads).
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }
  // Calls job(i) for every i in [0, n), spread over the threads, the caller's among them;
  // returns when all have returned. `job` must not throw.
  void for_each(size_t n, const std::function<void(size_t)>& job);

 private:
  void work();
  void take_jobs();

  std::vector<std::thread> workers_;
  std::atomic<uint32_t> generation_{0};
  std::atomic<uint32_t> sleepers_{0};   // workers blocked in generation_.wait
  std::atomic<size_t> next_{0};
  std::atomic<uint32_t> checked_in_{0};  // workers done with the current generation
  std::atomic<bool> caller_sleeping_{false};  // for_each waits on checked_in_
  size_t count_ = 0;
  const std::function<void(size_t)>* job_ = nullptr;
  bool stop_ = false;
};

}  // namespace warpsim
