#include "frontend/synthetic/generated_workload.h"

namespace warpsim {
namespace {

class Stream : public WarpStream {
 public:
  explicit Stream(WarpProgram program) : program_(std::move(program)) {}
  const WarpInst* next() override {
    inst_ = WarpInst{};
    return program_(index_++, inst_) ? &inst_ : nullptr;
  }

 private:
  WarpProgram program_;
  uint64_t index_ = 0;
  WarpInst inst_;
};

class Cta : public CtaWork {
 public:
  Cta(const GeneratedKernel& k, uint32_t index) : id_{index, 0, 0} {
    for (uint32_t w = 0; w < k.info.warps_per_cta(); ++w) warps_.push_back(std::make_unique<Stream>(k.program(index, w)));
  }
  Dim3 id() const override { return id_; }
  uint32_t num_warps() const override { return static_cast<uint32_t>(warps_.size()); }
  WarpStream& warp(uint32_t index) override { return *warps_[index]; }

 private:
  Dim3 id_;
  std::vector<std::unique_ptr<Stream>> warps_;
};

class Kernel : public KernelSource {
 public:
  explicit Kernel(const GeneratedKernel& k) : k_(k) {}
  const KernelInfo& info() const override { return k_.info; }
  std::unique_ptr<CtaWork> next_cta() override {
    if (next_ == k_.info.grid.x) return nullptr;
    return std::make_unique<Cta>(k_, next_++);
  }

 private:
  const GeneratedKernel& k_;
  uint32_t next_ = 0;
};

}  // namespace

std::unique_ptr<KernelSource> GeneratedWorkload::next_kernel() {
  if (next_ == kernels_.size()) return nullptr;
  return std::make_unique<Kernel>(kernels_[next_++]);
}

}  // namespace warpsim
