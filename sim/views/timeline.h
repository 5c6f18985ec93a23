#pragma once
// Chrome Trace Event JSON that Perfetto (ui.perfetto.dev) and chrome://tracing open: a process
// per SM, a thread per warp slot, an `X` event per issued instruction (named by its opcode) and
// per stall interval (named by its Nsight Compute warp state), and counters: active warps and
// IPC per SM, L1/L2 hit rates and DRAM bandwidth for the GPU.
//
// Time axis: one timeline microsecond is one core cycle, so events sit on whole cycles and never
// overlap on a track. The file is built in memory up to a byte cap and written whole at the end;
// past the cap, warp events are dropped (counted, and said in the file and on stderr).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/gpu_spec.h"
#include "observe/warp_observer.h"
#include "stats/stat_registry.h"

namespace warpsim {

struct TimelineOptions {
  uint64_t max_bytes = 100ull << 20;
  std::vector<uint32_t> sms;    // SMs to show (empty: all)
  std::vector<uint32_t> slots;  // warp slots to show on those SMs (empty: all)
  Cycle from = 0, to = kNever;  // cycle window [from, to)
  Cycle counter_interval = 1000;
};

class Timeline : public WarpObserver {
 public:
  Timeline(TimelineOptions options, const GpuSpec& spec, const StatRegistry& stats);

  void kernel_started(const KernelInfo& kernel, Cycle start) override;
  void kernel_finished(const KernelInfo& kernel, Cycle end) override;
  void warp_launched(uint32_t sm, uint32_t slot, const KernelInfo& kernel, Dim3 cta, uint32_t warp_in_cta, Cycle first) override;
  void warp_state(uint32_t sm, uint32_t slot, Cycle at, StallReason reason, const WarpInst* issued) override;
  void warp_retired(uint32_t sm, uint32_t slot, Cycle end) override;

  // The whole JSON document. Call after the simulation.
  std::string finish();
  uint64_t dropped_events() const { return dropped_; }
  uint64_t written_events() const { return written_; }
  // A one-line description of what was left out ("" when nothing was).
  std::string note() const;

 private:
  struct Open {  // the state a warp slot is in since `since`
    bool open = false;
    StallReason reason{};
    Cycle since = 0;
    std::string opcode;  // for an issue
    uint32_t pc = 0, line = 0, source_line = 0, mask = 0;
  };
  struct Slot {
    Open state;
    Dim3 cta;
    uint32_t warp = 0;
    std::vector<std::string> occupants;  // "CTA (x,y,z) warp w", first few
    uint32_t more_occupants = 0;
    bool used = false;
  };
  struct Gauge {  // registry counters summed over a group, read live
    std::vector<const uint64_t*> values;
    uint64_t last = 0;
    uint64_t read() const;
  };

  bool shows_sm(uint32_t sm) const;
  bool shows(uint32_t sm, uint32_t slot) const;
  void close(uint32_t sm, uint32_t slot, Slot& s, Cycle end);
  void emit_span(uint32_t sm, uint32_t slot, const Slot& s, Cycle begin, Cycle end);
  void sample(Cycle now);
  void counter(uint32_t pid, const char* name, Cycle at, double value);
  void append(const std::string& event);
  Gauge gauge(const std::string& group) const;

  TimelineOptions options_;
  std::string gpu_name_;  // copied: the spec may not outlive this object
  double clock_mhz_ = 0;
  const StatRegistry& stats_;
  std::vector<std::vector<Slot>> slots_;  // [sm][slot]
  std::vector<uint32_t> active_warps_, issued_;
  std::vector<bool> sm_used_;
  std::string body_;
  uint64_t written_ = 0, dropped_ = 0;
  Cycle next_sample_ = 0, last_sample_ = 0;
  Gauge l1_hits_, l1_misses_, l2_hits_, l2_reads_, dram_read_, dram_written_;
  struct KernelSpan {
    std::string name;
    Cycle start, end;
    const KernelInfo* info;  // while it runs (kernel_finished finds it by this)
    uint32_t track;          // 0: the default stream's; then one per named stream
    bool running;
  };
  std::vector<KernelSpan> kernels_;
  std::vector<std::string> streams_;  // named streams in the order their first kernel started
};

// Parses "0,2,5-7" into a sorted list; throws std::invalid_argument with what was wrong.
std::vector<uint32_t> parse_index_list(const std::string& text);

}  // namespace warpsim
