#include "gpu/sm_batch.h"

#include "sm/sm.h"

namespace warpsim {
namespace {
// Fewer SMs than this in a cycle tick on the caller's thread: waking the others would cost
// more than the ticks.
constexpr size_t kMinParallelBatch = 4;
}  // namespace

SmBatch::SmBatch() {
  job_ = [this](size_t i) {
    try {
      next_[i] = static_cast<Sm*>(batch_[i])->tick_held(now_);
    } catch (...) {
      errors_[i] = std::current_exception();
    }
  };
}

void SmBatch::set_threads(unsigned threads) {
  if (threads == this->threads()) return;
  pool_ = threads > 1 ? std::make_unique<WorkerPool>(threads) : nullptr;
}

void SmBatch::run(std::span<Component* const> batch, Cycle now, std::span<Cycle> next) {
  if (parallel() && batch.size() >= kMinParallelBatch) {
    batch_ = batch;
    next_ = next;
    now_ = now;
    errors_.assign(batch.size(), nullptr);
    pool_->for_each(batch.size(), job_);
    // The first failure in batch order: what one thread would have reported.
    for (const auto& e : errors_)
      if (e) std::rethrow_exception(e);
  } else {
    for (size_t i = 0; i < batch.size(); ++i) next[i] = static_cast<Sm*>(batch[i])->tick_held(now);
  }
  for (size_t i = 0; i < batch.size(); ++i) next[i] = static_cast<Sm*>(batch[i])->finish_tick(now, next[i]);
}

}  // namespace warpsim
