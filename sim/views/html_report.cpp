#include "views/html_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "common/format.h"
#include "views/json_text.h"
#include "views/roofline.h"
#include "views/svg.h"

namespace warpsim {
namespace {

// Inline, so the file needs nothing else. The script only marks the page as rendered when every
// chart has drawn something, which the headless-browser test reads back.
const char* const kStyle = R"(body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}h2{border-bottom:1px solid #ccc;padding-bottom:3px}
.note{color:#555;font-size:90%}svg{max-width:100%;height:auto})";
const char* const kCheck = R"(window.addEventListener('load',function(){var s=document.querySelectorAll('svg');var ok=s.length>0;
for(var i=0;i<s.length;i++){var b=s[i].getBBox();if(!(b.width>0&&b.height>0))ok=false;}
document.documentElement.setAttribute('data-rendered',ok?'yes':'no');});)";

std::string cell(const std::string& s) { return "<td>" + xml_escape(s) + "</td>"; }

}  // namespace

std::string stall_chart_svg(const std::vector<Summary>& kernels) {
  const double W = 860, row = 34, L = 180, R = 40, T = 50;
  const double H = T + row * double(kernels.size()) + 90;
  Svg svg(W, H, "Warp states per issued instruction (Nsight Compute's smsp__average_warps_issue_stalled_*)");
  double most = 0;
  for (const auto& k : kernels) {
    double t = 0;
    for (double v : k.stalls) t += v;
    most = std::max(most, t);
  }
  Axis x{0, most > 0 ? most : 1, L, W - R};
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Summary& k = kernels[i];
    const double y = T + row * double(i);
    svg.text(L - 6, y + row / 2 + 4, k.name, 12, "end");
    double at = 0;
    for (int r = 0; r < kNumStallReasons; ++r) {
      if (k.stalls[r] <= 0) continue;
      const std::string name(stall_reason_name(static_cast<StallReason>(r)));
      svg.rect(x(at), y + 4, x(at + k.stalls[r]) - x(at), row - 8, palette(static_cast<size_t>(r)), name + ": " + fmt("%.2f", k.stalls[r]));
      at += k.stalls[r];
    }
    svg.text(x(at) + 4, y + row / 2 + 4, fmt("%.2f", at), 11);
  }
  const double ly = T + row * double(kernels.size()) + 30;
  for (int r = 0; r < kNumStallReasons; ++r) {
    const double lx = L + double(r % 6) * 110, yy = ly + double(r / 6) * 20;
    svg.rect(lx, yy - 10, 12, 12, palette(static_cast<size_t>(r)));
    svg.text(lx + 16, yy, std::string(stall_reason_name(static_cast<StallReason>(r))), 11);
  }
  return svg.str();
}

std::string divergence_chart_svg(const KernelDivergence& k) {
  const double W = 860, H = 300, L = 70, R = 30, T = 45, B = 50;
  Svg svg(W, H, "Issued instructions by active lanes: " + k.name);
  uint64_t most = 1;
  for (uint64_t v : k.active_lane_histogram) most = std::max(most, v);
  Axis x{0, 33, L, W - R}, y{0, double(most), H - B, T};
  for (size_t lanes = 0; lanes <= 32; ++lanes) {
    const uint64_t v = k.active_lane_histogram[lanes];
    if (v) svg.rect(x(double(lanes)) + 1, y(double(v)), x(1) - x(0) - 2, y(0) - y(double(v)), lanes == 32 ? palette(2) : palette(3),
                    std::to_string(v) + " instructions with " + std::to_string(lanes) + " active lanes");
    if (lanes % 4 == 0) svg.text(x(double(lanes)) + (x(1) - x(0)) / 2, H - B + 16, std::to_string(lanes), 11, "middle");
  }
  svg.line(L, H - B, W - R, H - B, "#000");
  svg.line(L, T, L, H - B, "#000");
  svg.text(L - 6, T + 4, std::to_string(most), 11, "end");
  svg.text(L - 6, H - B + 4, "0", 11, "end");
  svg.text((L + W - R) / 2, H - 12, "active lanes of the issued warp instruction (32 = no divergence)", 12, "middle");
  return svg.str();
}

std::string html_report(const ReportInput& in) {
  const GpuSpec& spec = *in.spec;
  const auto& kernels = *in.kernels;
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>warpsim: " << xml_escape(in.title) << " on "
    << xml_escape(spec.name) << "</title>\n<style>" << kStyle << "</style>\n<script>" << kCheck << "</script></head><body>\n";
  o << "<h1>warpsim report</h1>\n<p>" << xml_escape(in.title) << " on <b>" << xml_escape(spec.name) << "</b> (" << xml_escape(spec.product)
    << ", " << spec.topology.sms << " SMs at " << spec.clocks.boost_mhz << " MHz), warpsim " << xml_escape(in.version) << ".</p>\n";

  o << "<h2>Summary</h2>\n<table><tr><th>kernel</th><th>grid</th><th>block</th><th>cycles</th><th>time (us)</th><th>warp instructions</th>"
       "<th>IPC</th><th>occupancy</th><th>SIMT efficiency</th><th>bound</th></tr>\n";
  auto summary_row = [&](const Summary& k, bool per_kernel) {
    // Kernels side by side (streams) have no one grid; each is listed under the row.
    const bool one_grid = per_kernel && k.concurrent.empty();
    o << "<tr>" << cell(k.name) << cell(one_grid ? k.grid.str() : "") << cell(one_grid ? k.block.str() : "") << cell(std::to_string(k.cycles))
      << cell(fmt("%.3f", k.time_us)) << cell(std::to_string(k.warp_instructions)) << cell(fmt("%.2f", k.ipc))
      << cell(fmt("%.1f%%", k.achieved_occupancy * 100)) << cell(fmt("%.1f%%", k.simt_efficiency * 100)) << cell(k.bound + ": " + k.bound_reason)
      << "</tr>\n";
  };
  for (const auto& k : kernels) {
    summary_row(k, true);
    for (const auto& c : k.concurrent) {
      o << "<tr>" << cell("+ " + c.info.name + " [stream " + c.info.stream + "]: cycles " + std::to_string(c.start) + " to " +
                          std::to_string(c.end))
        << cell(c.info.grid.str()) << cell(c.info.block.str()) << cell(std::to_string(c.cycles()))
        << cell(fmt("%.3f", double(c.cycles()) / spec.cycles_per_second() * 1e6)) << cell(std::to_string(c.warp_instructions)) << cell("") << cell("")
        << cell("") << cell("") << "</tr>\n";
    }
  }
  if (kernels.size() > 1) summary_row(*in.total, false);
  o << "</table>\n";

  o << "<h2>Stall breakdown</h2>\n<p class=\"note\">Each resident warp is in one state per cycle; bars add the cycles per issued "
       "instruction (hover for values). <code>selected</code> is issuing; large <code>long_scoreboard</code> means waiting on "
       "global memory.</p>\n"
    << stall_chart_svg(kernels);

  o << "<h2>Roofline</h2>\n<p class=\"note\">Ceilings derived from the config (<code>warpsim arch show " << xml_escape(spec.name)
    << "</code>); points are the kernels' achieved FLOP/s against FLOPs per DRAM byte.</p>\n"
    << roofline_svg(spec, roofline_points(kernels));

  o << "<h2>Divergence</h2>\n";
  if (in.divergence) {
    for (const auto& k : *in.divergence) {
      const double eff = k.possible_lanes ? double(k.active_lanes) / double(k.possible_lanes) : 1.0;
      o << "<p>" << xml_escape(k.name) << ": lane efficiency " << fmt("%.1f%%", eff * 100) << " over " << k.warp_instructions
        << " warp instructions.</p>\n"
        << divergence_chart_svg(k);
      std::vector<const BranchCost*> order;
      for (const auto& [key, b] : k.branches) order.push_back(&b);
      std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->idle_lanes > b->idle_lanes; });
      if (order.empty()) continue;
      o << "<table><tr><th>branch (pc / line / source line)</th><th>executed</th><th>diverged</th><th>instructions on its paths</th>"
           "<th>idle lanes</th><th>issue cycles lost</th></tr>\n";
      for (size_t i = 0; i < order.size() && i < 10; ++i) {
        const BranchCost& b = *order[i];
        o << "<tr>" << cell(std::to_string(b.pc) + " / " + std::to_string(b.line) + " / " + (b.source_line ? std::to_string(b.source_line) : "-"))
          << cell(std::to_string(b.executed)) << cell(std::to_string(b.diverged)) << cell(std::to_string(b.instructions_on_paths))
          << cell(std::to_string(b.idle_lanes)) << cell(fmt("%.1f", double(b.idle_lanes) / 32)) << "</tr>\n";
      }
      o << "</table>\n";
    }
  }

  o << "<h2>Memory</h2>\n<table><tr><th>kernel</th><th>L1 hit rate</th><th>L2 hit rate</th><th>DRAM read</th><th>DRAM written</th>"
       "<th>DRAM bandwidth</th><th>of peak</th><th>L2 utilisation</th></tr>\n";
  for (const auto& k : kernels) {
    o << "<tr>" << cell(k.name) << cell(fmt("%.1f%%", k.l1_hit_rate * 100)) << cell(fmt("%.1f%%", k.l2_hit_rate * 100))
      << cell(si(double(k.dram_bytes_read)) + "B") << cell(si(double(k.dram_bytes_written)) + "B") << cell(fmt("%.1f GB/s", k.dram_bandwidth_gbps))
      << cell(fmt("%.0f%%", k.dram_utilisation * 100)) << cell(fmt("%.0f%%", k.l2_utilisation * 100)) << "</tr>\n";
  }
  o << "</table>\n";
  if (!kernels.empty() && !kernels.front().metrics.empty()) {
    o << "<h2>Nsight Compute metrics</h2>\n<table><tr><th>metric</th>";
    for (const auto& k : kernels) o << "<th>" << xml_escape(k.name) << "</th>";
    o << "<th>unit</th></tr>\n";
    for (size_t m = 0; m < kernels.front().metrics.size(); ++m) {
      o << "<tr>" << cell(kernels.front().metrics[m].name);
      for (const auto& k : kernels) o << cell(m < k.metrics.size() ? fmt("%.4g", k.metrics[m].value) : "");
      o << cell(kernels.front().metrics[m].unit) << "</tr>\n";
    }
    o << "</table>\n";
  }
  o << "</body></html>\n";
  return o.str();
}

}  // namespace warpsim
