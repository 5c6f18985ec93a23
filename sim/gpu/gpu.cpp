#include "gpu/gpu.h"

#include <cmath>

#include "common/error.h"
#include "frontend/in_order_run.h"
#include "frontend/read_ahead_kernel.h"

namespace warpsim {

Gpu::Gpu(const GpuSpec& spec) : spec_(spec), memory_(spec, engine_, stats_) {
  std::vector<MemResponder*> responders;
  for (uint32_t i = 0; i < spec.topology.sms; ++i) {
    sms_.push_back(std::make_unique<Sm>(i, spec, engine_, memory_, stats_, clusters_, [this](const Sm::CtaEnd& end) { cta_done(end); }));
    responders.push_back(sms_.back().get());
  }
  memory_.connect(std::move(responders));
  sm_split_for_.assign(sms_.size(), UINT32_MAX);
  engine_.set_batch_runner(&batch_);
  stats_.add("gpu.ctas_cancelled", &ctas_cancelled_, "CTAs",
             "CTAs whose launch a running CTA cancelled (clusterlaunchcontrol.try_cancel) and took over");
}

void Gpu::set_observer(WarpObserver* o) {
  observer_ = o;
  for (auto& sm : sms_) sm->set_observer(o);
}

KernelRun Gpu::run_kernel(KernelSource& kernel) {
  // Host threads (gpu/sm_batch.h): the SMs tick apart when nothing reaches from one CTA into
  // another within a cycle; from three threads on, a trace also gets one of them to parse CTAs
  // ahead. With two, both tick: a grid the GPU holds whole needs every CTA parsed before it can
  // start, and the reader then only adds hand-overs (SGEMM 256's trace: 13% slower than one
  // thread, where two ticking threads are 13-15% faster; docs/performance.md#host-threads).
  const bool apart = kernel.ctas_share_nothing() && !kernel.info().clustered() && observer_ == nullptr;
  const bool read_ahead = apart && host_threads_ >= 3 && kernel.parses_ctas();
  batch_.set_threads(read_ahead ? host_threads_ - 1 : host_threads_);
  batch_.allow_parallel(apart);
  ran_parallel_ = read_ahead || batch_.parallel();
  if (!read_ahead) return run_source(kernel);
  ReadAheadKernel ahead(kernel);
  return run_source(ahead);
}

KernelRun Gpu::run_source(KernelSource& kernel) {
  KernelRun run;
  run.info = kernel.info();
  run.occupancy = compute_occupancy(spec_, run.info);
  const uint64_t resident = resident_ctas(spec_, run.info, run.occupancy);
  footprint_ = footprint(run.info, run.occupancy);
  for (uint32_t s = 0; s < sms_.size(); ++s) {
    sms_[s]->start_kernel(run.occupancy.l1_bytes, run.occupancy.shared_carveout);
    sm_split_for_[s] = footprint_.kernel_index;
  }
  run.start = ran_before_ ? engine_.now() + 1 : 0;
  ran_before_ = true;
  kernel_ = &kernel;
  ctas_done_ = 0;
  ctas_total_ = run.info.grid.count();
  sampler_.reset();
  if (sampling_.enabled && !run.info.cooperative && CtaSampler::worthwhile(ctas_total_, resident)) {
    SamplingOptions options = sampling_;
    options.min_window_cycles = static_cast<Cycle>(std::ceil(spec_.memory.hbm.t_refi_ns * 1e-9 * spec_.cycles_per_second()));
    sampler_.emplace(options, ctas_total_, resident, run.start);
  }
  last_retire_ = run.start;
  next_dispatch_ = static_cast<double>(run.start);
  const auto before = stats_.snapshot();
  run.l2_dirty_bytes_start = memory_.l2_dirty_bytes();
  if (observer_) observer_->kernel_started(run.info, run.start);
  start_clusters();
  pending_.clear();
  next_gpc_ = 0;
  grid_done_ = false;
  dispatching_ = false;

  if (run.info.clustered()) {
    dispatch_clusters(run.start);
  } else {
    kernel.resident_ctas(resident);
    // Breadth-first initial dispatch: one CTA per SM per round, as the hardware's block
    // scheduler spreads a grid across SMs before stacking them.
    bool more = true;
    for (uint32_t round = 0; round < run.occupancy.ctas_per_sm && more; ++round) {
      for (uint32_t sm = 0; sm < sms_.size(); ++sm) {
        auto cta = kernel.next_cta();
        if (!cta) {
          more = false;
          break;
        }
        launch(sm, std::move(cta), footprint_, run.start);
      }
    }
  }
  engine_.run(nullptr);
  kernel_ = nullptr;

  const std::string stuck = stuck_sms();
  if (!stuck.empty()) {
    throw SimulationError("deadlock in kernel '" + run.info.name + "' at cycle " + std::to_string(engine_.now()) +
                          ": no component can make progress, but warps remain (a barrier some warps never reach?)" + stuck);
  }
  run.l2_dirty_bytes_end = memory_.l2_dirty_bytes();
  if (sampler_ && sampler_->stopped()) {
    // The rest of the grid is projected; its CTAs still run, in the emulator only, so that the
    // kernel's results are complete.
    run.sampling = sampler_->result();
    InOrderVisitor visit;
    visit.cta = [&](const Dim3&) { ++run.sampling.ctas_untimed; };
    visit.instruction = [&](const WarpInst& inst, uint32_t) {
      ++run.sampling.untimed_warp_instructions;
      run.sampling.untimed_thread_instructions += static_cast<uint64_t>(inst.active_lanes());
      run.sampling.untimed_flops.count(*inst.op, inst.active_mask);
    };
    finish_in_order(kernel, resident, visit);
  }
  // CTAs a running CTA cancelled never launch; the grid is complete without them.
  const uint64_t cancelled = kernel.cancelled_ctas().size();
  if (ctas_done_ + run.sampling.ctas_untimed + cancelled != ctas_total_) {
    throw SimulationError("kernel '" + run.info.name + "': " + std::to_string(ctas_done_) + " of " +
                          std::to_string(ctas_total_) + " CTAs completed" +
                          (run.sampling.ctas_untimed ? ", " + std::to_string(run.sampling.ctas_untimed) + " ran untimed" : "") +
                          (cancelled ? " and " + std::to_string(cancelled) + " were cancelled" : ""));
  }
  ctas_cancelled_ += cancelled;
  run.ctas = ctas_done_;
  run.end = ctas_total_ ? last_retire_ + 1 : run.start;
  run.stats = StatRegistry::difference(stats_.snapshot(), before);
  if (observer_) observer_->kernel_finished(run.info, run.end);
  return run;
}

void Gpu::start_clusters() {
  clusters_.start_kernel(
      spec_.clusters.barrier_latency, [this](uint32_t sm, uint32_t warp, Cycle at) { sms_[sm]->release_cluster_wait(warp, at); },
      [this](uint32_t sm, uint32_t slot, const MbarrierSignal& signal, Cycle at) { sms_[sm]->mbarrier_signal(slot, signal, at); },
      [this](uint32_t sm, Cycle earliest, Cycle interval) { return sms_[sm]->hold_tensor_for_peer(earliest, interval); });
}

std::string Gpu::stuck_sms() const {
  std::string stuck;
  for (const auto& sm : sms_)
    if (!sm->idle()) stuck += "\n" + sm->describe_state();
  return stuck;
}

CtaFootprint Gpu::footprint(const KernelInfo& info, const Occupancy& o) {
  CtaFootprint f;
  f.kernel = &info;
  f.kernel_index = kernels_started_++;
  f.warps = o.warps_per_cta;
  f.registers = o.registers_per_warp * o.warps_per_cta;
  f.shared = o.shared_per_cta;
  f.max_resident = o.ctas_per_sm;
  f.kernel_carveout = o.shared_carveout;
  return f;
}

void Gpu::launch(uint32_t sm, std::unique_ptr<CtaWork> cta, const CtaFootprint& f, Cycle now) {
  if (sampler_) sampler_->launched(now);  // first: a CTA with nothing to run retires inside launch_cta
  // A kernel boundary reaches an SM when the kernel's first CTA lands on it idle (with streams,
  // an SM still running an earlier kernel's CTAs keeps its split and its L1's contents).
  if (sm_split_for_[sm] != f.kernel_index && sms_[sm]->idle()) {
    const uint32_t carveout = f.kernel_carveout;
    sms_[sm]->start_kernel(spec_.memory.l1.unified_bytes - carveout, carveout);
    sm_split_for_[sm] = f.kernel_index;
  }
  // The CTA scheduler hands out one CTA every dispatch_cycles GPU-wide (configs/h100.yaml says
  // what the H200's empty grids measured).
  const double interval = spec_.cta_scheduler.dispatch_cycles;
  Cycle start = now;
  if (interval > 0) {
    next_dispatch_ = std::max(next_dispatch_, static_cast<double>(now));
    start = static_cast<Cycle>(std::ceil(next_dispatch_));
    next_dispatch_ += interval;
  }
  sms_[sm]->launch_cta(std::move(cta), f, now, start);
}

void Gpu::cta_done(const Sm::CtaEnd& end) {
  if (streams_) return stream_cta_done(end);
  const Cycle now = end.now;
  ++ctas_done_;
  last_retire_ = std::max(last_retire_, now);
  // Cancelled CTAs are settled too: without them a work-stealing grid would never reach its total.
  if (progress_) progress_(kernel_->info(), ctas_done_ + kernel_->cancelled_ctas().size(), ctas_total_);
  if (sampler_) {
    // Not with a cluster taken but not placed (it would be lost to the untimed run) nor once
    // CTAs have been cancelled (their work moves into running CTAs, so completions stop
    // measuring work done).
    sampler_->completed(end.launched, now, pending_.empty() && kernel_->cancelled_ctas().empty());
    if (sampler_->stopped()) return;  // the CTAs in flight drain; the rest run untimed
  }
  if (kernel_->info().clustered()) {
    dispatch_clusters(now);
  } else if (auto cta = kernel_->next_cta()) {
    launch(end.sm, std::move(cta), footprint_, now);
  }
}

}  // namespace warpsim
