// warpsim arch list | show: the shipped configs and what they resolve to.
#include <boost/program_options.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/cli_common.h"
#include "common/error.h"
#include "common/format.h"
#include "config/derived_peaks.h"
#include "config/load_config.h"
#include "report/json_report.h"

namespace warpsim::cli {
namespace po = boost::program_options;

namespace {

const char* const kArchHelp = R"(warpsim arch: list GPU configs, or show one resolved

Usage:
  warpsim arch list
  warpsim arch show <name|file.yaml> [--set key.path=value ...] [--json]

`show` prints the resolved config (after extends: and --set) and the peaks derived from it:
FP32/FP64/FP16 TFLOP/s, tensor TFLOP/s per precision, HBM TB/s and ridge points, each compared
with the datasheet figure the config cites.

Options)";

nlohmann::ordered_json peaks_json(const DerivedPeaks& d) {
  nlohmann::ordered_json j;
  j["fp32_tflops"] = d.fp32_tflops;
  j["fp64_tflops"] = d.fp64_tflops;
  j["fp16_tflops"] = d.fp16_tflops;
  j["hbm_tbps"] = d.hbm_tbps;
  j["l2_tbps"] = d.l2_tbps;
  nlohmann::ordered_json t = nlohmann::ordered_json::object();
  for (auto [p, v] : d.tensor_tflops) t[std::string(tensor_precision_name(p))] = v;
  j["tensor_tflops"] = t;
  j["ridge_flop_per_byte"] = {{"fp32", d.ridge_fp32}, {"tensor_fp16", d.ridge_tensor_fp16}};
  auto checks = nlohmann::ordered_json::array();
  for (const auto& c : d.checks) {
    checks.push_back({{"what", c.what}, {"derived", c.derived}, {"datasheet", c.datasheet}, {"percent_diff", c.percent_diff()},
                      {"source", c.source}, {"within_2_percent", c.within_2_percent()}, {"explain", c.explain}});
  }
  j["datasheet_checks"] = checks;
  return j;
}

void print_show(const LoadedConfig& c, const DerivedPeaks& d) {
  const GpuSpec& s = c.spec;
  std::cout << s.name << ": " << s.product << " (compute capability " << s.compute_capability / 10 << "."
            << s.compute_capability % 10 << ")\n  from " << s.source_file << "\n\n";
  std::cout << "  " << s.topology.gpcs << " GPCs, " << s.topology.tpcs << " TPCs, " << s.topology.sms << " SMs x "
            << s.topology.sub_partitions_per_sm << " sub-partitions, " << s.clocks.boost_mhz << " MHz";
  if (s.clocks.tensor_peak_mhz != s.clocks.boost_mhz) std::cout << " (tensor peaks at " << s.clocks.tensor_peak_mhz << " MHz)";
  std::cout << "\n  L1+shared " << s.memory.l1.unified_bytes / 1024 << " KiB/SM, L2 " << s.memory.l2.size_bytes / 1024 / 1024.0
            << " MiB in " << s.memory.l2.slices << " slices, " << s.memory.hbm.type << " " << s.memory.hbm.bus_width_bits
            << "-bit at " << s.memory.hbm.data_rate_gtps << " GT/s in " << s.memory.hbm.channels << " channels\n\n";
  std::cout << "  derived peaks\n";
  std::cout << "    FP32            " << fmt("%10.1f TFLOP/s", d.fp32_tflops) << "\n";
  std::cout << "    FP64            " << fmt("%10.1f TFLOP/s", d.fp64_tflops) << "\n";
  std::cout << "    FP16 (packed)   " << fmt("%10.1f TFLOP/s", d.fp16_tflops) << "\n";
  for (auto [p, v] : d.tensor_tflops) {
    std::string n = "tensor " + std::string(tensor_precision_name(p));
    std::cout << "    " << n << std::string(16 - n.size(), ' ') << fmt("%10.1f TFLOP/s", v) << "\n";
  }
  if (s.tensor.structured_sparsity) std::cout << "    (2:4 sparse MMAs, all but fp64: half the products at these rates, twice them dense-equivalent)\n";
  if (s.tensor.warp_mma_fraction < 1.0)
    std::cout << "    (warp-level MMAs, mma.sync/mma.sp/wmma, all but fp64: " << fmt("%.1f", s.tensor.warp_mma_fraction * 100) << "% of these; "
              << (s.compute_capability >= 100 ? "tcgen05.mma" : "wgmma") << " reaches them)\n";
  // How the tensor cores add products (docs/tensor-numerics.md), for precisions the config gives.
  std::string sums;
  for (int p = 0; p < kNumTensorPrecisions; ++p) {
    const MmaSumSpec& b = s.tensor.block_sum[p];
    if (!s.tensor.flops_per_clk_per_sm[p] || p == static_cast<int>(TensorPrecision::kInt8) || p == static_cast<int>(TensorPrecision::kInt4) ||
        p == static_cast<int>(TensorPrecision::kFp64))
      continue;
    sums += std::string(sums.empty() ? "" : ", ") + std::string(tensor_precision_name(static_cast<TensorPrecision>(p))) + " " +
            (b.terms ? std::to_string(b.terms) + " per block, " + std::to_string(std::min(23, 23 + b.extra_bits)) + " fraction bits" : "IEEE");
  }
  if (!sums.empty()) std::cout << "    (tensor sums: " << sums << ")\n";
  if (s.tensor.warp_fp8_via_fp16) std::cout << "    (warp-level FP8 MMAs run as two k16 FP16 MMAs: fp16's sums; wgmma keeps fp8's)\n";
  std::cout << "    HBM             " << fmt("%10.3f TB/s", d.hbm_tbps) << "\n";
  std::cout << "    L2 (all slices) " << fmt("%10.2f TB/s", d.l2_tbps) << "\n";
  std::cout << "    ridge point     " << fmt("%10.1f FLOP/byte (FP32)", d.ridge_fp32);
  if (d.ridge_tensor_fp16 > 0) std::cout << fmt(", %.1f (tensor FP16)", d.ridge_tensor_fp16);
  std::cout << "\n\n  against the datasheet\n";
  for (const auto& ch : d.checks) {
    std::cout << "    " << ch.what << std::string(ch.what.size() < 20 ? 20 - ch.what.size() : 1, ' ') << fmt("%10.2f", ch.derived)
              << " vs " << fmt("%8.2f", ch.datasheet) << fmt("  %+5.1f%%", ch.percent_diff())
              << (ch.within_2_percent() ? "  ok" : ch.explain.empty() ? "  OFF BY MORE THAN 2%" : "  explained") << "  ("
              << ch.source << ")\n";
    if (!ch.within_2_percent() && !ch.explain.empty()) std::cout << "        " << ch.explain << "\n";
  }
  std::cout << "\n  resolved config (JSON)\n" << config_json(c.resolved).dump(2) << "\n";
}

}  // namespace

int arch_command(const std::vector<std::string>& args) {
  std::string action, name;
  std::vector<std::string> sets;
  bool json = false;
  po::options_description opts(kArchHelp);
  opts.add_options()("help,h", "show this help")("set", po::value(&sets)->composing(), "override a config leaf (repeatable)")(
      "json", po::bool_switch(&json), "print JSON instead of text")("action", po::value(&action), "list or show")(
      "name", po::value(&name), "config name or file");
  po::positional_options_description pos;
  pos.add("action", 1).add("name", 1);
  if (!parse_arguments(args, opts, pos)) return kExitOk;
  if (action == "list") {
    auto names = shipped_config_names();
    if (json) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const auto& n : names) {
        auto c = load_gpu_config(n);
        list.push_back({{"name", n}, {"product", c.spec.product}, {"sms", c.spec.topology.sms}, {"boost_mhz", c.spec.clocks.boost_mhz}});
      }
      std::cout << list.dump(2) << "\n";
      return kExitOk;
    }
    for (const auto& n : names) {
      auto c = load_gpu_config(n);
      std::printf("%-6s %-30s %4u SMs  %6.0f MHz  CC %u.%u\n", n.c_str(), c.spec.product.c_str(), c.spec.topology.sms,
                  c.spec.clocks.boost_mhz, c.spec.compute_capability / 10, c.spec.compute_capability % 10);
    }
    return kExitOk;
  }
  if (action == "show") {
    if (name.empty()) throw UsageError{"arch show needs a config name or file"};
    LoadedConfig c = load_gpu_config(name, sets);
    DerivedPeaks d = derive_peaks(c.spec);
    if (json) {
      nlohmann::ordered_json j;
      j["name"] = c.spec.name;
      j["product"] = c.spec.product;
      j["peaks"] = peaks_json(d);
      j["config"] = config_json(c.resolved);
      std::cout << j.dump(2) << "\n";
    } else {
      print_show(c, d);
    }
    return kExitOk;
  }
  throw UsageError{action.empty() ? "arch needs 'list' or 'show'" : "unknown arch action '" + action + "'; expected list or show"};
}

}  // namespace warpsim::cli
