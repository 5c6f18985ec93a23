#include "frontend/read_ahead_kernel.h"

namespace warpsim {

ReadAheadKernel::ReadAheadKernel(KernelSource& inner, size_t depth) : inner_(inner), depth_(depth < 1 ? 1 : depth) {}

ReadAheadKernel::~ReadAheadKernel() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (reader_.joinable()) reader_.join();
}

void ReadAheadKernel::resident_ctas(uint64_t ctas) {
  // Before the reader starts: the GPU says it before asking for the first CTA.
  if (!reader_.joinable()) inner_.resident_ctas(ctas);
}

void ReadAheadKernel::read() {
  size_t cancelled_seen = 0;
  while (true) {
    Item item;
    try {
      item.cta = inner_.next_cta();
    } catch (...) {
      item.error = std::current_exception();
    }
    const auto& cancelled = inner_.cancelled_ctas();
    item.cancelled.assign(cancelled.begin() + static_cast<std::ptrdiff_t>(cancelled_seen), cancelled.end());
    cancelled_seen = cancelled.size();
    const bool last = !item.cta;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || ready_.size() < depth_; });
      if (stop_) return;
      ready_.push_back(std::move(item));
    }
    changed_.notify_all();
    if (last) return;
  }
}

std::unique_ptr<CtaWork> ReadAheadKernel::next_cta() {
  if (ended_) return nullptr;
  if (!reader_.joinable()) reader_ = std::thread([this] { read(); });
  Item item;
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !ready_.empty(); });
    item = std::move(ready_.front());
    ready_.pop_front();
  }
  changed_.notify_all();
  cancelled_.insert(cancelled_.end(), item.cancelled.begin(), item.cancelled.end());
  if (item.error) {
    ended_ = true;
    std::rethrow_exception(item.error);
  }
  if (!item.cta) ended_ = true;
  return std::move(item.cta);
}

}  // namespace warpsim
