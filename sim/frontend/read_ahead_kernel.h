#pragma once
// A kernel source read ahead on a thread of its own: while the SMs tick, the next CTAs of a
// trace are parsed (which, for a trace, is much of a replay's time: docs/performance.md). The
// CTAs come out in the order, and with the errors, the source gives when asked directly; the
// CTAs a trace lists as cancelled become visible with the CTA that followed them, as they would
// have been read, so nothing the GPU decides depends on how far ahead the reader got.
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "frontend/kernel_source.h"

namespace warpsim {

class ReadAheadKernel : public KernelSource {
 public:
  // Reads `inner`'s CTAs ahead, at most `depth` parsed and not yet taken. `inner` must outlive
  // this object, and nobody else may call it until this object is gone.
  explicit ReadAheadKernel(KernelSource& inner, size_t depth = 64);
  ~ReadAheadKernel() override;

  const KernelInfo& info() const override { return inner_.info(); }
  void resident_ctas(uint64_t ctas) override;
  std::unique_ptr<CtaWork> next_cta() override;
  const std::vector<Dim3>& cancelled_ctas() const override { return cancelled_; }
  bool ctas_share_nothing() const override { return inner_.ctas_share_nothing(); }

 private:
  struct Item {
    std::unique_ptr<CtaWork> cta;     // nullptr: the grid's end (or an error)
    std::exception_ptr error;
    std::vector<Dim3> cancelled;      // listed as cancelled since the previous item
  };
  void read();  // the reader thread

  KernelSource& inner_;
  const size_t depth_;
  std::vector<Dim3> cancelled_;  // as taken
  bool ended_ = false;           // the last item taken was the end or an error

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item> ready_;
  bool stop_ = false;
  std::thread reader_;  // started by the first next_cta
};

}  // namespace warpsim
