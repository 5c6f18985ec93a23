// warpsim trace's recording: the launch file runs through the timing model, as `warpsim run`
// runs it, and every instruction a warp's stream hands the model is written down as it goes,
// so the trace holds exactly what that run executed: a spin loop's or a CAS retry loop's
// iterations, and a cooperative grid's barrier polls, as many as the run took.
#include "cli/trace_recording.h"

#include <memory>
#include <sstream>
#include <vector>

#include "gpu/simulation.h"

namespace warpsim::cli {
namespace {

// What one kernel's CTAs recorded, in the order the GPU took them: per CTA its id and each
// warp's trace lines. Shared by the kernel and its CTAs, which the GPU may outlive either way.
struct KernelRecording {
  KernelInfo info;
  struct Cta {
    Dim3 id;
    std::vector<std::string> warps;
  };
  std::vector<Cta> ctas;
  std::vector<Dim3> cancelled;  // CTAs a running CTA cancelled (they never ran)
  NameOf name_of;               // its registers' names
};

class RecordingWarp : public WarpStream {
 public:
  RecordingWarp(WarpStream& inner, uint32_t full_mask, const NameOf& name_of)
      : inner_(inner), full_mask_(full_mask), name_of_(name_of), writer_(lines_, TraceWriter::kNoHeader) {}
  const WarpInst* next() override {
    const WarpInst* inst = inner_.next();
    if (inst) writer_.instruction(*inst, full_mask_, name_of_);
    return inst;
  }
  std::string lines() const { return lines_.str(); }

 private:
  WarpStream& inner_;
  uint32_t full_mask_;
  const NameOf& name_of_;
  std::ostringstream lines_;
  TraceWriter writer_;
};

class RecordingCta : public CtaWork {
 public:
  RecordingCta(std::unique_ptr<CtaWork> inner, std::shared_ptr<KernelRecording> record, size_t slot, const NameOf& name_of)
      : inner_(std::move(inner)), record_(std::move(record)), slot_(slot), name_of_(name_of), warps_(inner_->num_warps()) {}
  ~RecordingCta() override {  // the GPU retires the CTA: its warps' lines are complete
    auto& cta = record_->ctas[slot_];
    for (const auto& w : warps_) cta.warps.push_back(w ? w->lines() : "");
  }
  Dim3 id() const override { return inner_->id(); }
  uint32_t num_warps() const override { return inner_->num_warps(); }
  WarpStream& warp(uint32_t index) override {  // asked for once the GPU has placed the CTA
    auto& w = warps_.at(index);
    if (!w) w = std::make_unique<RecordingWarp>(inner_->warp(index), record_->info.full_mask(index), name_of_);
    return *w;
  }
  void placed(uint32_t sm, uint32_t sms) override { inner_->placed(sm, sms); }

 private:
  std::unique_ptr<CtaWork> inner_;
  std::shared_ptr<KernelRecording> record_;
  size_t slot_;
  const NameOf& name_of_;
  std::vector<std::unique_ptr<RecordingWarp>> warps_;
};

class RecordingKernel : public KernelSource {
 public:
  RecordingKernel(std::unique_ptr<KernelSource> inner, std::shared_ptr<KernelRecording> record, const NameOf& name_of)
      : inner_(std::move(inner)), record_(std::move(record)), name_of_(name_of) {}
  ~RecordingKernel() override { record_->cancelled = inner_->cancelled_ctas(); }  // the GPU has finished the kernel
  const KernelInfo& info() const override { return inner_->info(); }
  // The emulator's hang detection needs to know how many CTAs the GPU holds at once.
  void resident_ctas(uint64_t ctas) override { inner_->resident_ctas(ctas); }
  std::unique_ptr<CtaWork> next_cta() override {
    auto cta = inner_->next_cta();
    if (!cta) return nullptr;
    record_->ctas.push_back({cta->id(), {}});
    return std::make_unique<RecordingCta>(std::move(cta), record_, record_->ctas.size() - 1, name_of_);
  }
  const std::vector<Dim3>& cancelled_ctas() const override { return inner_->cancelled_ctas(); }

 private:
  std::unique_ptr<KernelSource> inner_;
  std::shared_ptr<KernelRecording> record_;
  const NameOf& name_of_;
};

class RecordingWorkload : public Workload {
 public:
  RecordingWorkload(Workload& inner, const NamesForKernel& names) : inner_(inner), names_(names) {}
  std::unique_ptr<KernelSource> next_kernel() override {
    auto kernel = inner_.next_kernel();
    if (!kernel) return nullptr;
    kernels_.push_back(std::make_shared<KernelRecording>());
    kernels_.back()->info = kernel->info();
    kernels_.back()->name_of = names_();
    return std::make_unique<RecordingKernel>(std::move(kernel), kernels_.back(), kernels_.back()->name_of);
  }
  bool reads_ahead() const override { return inner_.reads_ahead(); }
  const std::vector<std::shared_ptr<KernelRecording>>& kernels() const { return kernels_; }

 private:
  Workload& inner_;
  const NamesForKernel& names_;
  std::vector<std::shared_ptr<KernelRecording>> kernels_;
};

}  // namespace

void record_trace(Gpu& gpu, Workload& workload, TraceWriter& writer, std::ostream& out, const NamesForKernel& names) {
  RecordingWorkload recording(workload, names);
  simulate(gpu, recording);
  // In launch order, CTA by CTA, warp by warp, as TraceWriter::workload writes an emulation.
  for (const auto& k : recording.kernels()) {
    writer.begin_kernel(k->info);
    for (const auto& cta : k->ctas) {
      writer.begin_cta(cta.id);
      for (size_t w = 0; w < cta.warps.size(); ++w) {
        writer.begin_warp(static_cast<uint32_t>(w));
        out << cta.warps[w];
      }
    }
    for (const Dim3& id : k->cancelled) writer.cancelled_cta(id);
  }
}

}  // namespace warpsim::cli
