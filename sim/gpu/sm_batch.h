#pragma once
// Ticks the SMs due in one cycle, on one host thread or several, with the same results either
// way. Each SM's tick first runs on its own state only (Sm::tick_held), possibly at the same time
// as the others'; then, one SM after another in the engine's order, what each did to anything
// shared is applied (Sm::finish_tick: its memory requests, its finished CTAs and so the next
// CTAs' launches). One host thread runs the same two steps, so the statistics are bit-identical
// whatever the thread count.
//
// SMs interact only through the memory side, whose messages take at least the interconnect's
// latency, and through the CTA scheduler, which acts on a CTA's completion: neither can change
// what another SM does in the same cycle. Kernels whose CTAs reach each other directly (clusters:
// distributed shared memory, cluster barriers, remote mbarriers) and CTAs whose instructions
// come from the emulator (which shares global memory between them) tick on one thread, as do
// kernels someone watches warp by warp (the views' observers).
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "engine/engine.h"
#include "engine/worker_pool.h"

namespace warpsim {

class SmBatch : public BatchRunner {
 public:
  SmBatch();
  // Host threads in all (1: the caller's only).
  void set_threads(unsigned threads);
  unsigned threads() const { return pool_ ? pool_->threads() : 1; }
  // Whether the kernel about to run may tick its SMs on several threads (see above).
  void allow_parallel(bool allow) { parallel_ = allow; }
  bool parallel() const { return parallel_ && pool_; }

  void run(std::span<Component* const> batch, Cycle now, std::span<Cycle> next) override;

 private:
  std::unique_ptr<WorkerPool> pool_;
  bool parallel_ = false;
  // The batch being ticked, for the job the pool's threads share out.
  std::span<Component* const> batch_;
  std::span<Cycle> next_;
  Cycle now_ = 0;
  std::vector<std::exception_ptr> errors_;
  std::function<void(size_t)> job_;
};

}  // namespace warpsim
