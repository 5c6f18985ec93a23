#include "cli/run_views.h"

#include <cstdlib>
#include <stdexcept>

#include "cli/cli_common.h"
#include "views/divergence_view.h"
#include "views/html_report.h"
#include "views/roofline.h"

namespace warpsim::cli {
namespace po = boost::program_options;

void RunViews::add_options(po::options_description& opts) {
  opts.add_options()("timeline", po::value(&timeline_path_),
                     "write a Perfetto/Chrome trace (JSON) of every warp's issued instructions and stalls to FILE; open it at ui.perfetto.dev")(
      "timeline-sms", po::value(&sms_), "timeline: only these SMs, e.g. 0,3-5 (default: all)")(
      "timeline-warps", po::value(&warps_), "timeline: only these warp slots of each SM, e.g. 0-7 (default: all)")(
      "timeline-window", po::value(&window_), "timeline: only cycles FROM:TO (either may be empty)")(
      "timeline-max-mb", po::value(&max_mb_), "timeline: size cap in MiB (default 100); later events are dropped, and the file says so")(
      "timeline-interval", po::value(&interval_), "timeline: cycles per counter sample (default 1000)")(
      "view", po::value(&view_), "print a view after the summary: 'warps' draws each chosen warp's active lanes over time")(
      "view-warps", po::value(&view_warps_), "--view warps: global warp indices (CTA index x warps per CTA + warp), e.g. 0-3 (default)")(
      "view-rows", po::value(&view_rows_), "--view warps: instructions drawn per warp (default 200)")(
      "roofline", po::value(&roofline_path_), "write the config's roofline with the kernels' points as SVG to FILE")(
      "report", po::value(&report_path_), "write a self-contained HTML report (summary, stalls, roofline, divergence, memory) to FILE");
}

void RunViews::check_outputs() const {
  check_output_paths({{"--timeline", timeline_path_}, {"--roofline", roofline_path_}, {"--report", report_path_}});
}

void RunViews::attach(Gpu& gpu) {
  auto list = [](const std::string& flag, const std::string& text) {
    try {
      return parse_index_list(text);
    } catch (const std::invalid_argument& e) {
      throw UsageError{"--" + flag + ": " + e.what()};
    }
  };
  if (!view_.empty() && view_ != "warps") throw UsageError{"--view takes 'warps'"};
  if (!timeline_path_.empty()) {
    TimelineOptions o;
    if (!(max_mb_ >= 1 && max_mb_ <= 1 << 20)) throw UsageError{"--timeline-max-mb takes a size from 1 to 1048576 MiB"};
    o.max_bytes = static_cast<uint64_t>(max_mb_ * 1048576.0);
    if (interval_ == 0) throw UsageError{"--timeline-interval takes a positive number of cycles"};
    o.counter_interval = interval_;
    if (!sms_.empty()) o.sms = list("timeline-sms", sms_);
    if (!warps_.empty()) o.slots = list("timeline-warps", warps_);
    if (!window_.empty()) {
      const size_t colon = window_.find(':');
      auto cycle = [&](const std::string& s, Cycle fallback) -> Cycle {
        if (s.empty()) return fallback;
        if (s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18)
          throw UsageError{"--timeline-window: '" + window_ + "': expected FROM:TO in cycles, e.g. 1000:50000"};
        return std::stoull(s);
      };
      if (colon == std::string::npos) throw UsageError{"--timeline-window: '" + window_ + "': expected FROM:TO in cycles, e.g. 1000:50000"};
      o.from = cycle(window_.substr(0, colon), 0);
      o.to = cycle(window_.substr(colon + 1), kNever);
      if (o.to <= o.from) throw UsageError{"--timeline-window: '" + window_ + "' is empty; TO must be above FROM"};
    }
    timeline_ = std::make_unique<Timeline>(o, gpu.spec(), gpu.stats());
    fanout_.add(timeline_.get());
  }
  if (!view_.empty() || !report_path_.empty()) {
    std::vector<uint32_t> chosen;
    if (!view_.empty()) chosen = list("view-warps", view_warps_);
    recorder_ = std::make_unique<DivergenceRecorder>(chosen, view_rows_);
    fanout_.add(recorder_.get());
  }
  if (!fanout_.empty()) gpu.set_observer(&fanout_);
}

std::string RunViews::finish(const GpuSpec& spec, const std::vector<Summary>& kernels, const Summary& total, const std::string& input) {
  if (timeline_) {
    write_output(timeline_path_, timeline_->finish());
    if (!timeline_->note().empty()) std::fprintf(stderr, "warpsim: note: %s\n", timeline_->note().c_str());
  }
  if (!roofline_path_.empty()) write_output(roofline_path_, roofline_svg(spec, roofline_points(kernels)));
  if (!report_path_.empty()) {
    ReportInput r{input, kVersion, &spec, &kernels, &total, &recorder_->kernels()};
    write_output(report_path_, html_report(r));
  }
  if (view_.empty()) return "";
  // Colour only on a terminal, and never when NO_COLOR is set to anything (no-color.org).
  const char* no_colour = std::getenv("NO_COLOR");
  const bool colour = stdout_is_terminal() && !(no_colour && *no_colour);
  return divergence_view(recorder_->kernels(), colour);
}

}  // namespace warpsim::cli
