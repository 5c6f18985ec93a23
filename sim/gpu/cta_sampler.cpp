#include "gpu/cta_sampler.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace warpsim {
namespace {

// Student's t distribution's 97.5% quantile for 1 to 30 degrees of freedom (any statistics
// table); 2.042 (30's) beyond, which errs on the wide side.
double t_975(uint64_t degrees) {
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  return kTable[std::min<uint64_t>(std::max<uint64_t>(degrees, 1), 30) - 1];
}

}  // namespace

CtaSampler::CtaSampler(const SamplingOptions& options, uint64_t total, uint64_t slots, Cycle start)
    : options_(options), total_(total), slots_(slots), start_(start) {
  current_.start = start;
}

size_t CtaSampler::warm_up_batches() const {
  // MSER (White 1997): the truncation d that minimises the retained batches' squared deviations
  // over their count squared, searched over the first half; from sums over the tail, so a
  // kernel that never settles costs linear time per window.
  const size_t n = batch_rates_.size();
  size_t best = 0;
  double best_value = 0, sum = 0, squares = 0;
  for (size_t d = n; d-- > 0;) {
    sum += batch_rates_[d];
    squares += batch_rates_[d] * batch_rates_[d];
    if (d > n / 2) continue;
    const double m = double(n - d), deviations = squares - sum * sum / m;
    // Rounding leaves equal batches a few ulps of deviation; they count as none, so that ties
    // keep the most batches.
    const double value = deviations > 1e-12 * squares ? deviations / (m * m) : 0.0;
    if (d == n / 2 || value <= best_value) {
      best = d;
      best_value = value;
    }
  }
  return best;
}

CtaSampler::Estimate CtaSampler::estimate() const {
  Estimate e;
  const size_t first = warm_up_batches(), n = batch_rates_.size() - first;
  if (n < kMinBatches) return e;
  double mean = 0, squares = 0, ctas = 0, cycles = 0;
  for (size_t i = first; i < batch_rates_.size(); ++i) {
    mean += batch_rates_[i] / double(n);
    ctas += double(batch_ctas_[i]);
    cycles += double(batch_ctas_[i]) / batch_rates_[i];
  }
  for (size_t i = first; i < batch_rates_.size(); ++i) squares += (batch_rates_[i] - mean) * (batch_rates_[i] - mean);
  // A drift the truncation has not cut away yet shows as halves that differ.
  double early = 0, late = 0;
  for (size_t i = 0; i < n / 2; ++i) {
    early += batch_rates_[first + i] / double(n / 2);
    late += batch_rates_[batch_rates_.size() - 1 - i] / double(n / 2);
  }
  e.drift = std::abs(late - early) / mean;
  e.batches = n;
  e.cta_cycles = double(slots_) * cycles / ctas;
  e.relative_half_width = t_975(n - 1) * std::sqrt(squares / double(n - 1)) / std::sqrt(double(n)) / mean;
  return e;
}

bool CtaSampler::completed(Cycle launched, Cycle now, bool may_stop) {
  if (auto it = in_flight_.find(launched); it != in_flight_.end()) in_flight_.erase(it);
  if (stopped_) return false;
  ++done_;
  ++current_.ctas;
  if (current_.ctas >= slots_ && now > current_.start && now - current_.start >= options_.min_window_cycles) {
    // A window closes. The first holds the cold start and is never a batch.
    if (++windows_ >= 2) {
      batch_rates_.push_back(double(current_.ctas) / double(now - current_.start));
      batch_ctas_.push_back(current_.ctas);
      estimate_ = estimate();
      steady_ = estimate_.batches > 0 && estimate_.relative_half_width <= options_.tolerance && estimate_.drift <= options_.tolerance;
    }
    current_ = Window{now, 0};
  }
  const uint64_t started = done_ + in_flight_.size();
  const uint64_t remaining = total_ > started ? total_ - started : 0;
  // Less than a wave left: stopping would save less than the drain of the CTAs in flight costs.
  if (!steady_ || !may_stop || remaining < slots_) return false;
  stopped_ = true;
  const Estimate& e = estimate_;
  const Cycle end = project_end(in_flight_, slots_, remaining, now, e.cta_cycles);
  const Cycle longer = project_end(in_flight_, slots_, remaining, now, e.cta_cycles / (1 - std::min(0.5, e.relative_half_width)));
  result_.sampled = true;
  result_.ctas_timed = started;
  result_.stop = now;
  result_.batches = e.batches;
  result_.estimated_cycles = end + 1 - start_;  // as KernelRun::end: the cycle after the last retire
  result_.spread_cycles = longer - end;
  result_.mean_cta_cycles = e.cta_cycles;
  return true;
}

Cycle CtaSampler::project_end(const std::multiset<Cycle>& in_flight, uint64_t slots, uint64_t remaining, Cycle stop,
                              double duration) {
  // When each slot frees: CTAs in flight one mean duration after their launch (not before the
  // stop); slots empty at the stop at once.
  std::vector<double> free;
  free.reserve(slots);
  for (const Cycle l : in_flight) free.push_back(std::max(double(stop), double(l) + duration));
  while (free.size() < slots) free.push_back(double(stop));
  std::sort(free.begin(), free.end());
  // All remaining CTAs take the same time, so the earliest-free slot takes the next one in turn:
  // the i-th earliest slot runs remaining / slots of them, and one more if i < remaining % slots.
  double end = double(stop);
  for (uint64_t i = 0; i < free.size(); ++i) {
    const uint64_t n = remaining / slots + (i < remaining % slots ? 1 : 0);
    end = std::max(end, free[i] + double(n) * duration);
  }
  return static_cast<Cycle>(std::llround(end));
}

}  // namespace warpsim
