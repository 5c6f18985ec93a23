// Kernels in CUDA streams, side by side. A kernel of a named stream waits only for the kernel
// before it in the same stream; the CTA scheduler hands out one kernel's CTAs at a time, in the
// order the kernels were issued, and the next kernel's CTAs fill what room the SMs have left
// once every CTA of the one before has been handed out (the "left-over" policy measured on
// Kepler and later GPUs: Pai et al., "Improving GPGPU Concurrency with Elastic Kernels",
// ASPLOS 2013). Kernels share an SM as far as its warp slots, registers, shared memory and CTA
// slots allow (sm/cta_footprint.h).
//
// Statistics are taken per stretch of overlapping kernels: a kernel that ran alone gets its own;
// kernels that overlapped share one KernelRun, with each one's span and counts in `concurrent`.
#include <algorithm>
#include <deque>

#include "common/error.h"
#include "gpu/gpu.h"

namespace warpsim {

struct Gpu::StreamKernel {
  std::unique_ptr<KernelSource> source;
  ConcurrentKernel run;
  CtaFootprint footprint;
  uint64_t total = 0, launched = 0, done = 0;
  Cycle last_retire = 0;
  bool handed_out = false;  // every CTA launched (or cancelled)
  bool finished = false;    // and retired
};

struct Gpu::StreamRun {
  StreamRun(Workload& w, std::vector<KernelRun>& r) : workload(w), runs(r) {}
  Workload& workload;
  std::vector<KernelRun>& runs;
  std::vector<std::unique_ptr<StreamKernel>> kernels;  // started, in issue order
  uint32_t first_index = 0;                            // the first one's CtaFootprint::kernel_index
  std::deque<std::unique_ptr<KernelSource>> waiting;   // read from the workload, not started, in issue order
  bool workload_done = false;
  StreamKernel* head = nullptr;  // the kernel whose CTAs are being handed out
  bool dispatching = false;
  uint32_t next_sm = 0;  // where the next round of a kernel's dispatch begins
  // The stretch of overlapping kernels: where it starts in `kernels`, and the counters when it
  // began. `open` stays true after its last kernel finished until the next kernel starts or the
  // run drains, so that traffic still in flight counts in it.
  size_t stretch_first = 0;
  bool open = false;
  StatRegistry::Snapshot before;
  uint64_t dirty_before = 0;
};

namespace {
// Clears Gpu::streams_ however run_streams leaves.
template <class T>
struct ResetOnExit {
  T*& slot;
  ~ResetOnExit() { slot = nullptr; }
};
}  // namespace

std::unique_ptr<KernelSource> Gpu::run_streams(std::unique_ptr<KernelSource> first, Workload& workload,
                                               std::vector<KernelRun>& runs) {
  StreamRun run{workload, runs};
  run.waiting.push_back(std::move(first));
  run.first_index = kernels_started_;
  streams_ = &run;
  ResetOnExit<StreamRun> reset{streams_};
  // One host thread: kernels of an emulated workload share its memory, and whether a kernel's
  // CTAs share nothing is known only once it is read.
  batch_.set_threads(1);
  batch_.allow_parallel(false);
  ran_parallel_ = false;
  sampler_.reset();
  start_clusters();
  const Cycle start = ran_before_ ? engine_.now() + 1 : 0;
  ran_before_ = true;
  dispatch_streams(start);
  engine_.run(nullptr);

  std::string stuck = stuck_sms();
  for (const auto& k : run.kernels) {
    if (!k->finished && stuck.empty()) {
      stuck = "\nkernel '" + k->run.info.name + "': " + std::to_string(k->done) + " of " + std::to_string(k->total) + " CTAs completed";
    }
  }
  if (!stuck.empty()) {
    throw SimulationError("deadlock in the kernels of streams at cycle " + std::to_string(engine_.now()) +
                          ": no component can make progress, but warps remain (a barrier some warps never reach, or a "
                          "kernel waiting for one in another stream?)" + stuck);
  }
  if (run.open) close_stretch();
  // What is left waits for the GPU to itself (runs_alone), with nothing read after it.
  if (run.waiting.size() > 1) throw SimulationError("kernels of streams were read but never started");
  return run.waiting.empty() ? nullptr : std::move(run.waiting.front());
}

void Gpu::dispatch_streams(Cycle now) {
  StreamRun& run = *streams_;
  // A CTA with nothing to run retires inside launch and calls back here: the outer loop goes on.
  if (run.dispatching) return;
  run.dispatching = true;
  for (;;) {
    if (StreamKernel* head = run.head) {
      // Breadth-first, one CTA per SM per round, as the block scheduler spreads a grid, going
      // round the SMs from the one after the last that got a CTA (so a kernel beside a small
      // one lands on the SMs it left idle, as GPGPU-Sim's round-robin CTA issue does).
      bool launched = true;
      const auto sms = static_cast<uint32_t>(sms_.size());
      while (!head->handed_out && launched) {
        launched = false;
        for (uint32_t i = 0, first = run.next_sm; i < sms && !head->handed_out; ++i) {
          const uint32_t sm = (first + i) % sms;
          if (!sms_[sm]->fits(head->footprint)) continue;
          if (launch_from(*head, sm, now)) {
            launched = true;
            run.next_sm = (sm + 1) % sms;
          }
        }
      }
      if (!head->handed_out) break;  // waits for room
      run.head = nullptr;
    }
    if (!start_stream_kernel()) break;
  }
  run.dispatching = false;
}

bool Gpu::launch_from(StreamKernel& k, uint32_t sm, Cycle now) {
  auto cta = k.source->next_cta();
  const bool got = cta != nullptr;
  if (got) {
    if (k.launched++ == 0) {  // a kernel starts when its first CTA's warps do
      k.run.start = k.last_retire = sms_[sm]->first_cycle_of_launch(now);
      if (observer_) observer_->kernel_started(k.run.info, k.run.start);
    }
    launch(sm, std::move(cta), k.footprint, now);
  }
  // Once the grid is accounted for the source is asked once more, so that it can close (a trace
  // checks its CTA count then) and the next kernel may start. CTAs a running CTA cancelled
  // never launch (clusterlaunchcontrol.try_cancel).
  if (got && k.launched + k.source->cancelled_ctas().size() >= k.total) {
    if (k.source->next_cta()) throw SimulationError("kernel '" + k.run.info.name + "' handed out more CTAs than its grid has");
  }
  if (!got || k.launched + k.source->cancelled_ctas().size() >= k.total) {
    k.handed_out = true;
    if (k.done + k.source->cancelled_ctas().size() >= k.total && !k.finished) kernel_finished(k);
  }
  return got;
}

namespace {
// Whether a kernel must wait for one of `stream` issued before it (and not finished).
bool waits_on(const KernelInfo& info, const std::string& stream) {
  return stream == info.stream || std::find(info.waits_for.begin(), info.waits_for.end(), stream) != info.waits_for.end();
}
}  // namespace

bool Gpu::start_stream_kernel() {
  StreamRun& run = *streams_;
  // The first kernel read but not started whose streams let it start. Past one that must wait,
  // only a workload that can read ahead (Workload::reads_ahead) offers the next: the GPU's
  // hardware queues (Hyper-Q) let a later stream's kernel pass a waiting one; a trace, read
  // front to back, cannot.
  size_t pick = 0;
  for (;; ++pick) {
    if (pick == run.waiting.size()) {
      if (run.workload_done || (pick > 0 && !run.workload.reads_ahead())) return false;
      auto next = run.workload.next_kernel();
      if (!next) {
        run.workload_done = true;
        return false;
      }
      run.waiting.push_back(std::move(next));
    }
    const KernelInfo& info = run.waiting[pick]->info();
    if (runs_alone(info)) return false;  // nothing passes it; run_streams hands it back once the others have finished
    bool blocked = false;
    for (const auto& k : run.kernels) blocked |= !k->finished && waits_on(info, k->run.info.stream);
    for (size_t i = 0; i < pick; ++i) blocked |= waits_on(info, run.waiting[i]->info().stream);
    if (!blocked) break;
  }

  auto k = std::make_unique<StreamKernel>();
  k->source = std::move(run.waiting[pick]);
  run.waiting.erase(run.waiting.begin() + static_cast<std::ptrdiff_t>(pick));
  const KernelInfo& info = k->source->info();
  k->run.info = info;
  k->run.occupancy = compute_occupancy(spec_, k->run.info);
  k->source->resident_ctas(resident_ctas(spec_, k->run.info, k->run.occupancy));
  k->footprint = footprint(k->run.info, k->run.occupancy);
  k->total = k->run.info.grid.count();
  const bool stretch_over = std::all_of(run.kernels.begin() + static_cast<std::ptrdiff_t>(run.stretch_first), run.kernels.end(),
                                       [](const auto& s) { return s->finished; });
  if (run.open && stretch_over) close_stretch();
  if (!run.open) {
    run.open = true;
    run.stretch_first = run.kernels.size();
    run.before = stats_.snapshot();
    run.dirty_before = memory_.l2_dirty_bytes();
  }
  run.head = k.get();
  run.kernels.push_back(std::move(k));
  return true;
}

void Gpu::stream_cta_done(const Sm::CtaEnd& end) {
  StreamRun& run = *streams_;
  StreamKernel& k = *run.kernels.at(end.kernel - run.first_index);
  ++k.done;
  k.run.warp_instructions += end.warp_instructions;
  k.last_retire = std::max(k.last_retire, end.now);
  const uint64_t cancelled = k.source->cancelled_ctas().size();
  if (progress_) progress_(k.run.info, k.done + cancelled, k.total);
  if (k.handed_out && k.done + cancelled >= k.total) kernel_finished(k);
  if (run.dispatching) return;  // the loop that launched this CTA goes on
  // The freed room goes to the kernel handing out CTAs; room frees only on this SM, so the
  // others need a look only when the next kernel may start.
  if (StreamKernel* head = run.head) {
    while (!head->handed_out && sms_[end.sm]->fits(head->footprint) && launch_from(*head, end.sm, end.now)) {
    }
  }
  if (!run.head || run.head->handed_out) dispatch_streams(end.now);
}

void Gpu::kernel_finished(StreamKernel& k) {
  k.finished = true;
  k.run.ctas = k.done;
  k.run.end = k.last_retire + 1;
  if (observer_) observer_->kernel_finished(k.run.info, k.run.end);
}

void Gpu::close_stretch() {
  StreamRun& run = *streams_;
  KernelRun r;
  std::vector<ConcurrentKernel> members;
  for (size_t i = run.stretch_first; i < run.kernels.size(); ++i) members.push_back(run.kernels[i]->run);
  const ConcurrentKernel& first = members.front();
  if (members.size() == 1) {
    r.info = first.info;
    r.occupancy = first.occupancy;
  } else {
    r.info.name = first.info.name;
    for (size_t i = 1; i < members.size(); ++i) r.info.name += " + " + members[i].info.name;
    r.info.source_file = first.info.source_file;
  }
  r.start = first.start;
  for (const auto& m : members) {
    r.end = std::max(r.end, m.end);
    r.ctas += m.ctas;
  }
  r.stats = StatRegistry::difference(stats_.snapshot(), run.before);
  r.l2_dirty_bytes_start = run.dirty_before;
  r.l2_dirty_bytes_end = memory_.l2_dirty_bytes();
  if (members.size() > 1) r.concurrent = std::move(members);
  run.runs.push_back(std::move(r));
  run.open = false;
}

}  // namespace warpsim
