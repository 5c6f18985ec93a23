#include "report/json_report.h"

#include <charconv>

namespace warpsim {
namespace {

nlohmann::ordered_json dim(const Dim3& d) { return {d.x, d.y, d.z}; }

nlohmann::ordered_json scalar(const std::string& s) {
  int64_t i = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), i);
  if (r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty()) return i;
  double d = 0;
  auto rd = std::from_chars(s.data(), s.data() + s.size(), d);
  if (rd.ec == std::errc() && rd.ptr == s.data() + s.size() && !s.empty()) return d;
  if (s == "true") return true;
  if (s == "false") return false;
  return s;
}

}  // namespace

nlohmann::ordered_json config_json(const ConfigNode& n) {
  switch (n.kind) {
    case ConfigNode::Kind::kNull: return nullptr;
    case ConfigNode::Kind::kScalar: return scalar(n.scalar);
    case ConfigNode::Kind::kSequence: {
      auto a = nlohmann::ordered_json::array();
      for (const auto& i : n.items) a.push_back(config_json(i));
      return a;
    }
    case ConfigNode::Kind::kMap: {
      nlohmann::ordered_json o = nlohmann::ordered_json::object();
      for (const auto& [k, v] : n.entries) o[k] = config_json(v);
      return o;
    }
  }
  return nullptr;
}

nlohmann::ordered_json summary_json(const Summary& s) {
  nlohmann::ordered_json j;
  j["cycles"] = s.cycles;
  j["time_us"] = s.time_us;
  j["warp_instructions"] = s.warp_instructions;
  j["thread_instructions"] = s.thread_instructions;
  j["ipc"] = s.ipc;
  j["gpu_ipc"] = s.gpu_ipc;
  j["achieved_occupancy"] = s.achieved_occupancy;
  j["simt_efficiency"] = s.simt_efficiency;
  j["l1_hit_rate"] = s.l1_hit_rate;
  j["l2_hit_rate"] = s.l2_hit_rate;
  j["dram_bytes_read"] = s.dram_bytes_read;
  j["dram_bytes_written"] = s.dram_bytes_written;
  j["dram_bandwidth_gbps"] = s.dram_bandwidth_gbps;
  j["dram_row_buffer"] = {{"hits", s.dram_row_hits}, {"empty", s.dram_row_empty}, {"conflicts", s.dram_row_conflicts}};
  j["flops"] = {{"fp32", s.fp32_flops}, {"fp64", s.fp64_flops}, {"fp16", s.fp16_flops}, {"tensor", s.tensor_flops}};
  const double dram = double(s.dram_bytes_read + s.dram_bytes_written);
  // FLOPs per DRAM byte, as the roofline plots it (null when nothing reached DRAM).
  const double all = s.fp32_flops + s.fp64_flops + s.fp16_flops + s.tensor_flops;
  j["arithmetic_intensity"] = dram > 0 ? nlohmann::ordered_json(all / dram) : nlohmann::ordered_json(nullptr);
  j["bound"] = s.bound;
  j["bound_reason"] = s.bound_reason;
  nlohmann::ordered_json stalls = nlohmann::ordered_json::object();
  for (int r = 0; r < kNumStallReasons; ++r) stalls[std::string(stall_reason_name(static_cast<StallReason>(r)))] = s.stalls[r];
  j["stalls"] = stalls;
  j["ctas"] = s.ctas;
  if (s.sampled) {
    // cycles and time_us above are the projection; the counts and rates, the timed CTAs'.
    j["sampling"] = {{"ctas_timed", s.ctas_timed},
                     {"ctas_untimed", s.ctas_untimed},
                     {"untimed_warp_instructions", s.untimed_warp_instructions},
                     {"timed_cycles", s.timed_cycles},
                     {"spread_cycles", s.spread_cycles},
                     {"whole_kernel",
                      {{"warp_instructions", s.whole.warp_instructions},
                       {"thread_instructions", s.whole.thread_instructions},
                       {"flops", {{"fp32", s.whole.fp32_flops}, {"fp64", s.whole.fp64_flops}, {"fp16", s.whole.fp16_flops}, {"tensor", s.whole.tensor_flops}}},
                       {"dram_bytes_read_estimate", s.whole.dram_bytes_read_estimate},
                       {"dram_bytes_written_estimate", s.whole.dram_bytes_written_estimate}}}};
  }
  return j;
}

nlohmann::ordered_json run_json(const RunDescription& run, const std::vector<Summary>& kernels, const Summary& total) {
  nlohmann::ordered_json j;
  j["warpsim_version"] = run.warpsim_version;
  j["input"] = run.input;
  j["arch"] = run.arch;
  j["config"] = run.config ? config_json(*run.config) : nlohmann::ordered_json(nullptr);
  j["summary"] = summary_json(total);
  auto list = nlohmann::ordered_json::array();
  for (const auto& k : kernels) {
    nlohmann::ordered_json kj;
    kj["name"] = k.name;
    // Kernels side by side have no one grid: each has its own under "concurrent".
    kj["grid"] = k.concurrent.empty() ? dim(k.grid) : nlohmann::ordered_json(nullptr);
    kj["block"] = k.concurrent.empty() ? dim(k.block) : nlohmann::ordered_json(nullptr);
    if (!k.stream.empty()) kj["stream"] = k.stream;
    if (!k.concurrent.empty()) {
      // Side by side: the summary and metrics cover all of them together.
      auto members = nlohmann::ordered_json::array();
      for (const auto& c : k.concurrent) {
        members.push_back({{"name", c.info.name},
                           {"stream", c.info.stream},
                           {"grid", dim(c.info.grid)},
                           {"block", dim(c.info.block)},
                           {"start_cycle", c.start},
                           {"end_cycle", c.end},
                           {"cycles", c.cycles()},
                           {"ctas", c.ctas},
                           {"warp_instructions", c.warp_instructions},
                           {"ctas_per_sm", c.occupancy.ctas_per_sm},
                           {"limiter", c.occupancy.limiter}});
      }
      kj["concurrent"] = members;
    }
    kj["summary"] = summary_json(k);
    kj["occupancy"] = {{"ctas_per_sm", k.ctas_per_sm},
                       {"limiter", k.occupancy_limiter},
                       {"theoretical", k.theoretical_occupancy},
                       {"l1_kib", k.l1_kib},
                       {"shared_carveout_kib", k.shared_carveout_kib}};
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    for (const auto& m : k.metrics) metrics[m.name] = {{"value", m.value}, {"unit", m.unit}, {"kind", m.kind}};
    kj["metrics"] = metrics;
    list.push_back(kj);
  }
  j["kernels"] = list;
  return j;
}

}  // namespace warpsim
