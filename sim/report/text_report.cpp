#include "report/text_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "common/format.h"

namespace warpsim {
namespace {
// "; rows: 88% hits, 10% conflicts" when HBM was used.
std::string row_buffer(const Summary& s) {
  const double all = double(s.dram_row_hits + s.dram_row_empty + s.dram_row_conflicts);
  if (all == 0) return "";
  return "; row buffer " + fmt("%.0f%% hits, ", 100 * s.dram_row_hits / all) + fmt("%.0f%% conflicts", 100 * s.dram_row_conflicts / all);
}
}  // namespace
namespace {

std::string bytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return fmt(u ? "%.2f " : "%.0f ", v) + units[u];
}

void block(std::ostringstream& o, const Summary& s, bool per_kernel) {
  auto row = [&](const std::string& k, const std::string& v) { o << "  " << k << std::string(k.size() < 22 ? 22 - k.size() : 1, ' ') << v << "\n"; };
  if (per_kernel && !s.concurrent.empty()) {
    // Side by side: each kernel's own span and counts, then the figures of all of them together.
    o << "kernels side by side in streams: " << s.name << "\n";
    for (const auto& k : s.concurrent) {
      o << "  " << k.info.name << " [stream " << k.info.stream << "]  grid " << k.info.grid.str() << "  block " << k.info.block.str()
        << "\n    cycles " << k.start << " to " << k.end << " (" << k.cycles() << "), " << k.ctas << " CTAs, " << k.warp_instructions
        << " warp instructions, " << k.occupancy.ctas_per_sm << " CTAs/SM alone (limited by " << k.occupancy.limiter << ")\n";
    }
    o << "  together:\n";
  } else if (per_kernel) {
    o << "kernel " << s.name << "  grid " << s.grid.str() << "  block " << s.block.str()
      << (s.stream.empty() ? "" : "  stream " + s.stream) << "\n";
  } else {
    o << s.name << "\n";
  }
  row("cycles", std::to_string(s.cycles) + "  (" + fmt("%.3f", s.time_us) + " us)");
  if (s.sampled) {
    // The projection and what it came from: the counts and rates below are the timed part's.
    row("sampled", "estimated from " + std::to_string(s.ctas_timed) + " of " + std::to_string(s.ctas_timed + s.ctas_untimed) +
                       " CTAs timed (" + std::to_string(s.timed_cycles) + " cycles; spread " + std::to_string(s.spread_cycles) +
                       "); counts and rates below are theirs");
    const double flops = s.whole.fp32_flops + s.whole.fp64_flops + s.whole.fp16_flops + s.whole.tensor_flops;
    row("whole kernel", std::to_string(s.whole.warp_instructions) + " warp instructions, " + fmt("%.4g", flops) + " FLOP (counted); DRAM ~" +
                            bytes(static_cast<uint64_t>(s.whole.dram_bytes_read_estimate)) + " read, ~" +
                            bytes(static_cast<uint64_t>(s.whole.dram_bytes_written_estimate)) + " written (estimated from the timed CTAs)");
  }
  row("warp instructions", std::to_string(s.warp_instructions) + "  (" + std::to_string(s.thread_instructions) + " thread)");
  row("IPC", fmt("%.2f", s.ipc) + " per SM per active cycle, " + fmt("%.1f", s.gpu_ipc) + " for the GPU");
  std::string occ = fmt("%.1f%%", s.achieved_occupancy * 100);
  if (per_kernel && s.ctas_per_sm) {
    occ += " achieved, " + fmt("%.1f%%", s.theoretical_occupancy * 100) + " theoretical (" + std::to_string(s.ctas_per_sm) +
           " CTAs/SM, limited by " + s.occupancy_limiter + ")";
  }
  row("occupancy", occ);
  row("SIMT efficiency", fmt("%.1f%%", s.simt_efficiency * 100) + " of lanes active");
  row("L1 hit rate", fmt("%.1f%%", s.l1_hit_rate * 100) + (per_kernel && s.concurrent.empty() ? "  (L1 " + std::to_string(s.l1_kib) + " KiB, shared " + std::to_string(s.shared_carveout_kib) + " KiB)" : ""));
  row("L2 hit rate", fmt("%.1f%%", s.l2_hit_rate * 100));
  row("DRAM", bytes(s.dram_bytes_read) + " read, " + bytes(s.dram_bytes_written) + " written, " + fmt("%.1f GB/s", s.dram_bandwidth_gbps) +
                  " (" + fmt("%.0f%%", s.dram_utilisation * 100) + " of peak)" + row_buffer(s));
  // Nsight Compute's Speed-of-Light headline (the same numbers as the sm__throughput and
  // gpu__compute_memory_throughput metrics): what `bound` is read from.
  row("speed of light", "compute " + fmt("%.0f%%", std::max(s.issue_utilisation, s.busiest_pipe_utilisation) * 100) + ", memory " +
                            fmt("%.0f%%", memory_utilisation(s) * 100) + " of peak");
  row("bound", s.bound + ": " + s.bound_reason);
  // Stalls, largest first, in ncu's unit: warp-cycles per issued instruction.
  std::vector<std::pair<double, int>> order;
  double total = 0;
  for (int r = 0; r < kNumStallReasons; ++r) {
    if (s.stalls[r] > 0) order.emplace_back(s.stalls[r], r);
    total += s.stalls[r];
  }
  std::sort(order.begin(), order.end(), [](auto a, auto b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  o << "  warp states (cycles per issued instruction, " << fmt("%.2f", total) << " in all):\n";
  for (auto [v, r] : order) {
    std::string name(stall_reason_name(static_cast<StallReason>(r)));
    o << "    " << name << std::string(name.size() < 20 ? 20 - name.size() : 1, ' ') << fmt("%7.2f", v) << "  "
      << std::string(static_cast<size_t>(std::min(40.0, v / std::max(total, 1e-9) * 40 + 0.5)), '#') << "\n";
  }
}

}  // namespace

std::string text_report(const GpuSpec& spec, const std::vector<Summary>& kernels, const Summary& total) {
  std::ostringstream o;
  o << "warpsim on " << spec.name << " (" << spec.product << ", " << spec.topology.sms << " SMs at " << spec.clocks.boost_mhz
    << " MHz)\n\n";
  for (const auto& k : kernels) {
    block(o, k, true);
    o << "\n";
  }
  if (kernels.size() > 1) block(o, total, false);
  return o.str();
}

}  // namespace warpsim
