#pragma once
// The frontend interface: a workload is a sequence of kernels; a kernel hands out its CTAs in
// launch order; a CTA hands each warp a stream of dynamic instructions pulled one at a time.
// Trace files and (later) the PTX emulator implement it; the timing model only consumes it,
// so a kernel with billions of instructions is never in memory whole.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/dim3.h"
#include "frontend/warp_inst.h"

namespace warpsim {

struct KernelInfo {
  std::string name;
  Dim3 grid, block;
  // Thread-block cluster shape (Hopper+); (1,1,1) when the kernel has none. A kernel source
  // hands out a cluster's CTAs one after another, so the CTA scheduler can place them together.
  Dim3 cluster;
  uint32_t shared_bytes = 0;      // static + dynamic shared memory per CTA
  uint32_t registers_per_thread = 0;
  std::string source_file;        // for messages that point at an instruction's line
  // cudaLaunchCooperativeKernel: the CTAs may wait for each other (grid.sync()), so all of them
  // must be resident at once; the GPU refuses a grid larger than that.
  bool cooperative = false;
  // The CUDA stream it was issued to; empty for the default stream, which waits for every
  // kernel issued before it and holds back every kernel issued after it. Kernels in named
  // streams wait only for the kernel before them in the same stream (gpu/gpu_streams.cpp).
  std::string stream;
  // Named streams whose kernels issued before this one it also waits for, as after
  // cudaStreamWaitEvent on an event recorded in each (a join of streams).
  std::vector<std::string> waits_for;
  bool clustered() const { return cluster.count() > 1; }
  // The cluster a CTA belongs to (linear, x fastest over the grid of clusters) and its rank
  // inside it (x fastest, as %cluster_ctarank numbers them).
  uint64_t cluster_of(const Dim3& cta) const {
    return linear_index(Dim3{cta.x / cluster.x, cta.y / cluster.y, cta.z / cluster.z},
                        Dim3{grid.x / cluster.x, grid.y / cluster.y, grid.z / cluster.z});
  }
  uint32_t rank_in_cluster(const Dim3& cta) const {
    return static_cast<uint32_t>(linear_index(Dim3{cta.x % cluster.x, cta.y % cluster.y, cta.z % cluster.z}, cluster));
  }
  uint32_t warps_per_cta() const { return static_cast<uint32_t>((block.count() + 31) / 32); }
  // Active lanes of warp `w` when all threads run (the last warp may be partial).
  uint32_t full_mask(uint32_t w) const {
    uint64_t threads = block.count() - uint64_t{w} * 32;
    return threads >= 32 ? 0xffffffffu : static_cast<uint32_t>((1ull << threads) - 1);
  }
};

class WarpStream {
 public:
  virtual ~WarpStream() = default;
  // The next instruction, or nullptr when the warp has finished. The pointer stays valid until
  // the next call on this stream.
  virtual const WarpInst* next() = 0;
};

class CtaWork {
 public:
  virtual ~CtaWork() = default;
  virtual Dim3 id() const = 0;
  virtual uint32_t num_warps() const = 0;
  virtual WarpStream& warp(uint32_t index) = 0;
  // Called when the GPU places the CTA on SM `sm` of `sms`, before any of its warps runs
  // (for %smid and %nsmid).
  virtual void placed(uint32_t /*sm*/, uint32_t /*sms*/) {}
  // Whether warp `index` waits at a CTA barrier whose phase has not completed, with nothing
  // executed ahead left to hand out. The timing model holds such a warp; a run without it
  // (frontend/in_order_run.cpp) asks the warp again once this is false.
  virtual bool waiting_at_barrier(uint32_t /*index*/) const { return false; }
};

class KernelSource {
 public:
  virtual ~KernelSource() = default;
  virtual const KernelInfo& info() const = 0;
  // The next CTA in launch order, or nullptr when all have been handed out. Throws InputError
  // for malformed input.
  virtual std::unique_ptr<CtaWork> next_cta() = 0;
  // How many of its CTAs the GPU holds at once, told before the first is asked for (kernels
  // without clusters): an emulating source can then tell a grid whose resident CTAs all wait for
  // ones that cannot begin.
  virtual void resident_ctas(uint64_t /*ctas*/) {}
  // CTAs whose launch a running CTA cancelled (clusterlaunchcontrol.try_cancel, Blackwell), in the
  // order cancelled: next_cta never hands them out, and the grid is complete without them.
  virtual const std::vector<Dim3>& cancelled_ctas() const {
    static const std::vector<Dim3> kNone;
    return kNone;
  }
  // Whether its CTAs, once handed out, share no mutable state (with each other or with the
  // source): their warps' streams may then be read on several host threads at once. True for
  // parsed traces; false for the emulator, whose CTAs share global memory.
  virtual bool ctas_share_nothing() const { return false; }
  // Whether next_cta parses text (a trace): worth running ahead on a thread of its own
  // (frontend/read_ahead_kernel.h) when the GPU has host threads to spare.
  virtual bool parses_ctas() const { return false; }
};

class Workload {
 public:
  virtual ~Workload() = default;
  // The next kernel, or nullptr at the end. The previous kernel's source must have handed out
  // all its CTAs, unless reads_ahead().
  virtual std::unique_ptr<KernelSource> next_kernel() = 0;
  // Whether next_kernel may be called while earlier kernels still hand out CTAs (kernels of
  // streams passing one that waits). False for a file read front to back.
  virtual bool reads_ahead() const { return false; }
};

}  // namespace warpsim
