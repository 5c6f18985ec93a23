#pragma once
// Sampled timing of large grids (`warpsim run --sample`; docs/sampling.md): the timing model runs
// a kernel's CTAs until the GPU's CTA throughput is steady, and the rest of the grid's time is
// projected from what it measured instead of simulated. The untimed CTAs still run, in the
// emulator only, so a launch's results and checks stay complete.
//
// The measurement is split into windows of at least `slots` completions (slots: the CTAs the GPU
// holds at once, so a window is at least one wave's worth) that span at least one DRAM refresh
// interval. The first window (cold caches, every CTA starting at once) is dropped; the others are
// batches in the batch-means method of simulation output analysis, each giving a completion rate
// (CTAs per cycle: a count over a time, which unlike the durations of the CTAs that happen to
// finish in a window is not biased towards short ones). Batches at the start that still drift
// are left out by MSER's truncation rule, and the run stops once the 95% confidence interval of
// the mean rate (Student's t over at least ten batches) is within the tolerance of it and the
// first and last halves of the batches agree as closely (a drift MSER has not cut away yet, as
// it only looks as far as the first half). The
// projection list-schedules the rest onto the slots, each CTA taking slots / rate cycles: each
// CTA in flight frees its slot that long after it launched (not before the stop), each free slot
// takes the next CTA; the kernel ends when the last slot does.
#include <cstdint>
#include <set>
#include <vector>

#include "engine/cycle.h"
#include "isa/flop_counts.h"

namespace warpsim {

struct SamplingOptions {
  bool enabled = false;
  // The widest relative half-width of the mean completion rate's 95% confidence interval at
  // which the timing stops.
  double tolerance = 0.02;
  // The shortest window, in cycles: the GPU sets it to the DRAM refresh interval, so that each
  // window's rates include their share of refresh (a window between two refreshes runs faster).
  Cycle min_window_cycles = 0;
};

// What a sampled kernel reports (KernelRun::sampling). `sampled` is false when the kernel ran
// whole in the timing model (sampling off, a grid too small to gain from it, or a throughput that
// never became steady).
struct SamplingResult {
  bool sampled = false;
  uint64_t ctas_timed = 0;          // CTAs the timing model ran (those in flight at the stop included)
  uint64_t ctas_untimed = 0;        // CTAs run in the emulator only
  uint64_t untimed_warp_instructions = 0;
  uint64_t untimed_thread_instructions = 0;  // their active lanes
  FlopCounts untimed_flops;                  // as the SMs would have counted them
  Cycle stop = 0;                   // the cycle the sampler stopped launching CTAs
  Cycle estimated_cycles = 0;       // the projected kernel time (start to the last CTA's end)
  // How much later the projection ends with the completion rate at the bottom of its confidence
  // interval: the batches are not independent (DRAM and cache state carry over), so this is a
  // measure of the sample's noise, not a bound (docs/sampling.md gives the errors measured
  // against whole runs).
  Cycle spread_cycles = 0;
  uint64_t batches = 0;
  double mean_cta_cycles = 0;       // slots / the batches' completion rate: a CTA's time in a slot
};

class CtaSampler {
 public:
  // `total`: the grid's CTAs; `slots`: how many the GPU holds at once; `start`: the kernel's
  // first cycle.
  CtaSampler(const SamplingOptions& options, uint64_t total, uint64_t slots, Cycle start);

  // Whether the grid is large enough for sampling to save anything: the timed part is at least
  // eleven windows of at least a wave each, and a wave must be left to launch, so a grid of fewer
  // than twelve waves is run whole.
  static bool worthwhile(uint64_t total, uint64_t slots) { return slots > 0 && total >= 12 * slots; }

  void launched(Cycle now) { in_flight_.insert(now); }
  // A CTA that launched at `launched` retired at `now`. Returns true when the sampler has just
  // stopped: the GPU must launch no more CTAs of this kernel. `may_stop` false (a clustered
  // kernel with a cluster taken but not placed, a grid whose CTAs were cancelled) defers the
  // decision to a later completion.
  bool completed(Cycle launched, Cycle now, bool may_stop);
  bool stopped() const { return stopped_; }
  // Valid once stopped; ctas_untimed and untimed_warp_instructions are the caller's to fill.
  const SamplingResult& result() const { return result_; }

  // The projected end (the last CTA's retire cycle) of `remaining` CTAs not yet launched, given
  // the launch cycles of those in flight, `slots` slots, the stop cycle and the cycles a CTA holds
  // its slot.
  static Cycle project_end(const std::multiset<Cycle>& in_flight, uint64_t slots, uint64_t remaining, Cycle stop,
                           double duration);

 private:
  struct Window {
    Cycle start = 0;  // the previous window's end
    uint64_t ctas = 0;
  };
  // Ten: a confidence interval from fewer batches is itself too uncertain (Schmeiser, Operations
  // Research 30(3), 1982, advises 10 to 30); with three, a lucky quiet start stopped a sampled
  // trace early, 1.4% low.
  static constexpr size_t kMinBatches = 10;
  struct Estimate {
    size_t batches = 0;              // used (0: too few after the warm-up to estimate)
    double cta_cycles = 0;           // slots / their CTAs' completion rate: a CTA's time in a slot
    double relative_half_width = 0;  // of the batch rates' 95% confidence interval, relative to their mean
    double drift = 0;                // between the mean rates of the first and last halves of those batches, relative
  };
  size_t warm_up_batches() const;  // batches at the start to leave out (MSER)
  Estimate estimate() const;

  SamplingOptions options_;
  uint64_t total_, slots_;
  Cycle start_;
  std::multiset<Cycle> in_flight_;  // launch cycles of the CTAs running now
  uint64_t done_ = 0;
  Window current_{};
  uint64_t windows_ = 0;
  std::vector<double> batch_rates_;  // CTAs completed per cycle in each window after the first
  std::vector<uint64_t> batch_ctas_;
  Estimate estimate_;      // at the last window's close
  bool steady_ = false;   // the confidence interval is narrow enough: stop at the next completion that may
  bool stopped_ = false;
  SamplingResult result_;
};

}  // namespace warpsim
