#include "frontend/synthetic/synthetic_workload.h"

#include <array>
#include <stdexcept>
#include <vector>

namespace warpsim {
namespace {

enum class Lanes : uint8_t { kAll, kLowHalf, kHighHalf };
enum class Addr : uint8_t { kNone, kGlobalIn, kGlobalOut, kShared };

struct BodyInst {
  const char* mnemonic;
  std::vector<RegId> regs;  // destinations first
  uint8_t num_dst;
  Lanes lanes;
  Addr addr;
};

// Registers: 0 %f0 accumulator, 1-4 %f1..%f4 temporaries, 5 %p0, 6 %f5 loaded value, 7 %rd0 pointer.
const std::vector<BodyInst>& body() {
  static const std::vector<BodyInst> kBody = {
      {"ld.global.f32", {6, 7}, 1, Lanes::kAll, Addr::kGlobalIn},
      {"fma.rn.f32", {1, 6, 1, 1}, 1, Lanes::kAll, Addr::kNone},
      {"fma.rn.f32", {2, 2, 2, 2}, 1, Lanes::kAll, Addr::kNone},
      {"fma.rn.f32", {3, 3, 3, 3}, 1, Lanes::kAll, Addr::kNone},
      {"fma.rn.f32", {4, 4, 4, 4}, 1, Lanes::kAll, Addr::kNone},
      {"add.s32", {7, 7}, 1, Lanes::kAll, Addr::kNone},
      {"setp.lt.f32", {5, 1, 2}, 1, Lanes::kAll, Addr::kNone},
      {"bra", {5}, 0, Lanes::kAll, Addr::kNone},
      {"fma.rn.f32", {0, 1, 2, 0}, 1, Lanes::kLowHalf, Addr::kNone},
      {"mul.f32", {3, 3, 4}, 1, Lanes::kLowHalf, Addr::kNone},
      {"bra", {}, 0, Lanes::kLowHalf, Addr::kNone},
      {"fma.rn.f32", {0, 3, 4, 0}, 1, Lanes::kHighHalf, Addr::kNone},
      {"add.f32", {4, 4, 1}, 1, Lanes::kHighHalf, Addr::kNone},
      {"st.shared.f32", {7, 0}, 0, Lanes::kAll, Addr::kShared},
      {"ld.shared.f32", {2, 7}, 1, Lanes::kAll, Addr::kShared},
      {"st.global.f32", {7, 0}, 0, Lanes::kAll, Addr::kGlobalOut},
      {"ex2.approx.f32", {1, 1}, 1, Lanes::kAll, Addr::kNone},
      {"bar.sync", {}, 0, Lanes::kAll, Addr::kNone},
  };
  return kBody;
}

struct Shared {
  std::vector<OpInfo> ops;
  std::vector<std::vector<RegId>> regs;
};

class SyntheticStream : public WarpStream {
 public:
  SyntheticStream(const Shared* shared, uint64_t iterations, uint64_t warp_global, uint32_t warp_in_cta, uint32_t full)
      : shared_(shared), iterations_(iterations), warp_global_(warp_global), warp_in_cta_(warp_in_cta), full_(full) {}

  const WarpInst* next() override {
    const auto& b = body();
    if (iteration_ >= iterations_) return nullptr;
    const BodyInst& t = b[index_];
    cur_.op = &shared_->ops[index_];
    cur_.regs = shared_->regs[index_].data();
    cur_.num_dst = t.num_dst;
    cur_.num_src = static_cast<uint8_t>(t.regs.size() - t.num_dst);
    cur_.active_mask = t.lanes == Lanes::kAll ? full_ : t.lanes == Lanes::kLowHalf ? (full_ & 0x0000ffffu) : (full_ & 0xffff0000u);
    cur_.line = index_ + 1;
    cur_.addr = LaneAddresses{};
    // Each warp streams through its own 128-byte lines: inputs and outputs never repeat.
    const uint64_t element = (warp_global_ * iterations_ + iteration_) * 32;
    switch (t.addr) {
      case Addr::kNone: break;
      case Addr::kGlobalIn: cur_.addr = {0x100000000ull + element * 4, 4, nullptr}; break;
      case Addr::kGlobalOut: cur_.addr = {0x900000000ull + element * 4, 4, nullptr}; break;
      case Addr::kShared: cur_.addr = {warp_in_cta_ * 256ull, 8, nullptr}; break;  // stride 8: 2-way conflicts
    }
    if (++index_ == b.size()) {
      index_ = 0;
      ++iteration_;
    }
    return &cur_;
  }

 private:
  const Shared* shared_;
  uint64_t iterations_, warp_global_;
  uint32_t warp_in_cta_, full_;
  uint64_t iteration_ = 0;
  uint32_t index_ = 0;
  WarpInst cur_;
};

class SyntheticCta : public CtaWork {
 public:
  SyntheticCta(Dim3 id, std::vector<SyntheticStream> warps) : id_(id), warps_(std::move(warps)) {}
  Dim3 id() const override { return id_; }
  uint32_t num_warps() const override { return static_cast<uint32_t>(warps_.size()); }
  WarpStream& warp(uint32_t i) override { return warps_[i]; }

 private:
  Dim3 id_;
  std::vector<SyntheticStream> warps_;
};

class SyntheticKernel : public KernelSource {
 public:
  explicit SyntheticKernel(const SyntheticSpec& spec) : spec_(spec) {
    info_.name = "synthetic_mix";
    info_.grid = Dim3{spec.ctas, 1, 1};
    info_.block = Dim3{spec.threads_per_cta, 1, 1};
    info_.shared_bytes = info_.warps_per_cta() * 256;
    info_.registers_per_thread = 32;
    for (const auto& t : body()) {
      OpInfo op;
      std::string error;
      if (!decode_mnemonic(t.mnemonic, op, error)) throw std::logic_error("synthetic body: " + error);
      shared_.ops.push_back(op);
      shared_.regs.push_back(t.regs);
    }
  }
  const KernelInfo& info() const override { return info_; }
  bool ctas_share_nothing() const override { return true; }  // each stream generates its own instructions
  std::unique_ptr<CtaWork> next_cta() override {
    if (next_ >= spec_.ctas) return nullptr;
    std::vector<SyntheticStream> warps;
    const uint32_t n = info_.warps_per_cta();
    for (uint32_t w = 0; w < n; ++w) {
      warps.emplace_back(&shared_, spec_.iterations_per_warp, uint64_t{next_} * n + w, w, info_.full_mask(w));
    }
    return std::make_unique<SyntheticCta>(Dim3{next_++, 1, 1}, std::move(warps));
  }

 private:
  SyntheticSpec spec_;
  KernelInfo info_;
  Shared shared_;
  uint32_t next_ = 0;
};

}  // namespace

SyntheticWorkload::SyntheticWorkload(SyntheticSpec spec) : spec_(spec) {}
SyntheticWorkload::~SyntheticWorkload() = default;

std::unique_ptr<KernelSource> SyntheticWorkload::next_kernel() {
  if (done_) return nullptr;
  done_ = true;
  return std::make_unique<SyntheticKernel>(spec_);
}

uint32_t SyntheticWorkload::body_length() { return static_cast<uint32_t>(body().size()); }

uint64_t SyntheticWorkload::total_warp_instructions() const {
  const uint64_t warps_per_cta = (spec_.threads_per_cta + 31) / 32;
  return uint64_t{spec_.ctas} * warps_per_cta * spec_.iterations_per_warp * body_length();
}

}  // namespace warpsim
