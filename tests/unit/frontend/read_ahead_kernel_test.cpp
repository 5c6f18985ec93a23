// ReadAheadKernel: CTAs, errors and cancelled CTAs come out exactly as the source gives them
// when asked directly, however far ahead its thread has read; it can be dropped mid-kernel.
#include "frontend/read_ahead_kernel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "common/error.h"

namespace warpsim {
namespace {

struct EmptyCta : CtaWork {
  explicit EmptyCta(uint32_t x) : id_{x, 0, 0} {}
  Dim3 id() const override { return id_; }
  uint32_t num_warps() const override { return 0; }
  WarpStream& warp(uint32_t) override { throw std::logic_error("no warps"); }
  Dim3 id_;
};

// Hands out CTAs 0..n-1, listing x as cancelled just before CTA x + 1 whenever x is in
// `cancel`, and throws at `fail_at` (if below n).
struct ScriptedKernel : KernelSource {
  ScriptedKernel(uint32_t n, std::vector<uint32_t> cancel, uint32_t fail_at) : n_(n), cancel_(std::move(cancel)), fail_at_(fail_at) {
    info_.name = "scripted";
    info_.grid = Dim3{n, 1, 1};
  }
  const KernelInfo& info() const override { return info_; }
  void resident_ctas(uint64_t ctas) override { resident_ = ctas; }
  std::unique_ptr<CtaWork> next_cta() override {
    while (next_ < n_) {
      const uint32_t x = next_++;
      if (x == fail_at_) throw InputError(SourceLocation{"t.trace", x + 1, 1}, "bad CTA " + std::to_string(x));
      if (std::find(cancel_.begin(), cancel_.end(), x) != cancel_.end()) {
        cancelled_.push_back(Dim3{x, 0, 0});
        continue;
      }
      return std::make_unique<EmptyCta>(x);
    }
    return nullptr;
  }
  const std::vector<Dim3>& cancelled_ctas() const override { return cancelled_; }
  bool ctas_share_nothing() const override { return true; }

  KernelInfo info_;
  uint32_t n_, next_ = 0;
  std::vector<uint32_t> cancel_;
  uint32_t fail_at_;
  std::vector<Dim3> cancelled_;
  uint64_t resident_ = 0;
};

// What a consumer sees: each CTA id with the cancelled count visible when it was taken.
std::vector<std::pair<uint32_t, size_t>> drain(KernelSource& k, std::string* error = nullptr) {
  std::vector<std::pair<uint32_t, size_t>> seen;
  try {
    while (auto cta = k.next_cta()) seen.emplace_back(cta->id().x, k.cancelled_ctas().size());
  } catch (const InputError& e) {
    if (error) *error = e.what();
  }
  return seen;
}

TEST(ReadAheadKernel, HandsOutWhatTheSourceWouldInTheSameOrder) {
  for (size_t depth : {1u, 3u, 64u}) {
    ScriptedKernel direct(200, {5, 6, 90, 199}, 1000), inner(200, {5, 6, 90, 199}, 1000);
    ReadAheadKernel ahead(inner, depth);
    ahead.resident_ctas(17);
    EXPECT_EQ(inner.resident_, 17u);  // passed on before the reader starts
    EXPECT_EQ(drain(ahead), drain(direct)) << "depth " << depth;
    EXPECT_EQ(ahead.cancelled_ctas().size(), 4u);
    EXPECT_EQ(ahead.next_cta(), nullptr);  // asked again after the end
  }
}

TEST(ReadAheadKernel, AnErrorComesWhereTheSourceRaisedIt) {
  ScriptedKernel direct(100, {3}, 40), inner(100, {3}, 40);
  ReadAheadKernel ahead(inner, 8);
  std::string direct_error, ahead_error;
  const auto a = drain(direct, &direct_error), b = drain(ahead, &ahead_error);
  EXPECT_EQ(a, b);
  EXPECT_EQ(b.size(), 39u);  // CTAs 0-39 but the cancelled 3
  EXPECT_EQ(ahead_error, direct_error);
  EXPECT_NE(ahead_error.find("t.trace:41:1: bad CTA 40"), std::string::npos) << ahead_error;
}

TEST(ReadAheadKernel, CanBeDroppedBeforeTheEnd) {
  ScriptedKernel inner(100000, {}, 200000);
  {
    ReadAheadKernel ahead(inner, 4);
    for (int i = 0; i < 10; ++i) ASSERT_NE(ahead.next_cta(), nullptr);
  }  // the reader, blocked on a full queue, stops
  EXPECT_LT(inner.next_, 100000u);
  ScriptedKernel never(10, {}, 20);
  ReadAheadKernel unused(never);  // never asked: no reader to stop
}

}  // namespace
}  // namespace warpsim
