// Each tutorial in docs/tutorials/ runs its commands here and checks its central claim, so the
// tutorials stay true as the model changes. Expectations come from the configs (peaks, rates)
// and from what the kernels do, not from the numbers the tutorials quote.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>
#include <regex>

#include "frontend/trace/line_source.h"
#include "config/derived_peaks.h"
#include "config/load_config.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using test::run_cli;
using test::source_path;
using nlohmann::json;

json run_json(const std::vector<std::string>& args) {
  std::vector<std::string> a = args;
  a.insert(a.end(), {"--json", "-"});
  auto r = run_cli(a);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

std::map<std::string, json> compare(const std::string& arches, const std::string& input) {
  std::map<std::string, json> rows;
  for (auto& row : run_json({"compare", "--arch", arches, source_path(input)})) rows[row["arch"]] = row;
  return rows;
}

double all_flops(const json& s) {
  double f = 0;
  for (auto& [k, v] : s["flops"].items()) f += v.get<double>();
  return f;
}

TEST(Tutorials, Divergence) {
  const std::string kernel = source_path("traces/kernels/divergence.launch.yaml");
  auto stack = run_cli({"run", "--arch", "h100", "--isa", "ptx", kernel, "--view", "warps", "--view-warps", "0"});
  ASSERT_EQ(stack.exit_code, 0) << stack.err;
  EXPECT_NE(stack.out.find("check: passed"), std::string::npos);
  // The if/else splits the warp into even and odd lanes, which then reconverge.
  EXPECT_NE(stack.out.find("#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#. 16"), std::string::npos);
  EXPECT_NE(stack.out.find(".#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.# 16"), std::string::npos);
  EXPECT_NE(stack.out.find("<- reconverge"), std::string::npos);
  // The view's lane efficiency is the summary's SIMT efficiency.
  std::smatch simt, lanes;
  ASSERT_TRUE(std::regex_search(stack.out, simt, std::regex("SIMT efficiency +([0-9.]+)%")));
  ASSERT_TRUE(std::regex_search(stack.out, lanes, std::regex("kernel divergence: lane efficiency ([0-9.]+)%")));
  EXPECT_EQ(simt[1], lanes[1]);
  // The costliest branch is the lane-dependent loop (CUDA line 16), not the if/else (line 11).
  std::smatch first;
  ASSERT_TRUE(std::regex_search(stack.out, first, std::regex("cycles lost\\n +[0-9]+ +[0-9]+ +([0-9]+) ")));
  EXPECT_EQ(first[1], "16");
  // Independent thread scheduling: the same masks for this structured kernel.
  auto its = run_cli({"run", "--arch", "h100", kernel, "--view", "warps", "--view-warps", "0", "--reconvergence", "independent"});
  ASSERT_EQ(its.exit_code, 0);
  ASSERT_TRUE(std::regex_search(its.out, lanes, std::regex("kernel divergence: lane efficiency ([0-9.]+)%")));
  EXPECT_EQ(simt[1], lanes[1]);
  // The spin lock: livelock under the stack, every thread gets the lock under ITS.
  const std::string lock = source_path("traces/kernels/spin_lock.launch.yaml");
  auto dead = run_cli({"run", "--arch", "h100", lock, "--reconvergence", "stack"});
  EXPECT_EQ(dead.exit_code, 3);
  EXPECT_NE(dead.err.find("a lock they hold is never released, the stack's livelock, which reconvergence: independent avoids"), std::string::npos)
      << dead.err;
  auto live = run_cli({"run", "--arch", "h100", lock});
  EXPECT_EQ(live.exit_code, 0) << live.err;
  EXPECT_NE(live.out.find("check: passed"), std::string::npos);
}

TEST(Tutorials, MemoryVsCompute) {
  const double bandwidth_ratio = derive_peaks(load_gpu_config("h100", {}).spec).hbm_tbps / derive_peaks(load_gpu_config("a100", {}).spec).hbm_tbps;
  auto stream = compare("a100,h100", "traces/examples/vector_add.trace.gz");
  EXPECT_EQ(stream["a100"]["bound"], "memory");
  EXPECT_EQ(stream["h100"]["bound"], "memory");
  // Memory-bound: the H100 helps by about its bandwidth advantage, not more.
  EXPECT_GT(double(stream["h100"]["speedup_vs_first"]), 1.2);
  EXPECT_LT(double(stream["h100"]["speedup_vs_first"]), bandwidth_ratio * 1.05);
  auto fma = compare("a100,h100", "traces/examples/fma_throughput.trace.gz");
  EXPECT_EQ(fma["a100"]["bound"], "compute");
  EXPECT_EQ(fma["h100"]["bound"], "compute");
  EXPECT_GT(double(fma["h100"]["speedup_vs_first"]), bandwidth_ratio * 1.3);

  // Attention-like work sits left of the FP32 ridge point, GEMM-like work right of it.
  const double ridge = derive_peaks(load_gpu_config("a100", {}).spec).ridge_fp32;
  auto softmax = run_json({"run", "--arch", "a100", source_path("traces/tutorials/softmax_attention.launch.yaml"), "-q"})["summary"];
  auto sgemm = run_json({"run", "--arch", "a100", source_path("traces/tutorials/sgemm_256.launch.yaml"), "-q"})["summary"];
  EXPECT_LT(double(softmax["arithmetic_intensity"]), ridge);
  EXPECT_GT(double(sgemm["arithmetic_intensity"]), ridge);
  EXPECT_GT(all_flops(sgemm) / double(sgemm["time_us"]), all_flops(softmax) / double(softmax["time_us"]));
}

TEST(Tutorials, FlashAttention) {
  auto attention = [](const std::string& variant, const std::vector<std::string>& sets = {}) {
    std::vector<std::string> args{"run", "--arch", "h100", "--isa", "ptx", source_path("traces/kernels/attention_" + variant + ".launch.yaml"), "-q"};
    for (const auto& s : sets) args.insert(args.end(), {"--set", s});
    json j = run_json(args);
    EXPECT_TRUE(j["check"]["passed"]) << variant;
    double sectors = 0;
    for (auto& k : j["kernels"]) sectors += double(k["metrics"]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]["value"]);
    j["loaded_bytes"] = sectors * 32;
    j["dram"] = double(j["summary"]["dram_bytes_read"]) + double(j["summary"]["dram_bytes_written"]);
    return j;
  };
  json naive = attention("naive"), tiled = attention("tiled"), flash = attention("flash");
  // Flash is fastest; fusing without shared-memory reuse is not enough.
  EXPECT_LT(flash["summary"]["cycles"], naive["summary"]["cycles"]);
  EXPECT_LT(flash["summary"]["cycles"], tiled["summary"]["cycles"]);
  EXPECT_LT(double(flash["loaded_bytes"]) * 10, double(naive["loaded_bytes"]));
  EXPECT_LT(double(flash["loaded_bytes"]), double(tiled["loaded_bytes"]));
  EXPECT_EQ(flash["dram"], naive["dram"]);  // S fits in the 50 MB L2
  // With an L2 too small for S, naive spills it to DRAM and flash does not change.
  json naive_small = attention("naive", {"memory.l2.size_kib=200"}), flash_small = attention("flash", {"memory.l2.size_kib=200"});
  EXPECT_GT(double(naive_small["dram"]), 2 * double(flash_small["dram"]));
  EXPECT_EQ(flash_small["dram"], flash["dram"]);
  EXPECT_LT(flash_small["summary"]["cycles"], naive_small["summary"]["cycles"]);
  // On tensor cores (FlashAttention-2 style): both products become exactly 2 x 256 x 256 x 64
  // multiply-adds of tensor work, the FP32 pipe keeps only the softmax, and the kernel is several
  // times faster. Its padded ldmatrix reads take the fewest wavefronts 512 bytes can (4 each:
  // 32 per warp per tile, 16 warps, 4 tiles) with no bank conflicts.
  json mma = attention("mma");
  EXPECT_EQ(double(mma["summary"]["flops"]["tensor"]), 2.0 * 2 * 256 * 256 * 64);
  EXPECT_LT(double(mma["summary"]["flops"]["fp32"]) * 50, double(flash["summary"]["flops"]["fp32"]));
  EXPECT_LT(double(mma["summary"]["cycles"]) * 5, double(flash["summary"]["cycles"]));
  // "Try": an H100 whose mma.sync reached the peak runs this latency-bound kernel barely faster.
  json full_rate = attention("mma", {"tensor.warp_mma_fraction_of_peak=1"});
  EXPECT_LT(full_rate["summary"]["cycles"], mma["summary"]["cycles"]);
  EXPECT_GT(double(full_rate["summary"]["cycles"]), 0.95 * double(mma["summary"]["cycles"]));
  const json& metrics = mma["kernels"][0]["metrics"];
  EXPECT_EQ(double(metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]["value"]), 4.0 * 32 * 16 * 4);
  EXPECT_EQ(double(metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]["value"]), 0.0);
  // One head fills 4 SMs; eight heads (32 CTAs, one per SM) do 8x the work in about the same time.
  json heads = attention("mma_heads");
  EXPECT_EQ(double(heads["summary"]["warp_instructions"]), 8 * double(mma["summary"]["warp_instructions"]));
  EXPECT_LT(double(heads["summary"]["cycles"]), 1.05 * double(mma["summary"]["cycles"]));
}

TEST(Tutorials, Precision) {
  std::map<std::string, std::map<std::string, json>> rows;
  for (const char* p : {"fp16", "bf16", "fp8", "fp4", "fp4_f8f6f4", "fp16_sparse", "fp16_wgmma", "fp8_wgmma", "fp16_tcgen05", "fp8_tcgen05"})
    rows[p] = compare("v100,a100,h100,h200,b200", std::string("traces/tutorials/precision_") + p + ".trace.gz");
  // Refused exactly where the config has no such tensor cores or instruction: wgmma is sm_90a's,
  // tcgen05 (and with it FP4) B200's.
  const std::map<std::string, std::set<std::string>> runs{{"fp16", {"v100", "a100", "h100", "h200", "b200"}},
                                                          {"bf16", {"a100", "h100", "h200", "b200"}},
                                                          {"fp8", {"h100", "h200", "b200"}},
                                                          {"fp4", {"b200"}},
                                                          {"fp4_f8f6f4", {"b200"}},
                                                          {"fp16_sparse", {"a100", "h100", "h200", "b200"}},
                                                          {"fp16_wgmma", {"h100", "h200"}},
                                                          {"fp8_wgmma", {"h100", "h200"}},
                                                          {"fp16_tcgen05", {"b200"}},
                                                          {"fp8_tcgen05", {"b200"}}};
  // The peak each trace's rate is a share of: kind::f8f6f4 runs FP4 on the FP8 datapath; 2:4
  // sparse FP16 performs its half of the products at the dense FP16 rate.
  const std::map<std::string, std::string> rate{{"fp4_f8f6f4", "fp8"}, {"fp16_sparse", "fp16"}, {"fp16_wgmma", "fp16"},
                                                {"fp8_wgmma", "fp8"},   {"fp16_tcgen05", "fp16"}, {"fp8_tcgen05", "fp8"}};
  const std::set<std::string> warp_level{"fp16", "bf16", "fp8", "fp16_sparse"};
  for (auto& [p, byarch] : rows)
    for (auto& [arch, row] : byarch) {
      EXPECT_EQ(bool(row["ran"]), runs.at(p).count(arch) == 1) << p << " on " << arch;
      if (!row["ran"]) {
        const std::string why = p.ends_with("_wgmma")                           ? "Hopper's warpgroup MMA"
                                : p.starts_with("fp4") || p.ends_with("_tcgen05") ? "needs compute capability"
                                : p == "fp16_sparse"                            ? "structured-sparse MMA"
                                                                                : p;
        EXPECT_NE(std::string(row["error"]).find(why), std::string::npos) << row["error"];
        continue;
      }
      // Achieved tensor FLOP/s: near the rate of the instruction's path (the config's peak, or
      // the warp-level share of it), never above it; tensor cores run at the tensor clock the
      // peak assumes.
      GpuSpec spec = load_gpu_config(arch, {}).spec;
      double peak = 0;
      for (auto [prec, v] : derive_peaks(spec).tensor_tflops)
        if (tensor_precision_name(prec) == (rate.count(p) ? rate.at(p) : p)) peak = v * 1e12;
      if (warp_level.count(p)) peak *= spec.tensor.warp_mma_fraction;
      const double achieved = double(row["tensor_flops"]) / (double(row["time_us"]) * 1e-6);
      EXPECT_GT(achieved, 0.85 * peak) << p << " on " << arch;
      EXPECT_LE(achieved, peak * 1.0001) << p << " on " << arch;
    }
  auto time = [&](const char* p, const char* arch) { return double(rows[p][arch]["time_us"]); };
  auto rate_of = [&](const char* p, const char* arch) { return double(rows[p][arch]["tensor_flops"]) / time(p, arch); };
  auto flops_per_s = [&](const char* p) { return rate_of(p, "b200"); };
  // From Hopper on, warp-level MMAs are not the fast path: the tutorial's 1.96x (not 3.2x) for an
  // A100 kernel on H100, 2.5x on B200; wgmma and tcgen05 reach the peaks.
  EXPECT_NEAR(rate_of("fp16", "h100") / rate_of("fp16", "a100"), 1.96, 0.02);
  EXPECT_NEAR(rate_of("fp16", "b200") / rate_of("fp16", "a100"), 2.5, 0.05);
  EXPECT_NEAR(rate_of("fp16_wgmma", "h100") / rate_of("fp16", "h100"), 1 / 0.63, 0.05);
  EXPECT_NEAR(rate_of("fp16_tcgen05", "b200") / rate_of("fp16", "b200"), 1 / 0.315, 0.1);
  EXPECT_NEAR(rate_of("fp16_tcgen05", "b200") / rate_of("fp16", "v100"), 19.0, 0.5);
  EXPECT_NEAR(rate_of("fp8_wgmma", "h100") / rate_of("fp16_wgmma", "h100"), 2.0, 0.02);
  for (const char* arch : {"a100", "h100", "b200"}) EXPECT_DOUBLE_EQ(time("bf16", arch), time("fp16", arch)) << arch;
  for (const char* arch : {"h100", "b200"}) {
    // The same FLOPs per instruction, twice the rate: half the time.
    EXPECT_NEAR(time("fp16", arch) / time("fp8", arch), 2.0, 0.2) << arch;
  }
  // Block-scaled FP4 (NVFP4) runs at twice FP8's FLOP/s; unscaled FP4 through kind::f8f6f4 at
  // FP8's: the same instructions with half the K take the same time.
  EXPECT_NEAR(flops_per_s("fp4") / flops_per_s("fp8_tcgen05"), 2.0, 0.2);
  EXPECT_NEAR(flops_per_s("fp4_f8f6f4") / flops_per_s("fp8_tcgen05"), 1.0, 0.1);
  EXPECT_EQ(rows["fp4"]["b200"]["cycles"], rows["fp4_f8f6f4"]["b200"]["cycles"]);
  EXPECT_EQ(rows["fp16"]["h200"]["cycles"], rows["fp16"]["h100"]["cycles"]);
  // The same dense products in half the time with a 2:4 sparse A.
  for (const char* arch : {"a100", "h100", "b200"}) EXPECT_NEAR(time("fp16", arch) / time("fp16_sparse", arch), 2.0, 0.1) << arch;
  // "Try": the sparse HGEMM's multiply beats the dense one on the same matrices, by less than 2x.
  for (const char* arch : {"a100", "h100", "b200"}) {
    const json sparse = run_json({"run", "--arch", arch, "--isa", "ptx", source_path("traces/kernels/hgemm_sparse.launch.yaml"), "-q"});
    const json dense = run_json({"run", "--arch", arch, "--isa", "ptx", source_path("traces/kernels/hgemm_mma.launch.yaml"), "-q"});
    const double ratio = double(dense["kernels"][0]["summary"]["cycles"]) / double(sparse["kernels"][2]["summary"]["cycles"]);
    EXPECT_GT(ratio, 1.4) << arch;
    EXPECT_LT(ratio, 2.0) << arch;
  }
  // "What FP8 costs in accuracy": the check line's largest error, H100 against B200, with and
  // without promotion, and the what-if H100 with B200's FP8 accumulation.
  auto largest = [&](const char* arch, const char* file, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"run", "--arch", arch, "--isa", "ptx", source_path(std::string("traces/kernels/") + file + ".launch.yaml")};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const size_t at = r.out.find("largest |error| ");
    EXPECT_NE(at, std::string::npos) << r.out;
    return at == std::string::npos ? -1.0 : std::stod(r.out.substr(at + 16));
  };
  const std::vector<std::string> fp8_path{"--set", "tensor.warp_fp8_via_fp16=false"};
  EXPECT_EQ(largest("h100", "fp8_accumulate"), 2.29e-05);
  EXPECT_EQ(largest("h100", "fp8_accumulate_promoted"), 0.0);
  EXPECT_EQ(largest("h200", "fp8_accumulate"), 2.29e-05);
  EXPECT_EQ(largest("h100", "fp8_accumulate", fp8_path), 0.111);
  EXPECT_EQ(largest("h100", "fp8_accumulate_promoted", fp8_path), 0.014);
  EXPECT_EQ(largest("b200", "fp8_accumulate"), 2.29e-05);  // mma.sync FP8 runs as FP16 MMAs there too
  EXPECT_EQ(largest("b200", "fp8_accumulate", fp8_path), 1.53e-05);
  EXPECT_EQ(largest("b200", "fp8_accumulate_promoted", fp8_path), 0.0);
  std::vector<std::string> b200_bits = fp8_path;
  b200_bits.insert(b200_bits.end(), {"--set", "tensor.block_sum.fp8.extra_bits=2"});
  EXPECT_EQ(largest("h100", "fp8_accumulate", b200_bits), 1.53e-05);
  // "Try": the FP4 MMAs at N = 64 are bound by their operands' shared-memory reads, and with A in
  // tensor memory take a quarter of the N = 256 trace's time.
  test::TempDir dir;
  std::string text, line;
  for (LineSource in(source_path("traces/tutorials/precision_fp4.trace.gz")); in.next(line);) text += line + "\n";
  auto narrowed = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    for (size_t at = t.find(from); at != std::string::npos; at = t.find(from, at + to.size())) t.replace(at, from.size(), to);
    const json j = run_json({"run", "--arch", "b200", dir.write("n.trace", t), "-q"});
    return std::pair{double(j["summary"]["cycles"]), std::string(j["summary"]["bound_reason"])};
  };
  // Per MMA: (128 + 64) rows x 32 bytes at the banks' 128 bytes per clock, against its FLOPs at
  // the SM's FP4 rate and the tensor clock.
  const GpuSpec b200 = load_gpu_config("b200", {}).spec;
  const double reads = (128.0 + 64) * 32 / (b200.memory.shared.banks * b200.memory.shared.bank_bytes);
  const double math = 2.0 * 128 * 64 * 64 / b200.tensor.flops_per_clk_per_sm[static_cast<int>(TensorPrecision::kFp4)] *
                      b200.clocks.boost_mhz / b200.clocks.tensor_peak_mhz;
  ASSERT_GT(reads, math);
  const double full = double(rows["fp4"]["b200"]["cycles"]);
  const auto [ss, ss_reason] = narrowed("m128n256k64", "m128n64k64");
  EXPECT_NEAR(ss / (full / 4), reads / math, 0.02);
  EXPECT_NE(ss_reason.find("% of it reading MMA operands from shared memory"), std::string::npos) << ss_reason;
  const auto [ts, ts_reason] = narrowed("4X.m128n256k64", "4X.a_tmem.m128n64k64");
  EXPECT_NEAR(ts, full / 4, 1.0);
  EXPECT_EQ(ts_reason.find("shared memory"), std::string::npos) << ts_reason;
}

}  // namespace
}  // namespace warpsim

namespace warpsim {
namespace {

// docs/tutorials/tma.md: the wgmma GEMM with tiles staged by TMA beats the same GEMM with tiles
// staged by the threads (both warm in L2), with an order of magnitude fewer warp instructions,
// and computes the same product; B200 refuses the sm_90a kernel.
TEST(Tutorials, Tma) {
  auto r = test::run_cli({"run", "--arch", "h100", test::source_path("traces/kernels/wgmma_gemm.launch.yaml"), "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["check"]["passed"]);
  ASSERT_EQ(j["kernels"].size(), 4u);  // the fourth reads B MN-major
  const auto& threads = j["kernels"][1]["summary"];
  const auto& tma = j["kernels"][2]["summary"];
  EXPECT_EQ(j["kernels"][2]["name"], "tma_wgmma_gemm");
  EXPECT_LT(double(tma["cycles"]) * 4, double(threads["cycles"]));
  EXPECT_LT(double(tma["warp_instructions"]) * 5, double(threads["warp_instructions"]));
  EXPECT_LT(double(tma["stalls"]["long_scoreboard"]), double(threads["stalls"]["long_scoreboard"]));
  EXPECT_EQ(test::run_cli({"run", "--arch", "b200", test::source_path("traces/kernels/wgmma_gemm.launch.yaml"), "-q"}).exit_code, 3);
}

}  // namespace
}  // namespace warpsim

namespace warpsim {
namespace {

// docs/tutorials/what-if.md: a kernel that reads 8 MiB eight times, swept over L2 sizes. Once the
// L2 holds twice the working set, the hit rate is the first pass's misses away from all hits
// (7 of 8 passes hit) and more L2 changes nothing; with an L2 smaller than the working set the
// kernel is memory-bound and much slower. The one-run what-if is the sweep's point.
TEST(Tutorials, WhatIf) {
  test::TempDir dir;
  const std::string points = dir.path("points.jsonl");
  ASSERT_EQ(test::run_cli({"sweep", "plan", test::source_path("traces/sweeps/l2_capacity.yaml"), "-o", points}).exit_code, 0);
  auto run = test::run_cli({"sweep", "run", points, "--results", dir.path("results"), "-j", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto merged = test::run_cli({"sweep", "merge", dir.path("results"), "--points", points, "--baseline", "memory.l2.size_kib=x1", "-o",
                               dir.path("l2.json")});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  std::map<std::string, std::map<std::string, nlohmann::json>> rows;  // [arch][size]
  for (const auto& row : nlohmann::json::parse(test::read_file(dir.path("l2.json")))) rows[row["arch"]][row["memory.l2.size_kib"]] = row;
  ASSERT_EQ(rows.size(), 2u);
  const double passes = 8;  // the launch file's pass count
  for (const std::string arch : {"a100", "h100"}) {
    auto& r = rows[arch];
    ASSERT_EQ(r.size(), 4u) << arch;
    for (const std::string fits : {"x0.5", "x1"}) {
      EXPECT_DOUBLE_EQ(double(r[fits]["l2_hit_rate"]), (passes - 1) / passes) << arch << " " << fits;
      EXPECT_DOUBLE_EQ(double(r[fits]["speedup"]), 1.0) << arch << " " << fits;  // nothing gained past the fit
    }
    EXPECT_EQ(r["x0.125"]["bound"], "memory") << arch;
    EXPECT_LT(double(r["x0.125"]["l2_hit_rate"]), 0.5) << arch;
    EXPECT_LT(double(r["x0.125"]["speedup"]), 0.7) << arch;
    EXPECT_GT(double(r["x0.25"]["speedup"]), 0.9) << arch;  // 10-12.5 MiB: just past the 8 MiB
    EXPECT_EQ(r["x1"]["check"], "passed");
  }
  auto single = test::run_cli({"run", "--arch", "h100", "--set", "memory.l2.size_kib=6400",
                               test::source_path("tools/validation/launch/l2_reread_near.launch.yaml"), "--json", "-"});
  ASSERT_EQ(single.exit_code, 0) << single.err;
  EXPECT_EQ(nlohmann::json::parse(single.out)["summary"]["cycles"], rows["h100"]["x0.125"]["cycles"]);
}

// docs/tutorials/kernel-bugs.md: three classic bugs, each found without a GPU, and each fix clean
// with the values worked out by hand.
TEST(Tutorials, KernelBugs) {
  test::TempDir dir;
  // The shipped launch file, with `from` replaced by `to` and the PTX path made absolute.
  auto variant = [&](const std::string& name, const std::string& from, const std::string& to) {
    std::string text = test::shipped_launch(name, "traces/tutorials");
    if (!from.empty()) text.replace(text.find(from), from.size(), to);
    return dir.write(name, text);
  };
  auto words = [&](const std::string& file) { return test::read_words(dir.path(file)); };
  // 1. The race: seven findings, one per unrolled step; the first two across warps.
  auto r = run_cli({"run", "--arch", "h100", "--isa", "ptx", source_path("traces/tutorials/bug_race.launch.yaml"), "-q"});
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_NE(r.err.find("kernel_bugs.sm_90.ptx:74: thread (32,0,0) of CTA (2,0,0) reads shared 0x180, which thread (96,0,0) of CTA (2,0,0) "
                       "wrote at "),
            std::string::npos)
      << r.err;
  // Both accesses' CUDA lines from the PTX's .loc: partial[t] += partial[t + s], line 15 of kernel_bugs.cu.
  EXPECT_NE(r.err.find("kernel_bugs.sm_90.ptx:58 with no barrier ordering them (kernel_bugs.cu:15; the earlier kernel_bugs.cu:15)"), std::string::npos)
      << r.err;
  size_t races = 0;
  for (size_t at = r.err.find("warpsim: race: "); at != std::string::npos; at = r.err.find("warpsim: race: ", at + 1)) ++races;
  EXPECT_EQ(races, 7u) << r.err;
  r = run_cli({"run", "--arch", "h100", "--isa", "ptx", variant("bug_race.launch.yaml", "{scalar: s32, value: 0}", "{scalar: s32, value: 1}"), "--dump-dir",
               dir.path(""), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string sums = test::read_file(dir.path("out.bin"));
  ASSERT_EQ(sums.size(), 16u);
  for (uint32_t b = 0; b < 4; ++b) {
    float v;
    std::memcpy(&v, sums.data() + 4 * b, 4);
    EXPECT_EQ(v, 65536.0f * b + 32640) << "block " << b;  // 256b + (256b + 1) + ... + (256b + 255)
  }
  // 2. Bins nobody zeroed: reported; with --checks warn each holds 0xffffffff + 64; zeroed, 64
  // (4096 values i * 7 land evenly in 64 bins, 7 being odd).
  r = run_cli({"run", "--arch", "h100", "--isa", "ptx", source_path("traces/tutorials/bug_uninitialized.launch.yaml"), "-q"});
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_NE(r.err.find("warpsim: uninitialized-global-read: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernel_bugs.sm_90.ptx:236: thread (0,0,0) of CTA (2,0,0) reads byte 0 of "
                       "buffer 'bins', which nothing has written"),
            std::string::npos)
      << r.err;
  const std::string unzeroed = variant("bug_uninitialized.launch.yaml", "", "");
  r = run_cli({"run", "--arch", "h100", "--isa", "ptx", unzeroed, "--checks", "warn", "--dump-dir", dir.path(""), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (uint32_t v : words("bins.bin")) EXPECT_EQ(v, 63u);
  r = run_cli({"run", "--arch", "h100", "--isa", "ptx", variant("bug_uninitialized.launch.yaml", "count: 64, init: none", "count: 64, init: zeros"), "--dump-dir", dir.path(""), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (uint32_t v : words("bins.bin")) EXPECT_EQ(v, 64u);
  // 3. The grid barrier waiting for a ninth block of eight: stopped at once at its poll.
  r = run_cli({"run", "--arch", "h100", "--isa", "ptx", source_path("traces/tutorials/bug_grid_barrier.launch.yaml"), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("kernel_bugs.sm_90.ptx:275:1: warp 0 of CTA ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("waits forever: its loop (lines 275-277) polls byte 0 of buffer 'count' (its 4 bytes hold 8), which nothing in the grid "
                       "can change (the grid's 8 CTAs have all begun; the other warps of those still running: 7 polling in loops that write "
                       "nothing, 8 at barriers, 0 exited)"),
            std::string::npos)
      << r.err;
  r = run_cli({"run", "--arch", "h100", "--isa", "ptx", variant("bug_grid_barrier.launch.yaml", "value: 9}", "value: 8}"), "--dump-dir", dir.path(""), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (uint32_t v : words("seen.bin")) EXPECT_EQ(v, 8u);
  // Too many blocks to be resident at once (H100 holds 264 of 1024 threads): the right count hangs too.
  std::string big = test::read_file(variant("bug_grid_barrier.launch.yaml", "value: 9}", "value: 300}"));
  big.replace(big.find("grid: [8, 1, 1]"), 15, "grid: [300, 1, 1]");
  big.replace(big.find("block: [64, 1, 1]"), 17, "block: [1024, 1, 1]");
  big.replace(big.find("count: 8, init: none"), 20, "count: 300, init: none");
  r = run_cli({"run", "--arch", "h100", "--isa", "ptx", dir.write("big.launch.yaml", big), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("the GPU holds 264 of the grid's 300 CTAs at once"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot begin until a resident one exits"), std::string::npos) << r.err;
  // 4. A warp reduction over a 48-thread block: five findings (one per step), the first at lane 0 of
  // the second warp reading lane 16; whole warps (64 threads, the last 16 adding zero) run clean.
  r = run_cli({"run", "--arch", "h100", "--isa", "ptx", source_path("traces/tutorials/bug_shuffle.launch.yaml"), "-q"});
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_NE(r.err.find("warpsim: shuffle-from-inactive-lane: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernel_bugs.sm_90.ptx:341: thread (32,0,0) of CTA (0,0,0) reads lane 16 with shfl.sync.down.b32, but lane 16 is not "
                       "taking part"),
            std::string::npos)
      << r.err;
  size_t shuffles = 0;
  for (size_t at = r.err.find("shuffle-from-inactive-lane"); at != std::string::npos; at = r.err.find("shuffle-from-inactive-lane", at + 1)) ++shuffles;
  EXPECT_EQ(shuffles, 5u) << r.err;
  r = run_cli({"run", "--arch", "h100", "--isa", "ptx", variant("bug_shuffle.launch.yaml", "block: [48, 1, 1]", "block: [64, 1, 1]"), "--dump-dir", dir.path(""), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string warp_sums = test::read_file(dir.path("sums.bin"));
  ASSERT_EQ(warp_sums.size(), 8u);
  float first = 0, second = 0;
  std::memcpy(&first, warp_sums.data(), 4);
  std::memcpy(&second, warp_sums.data() + 4, 4);
  EXPECT_EQ(first, 528.0f);   // 1 + ... + 32
  EXPECT_EQ(second, 648.0f);  // 33 + ... + 48
}

}  // namespace
}  // namespace warpsim

namespace warpsim {
namespace {

// docs/tutorials/scheduling.md: 1184 uneven tiles on B200 (296 CTAs at once). The static
// persistent kernel cannot finish before its most loaded CTA's chain of dependent FMAs (worked out
// here from the kernel's hash and B200's FMA latency); work stealing cancels every CTA beyond the
// 296 and finishes first; a scheduler ten times slower to answer than the tiles are long undoes it.
uint32_t tutorial_steps(uint32_t tile) {  // traces/tutorials/scheduling.cu's sched_steps
  uint32_t h = tile * 0x9E3779B1u;
  h = (h ^ (h >> 15)) * 0x85EBCA77u;
  h ^= h >> 13;
  return (h >> 30) == 0 ? 768u : 64u;
}

TEST(Tutorials, Scheduling) {
  test::TempDir dir;
  const std::string launch = source_path("traces/tutorials/scheduling.launch.yaml");
  const json j = run_json({"run", "--arch", "b200", launch, "--stats", dir.path("stats.csv")});
  EXPECT_TRUE(j["check"]["passed"]);
  ASSERT_EQ(j["kernels"].size(), 3u);
  const double per_cta = j["kernels"][0]["summary"]["cycles"], persistent = j["kernels"][1]["summary"]["cycles"],
               stealing = j["kernels"][2]["summary"]["cycles"];
  uint64_t worst = 0;
  for (uint32_t c = 0; c < 296; ++c) {
    uint64_t steps = 0;
    for (uint32_t t = c; t < 1184; t += 296) steps += tutorial_steps(t);
    worst = std::max(worst, steps);
  }
  const auto b200 = load_gpu_config("b200", {});
  EXPECT_GE(persistent, double(worst * b200.spec.pipe(Pipe::kFma).latency));
  EXPECT_LT(stealing, persistent);
  EXPECT_LT(persistent, per_cta);
  const std::string stats = test::read_file(dir.path("stats.csv"));
  EXPECT_NE(stats.find("\"tiles_work_stealing\",2,\"gpu.ctas_cancelled\"," + std::to_string(1184 - 296) + ","), std::string::npos);
  // The work-stealing launch alone, its answer ten times slower.
  std::string stealing_only = test::shipped_launch("scheduling.launch.yaml", "traces/tutorials");
  stealing_only = stealing_only.substr(0, stealing_only.find("dump:"));
  stealing_only.erase(stealing_only.find("  - kernel: tiles_per_cta"), stealing_only.find("  - kernel: tiles_work_stealing") - stealing_only.find("  - kernel: tiles_per_cta"));
  const json slow = run_json({"run", "--arch", "b200", dir.write("slow.launch.yaml", stealing_only), "--set", "clusters.launch_control_latency=3000"});
  ASSERT_EQ(slow["kernels"].size(), 1u);
  EXPECT_GT(double(slow["kernels"][0]["summary"]["cycles"]), persistent);
}

// big-grids.md, scaled down to a test's size: the saxpy launch over 2 Mi floats (8192 CTAs) on an
// A100 cut to 4 SMs (256 waves) and an L2 cut as much as the data (16 MiB against 256 MiB), so
// that the kernel still streams through L2 as the tutorial's does.
TEST(Tutorials, BigGrids) {
  test::TempDir dir;
  std::string launch = test::read_file(source_path("tools/bench/sampling/saxpy_32m.launch.yaml"));
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = launch.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    launch.replace(at, from.size(), to);
  };
  replace("ptx: ../../../traces/kernels/ptx/", "ptx: " + source_path("traces/kernels/ptx/"));
  replace("grid: [131072, 1, 1]", "grid: [8192, 1, 1]");
  for (int k = 0; k < 3; ++k) replace("33554432", "2097152");
  launch += "dump: [y]\n";
  const std::string file = dir.write("saxpy_2m.launch.yaml", launch);
  const std::vector<std::string> gpu = {"--arch", "a100", "--set", "topology.sms=4", "--set", "topology.tpcs=2", "--set", "topology.gpcs=1",
                                        "--set", "memory.l2.size_kib=2560"};
  auto run = [&](const std::string& out, const std::vector<std::string>& extra) {
    std::filesystem::create_directories(dir.path(out));
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), gpu.begin(), gpu.end());
    args.insert(args.end(), {file, "--dump-dir", dir.path(out)});
    args.insert(args.end(), extra.begin(), extra.end());
    return run_json(args);
  };
  const json whole = run("whole", {}), functional = run("functional", {"--functional"}), sampled = run("sampled", {"--sample"});
  const json& w = whole["kernels"][0]["summary"];
  // Results only: the timed run's instructions and bytes.
  EXPECT_EQ(functional["mode"], "functional");
  EXPECT_EQ(functional["kernels"][0]["warp_instructions"], w["warp_instructions"]);
  const std::string y = test::read_file(dir.path("whole/y.bin"));
  ASSERT_EQ(y.size(), 2097152u * 4);
  EXPECT_EQ(test::read_file(dir.path("functional/y.bin")), y);
  EXPECT_EQ(test::read_file(dir.path("sampled/y.bin")), y);
  // Time in part: the projection within the 2% asked for, from part of the grid; the whole
  // kernel's instructions and FLOPs counted (one FMA per element), its DRAM reads and writes
  // estimated about right (the writes from what the timed part stored, not what it wrote:
  // report/kernel_summary.cpp).
  const json& s = sampled["kernels"][0]["summary"];
  ASSERT_TRUE(s.contains("sampling")) << s.dump();
  EXPECT_NEAR(s["cycles"].get<double>(), w["cycles"].get<double>(), 0.02 * w["cycles"].get<double>());
  EXPECT_LT(s["sampling"]["ctas_timed"].get<double>(), 8192.0);
  const json& total = s["sampling"]["whole_kernel"];
  EXPECT_EQ(total["warp_instructions"], w["warp_instructions"]);
  EXPECT_EQ(total["flops"]["fp32"].get<double>(), 2.0 * 2097152);
  EXPECT_EQ(total["flops"], w["flops"]);
  EXPECT_NEAR(total["dram_bytes_read_estimate"].get<double>(), w["dram_bytes_read"].get<double>(), 0.05 * w["dram_bytes_read"].get<double>());
  EXPECT_NEAR(total["dram_bytes_written_estimate"].get<double>(), w["dram_bytes_written"].get<double>(), 0.05 * w["dram_bytes_written"].get<double>());
  // A grid of fewer than twelve waves runs whole.
  std::string small = launch;
  small.replace(small.find("grid: [8192, 1, 1]"), 18, "grid: [64, 1, 1]");
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), gpu.begin(), gpu.end());
  args.insert(args.end(), {dir.write("small.launch.yaml", small), "--sample"});
  EXPECT_FALSE(run_json(args)["kernels"][0]["summary"].contains("sampling"));
}

}  // namespace
}  // namespace warpsim
