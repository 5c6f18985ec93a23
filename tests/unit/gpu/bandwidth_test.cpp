// A streaming read kernel takes about bytes / DRAM bandwidth, and every byte it asks for is
// read from DRAM exactly once.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/load_config.h"
#include "gpu/simulation.h"
#include "report/kernel_summary.h"

namespace warpsim {
namespace {

// Each warp reads `loads` float4 vectors per lane (512 bytes per instruction) from addresses no
// other warp touches, then exits: nothing but DRAM bandwidth limits it once enough is in flight.
class StreamingRead : public Workload {
 public:
  StreamingRead(uint32_t ctas, uint32_t loads) : ctas_(ctas), loads_(loads) {
    std::string error;
    decode_mnemonic("ld.global.v4.f32", op_, error);
  }
  uint64_t bytes() const { return uint64_t{ctas_} * 8 * loads_ * 512; }
  std::unique_ptr<KernelSource> next_kernel() override {
    if (done_) return nullptr;
    done_ = true;
    return std::make_unique<Kernel>(*this);
  }

 private:
  struct Stream : WarpStream {
    const OpInfo* op;
    uint64_t base;
    uint32_t left;
    RegId regs[4] = {0, 1, 2, 3};
    WarpInst inst;
    const WarpInst* next() override {
      if (left == 0) return nullptr;
      --left;
      // Sixteen register quadruples in turn: loads do not wait for each other (no WAW).
      for (int i = 0; i < 4; ++i) regs[i] = static_cast<RegId>((left % 16) * 4 + i);
      inst.op = op;
      inst.active_mask = 0xffffffffu;
      inst.num_dst = 4;
      inst.regs = regs;
      inst.addr = LaneAddresses{base, 16, nullptr};
      base += 512;
      return &inst;
    }
  };
  struct Cta : CtaWork {
    Dim3 cta_id;
    std::vector<Stream> warps;
    Dim3 id() const override { return cta_id; }
    uint32_t num_warps() const override { return static_cast<uint32_t>(warps.size()); }
    WarpStream& warp(uint32_t i) override { return warps[i]; }
  };
  struct Kernel : KernelSource {
    explicit Kernel(const StreamingRead& w) : w_(w) {
      info_.name = "stream";
      info_.grid = Dim3{w.ctas_, 1, 1};
      info_.block = Dim3{256, 1, 1};
      info_.registers_per_thread = 16;
    }
    const KernelInfo& info() const override { return info_; }
    std::unique_ptr<CtaWork> next_cta() override {
      if (next_ == w_.ctas_) return nullptr;
      auto c = std::make_unique<Cta>();
      c->cta_id = Dim3{next_, 1, 1};
      for (uint32_t i = 0; i < 8; ++i) {
        uint64_t warp = uint64_t{next_} * 8 + i;
        Stream s;
        s.op = &w_.op_;
        s.base = 0x100000000ull + warp * w_.loads_ * 512;
        s.left = w_.loads_;
        c->warps.push_back(s);
      }
      ++next_;
      return c;
    }
    const StreamingRead& w_;
    KernelInfo info_;
    uint32_t next_ = 0;
  };
  uint32_t ctas_, loads_;
  OpInfo op_;
  bool done_ = false;
};

TEST(Bandwidth, StreamingReadTakesBytesOverBandwidth) {
#ifdef WARPSIM_SANITIZED
  // The same code on every config, only the numbers differ: under the sanitizers one config is
  // enough, and the release build checks all five.
  const std::vector<std::string> archs = {"h100"};
#else
  const std::vector<std::string> archs = {"v100", "a100", "h100", "h200", "b200"};
#endif
  for (const std::string& arch : archs) {
    SCOPED_TRACE(arch);
    GpuSpec spec = load_gpu_config(arch).spec;
    // Four CTAs of 8 warps on every SM (1 MiB per SM), so no SM has more work than another.
    StreamingRead w(4 * spec.topology.sms, 64);
    Gpu gpu(spec);
    auto runs = simulate(gpu, w).kernels;
    Summary s = summarize_kernel(spec, gpu.stats(), runs[0]);
    EXPECT_EQ(s.dram_bytes_read, w.bytes());  // each sector once: no more, no less
    const double ideal = double(w.bytes()) / (spec.memory.hbm.peak_bytes_per_second() / spec.cycles_per_second());
    // Never faster than the peak. Slower by at most 12% plus refresh: the first bytes arrive only
    // after the DRAM latency (~2% of this run on B200, less elsewhere), hashed interleaving
    // leaves some channels a little busier than others at the end, row switches the other banks
    // do not hide cost ~1%, and refresh takes up to tRFC of every tREFI (all-bank refresh stops
    // the channel; per-bank refresh stalls the requests that wait on the refreshing bank).
    const double refresh = spec.memory.hbm.t_rfc_ns / spec.memory.hbm.t_refi_ns;
    EXPECT_GE(double(s.cycles), ideal);
    EXPECT_LE(double(s.cycles), (1.12 + refresh) * ideal);
    // Each warp reads 32 KiB in order. A lone stream would find its row open for 7 of the ~8
    // lines a channel's 1 KiB row holds; hundreds of warps streaming at once interleave their
    // rows in the same banks, so fewer hit, but still more than half.
    const double accesses = double(s.dram_row_hits + s.dram_row_empty + s.dram_row_conflicts);
    EXPECT_GT(double(s.dram_row_hits) / accesses, 0.5) << s.dram_row_hits << " hits of " << accesses;
    EXPECT_EQ(s.bound, "memory");
  }
}

}  // namespace
}  // namespace warpsim
