#pragma once
// The optional views of `warpsim run`: timeline, divergence view, roofline and HTML report.
// Declares their options, attaches the observers before the simulation, writes the files after.
#include <boost/program_options.hpp>
#include <memory>
#include <string>
#include <vector>

#include "gpu/gpu.h"
#include "observe/observer_fanout.h"
#include "report/kernel_summary.h"
#include "views/divergence_recorder.h"
#include "views/timeline.h"

namespace warpsim::cli {

class RunViews {
 public:
  void add_options(boost::program_options::options_description& opts);
  // Checks the options (throws UsageError) and attaches the observers to `gpu`.
  void attach(Gpu& gpu);
  // check_output_paths for --timeline, --roofline and --report.
  void check_outputs() const;
  // Whether any view was asked for (they all watch the timing model).
  bool requested() const { return !timeline_path_.empty() || !view_.empty() || !roofline_path_.empty() || !report_path_.empty(); }
  // Writes the requested files and returns text to print after the summary (the divergence view).
  std::string finish(const GpuSpec& spec, const std::vector<Summary>& kernels, const Summary& total, const std::string& input);

 private:
  std::string timeline_path_, sms_, warps_, window_, view_, view_warps_ = "0-3", roofline_path_, report_path_;
  double max_mb_ = 100;
  uint64_t interval_ = 1000;
  uint32_t view_rows_ = 200;
  std::unique_ptr<Timeline> timeline_;
  std::unique_ptr<DivergenceRecorder> recorder_;
  ObserverFanout fanout_;
};

}  // namespace warpsim::cli
