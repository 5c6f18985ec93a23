#include "calibrate/microbench.h"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <memory>
#include <utility>

#include "common/error.h"
#include "config/load_config.h"
#include "frontend/synthetic/generated_workload.h"
#include "gpu/simulation.h"
#include "isa/op_info.h"
#include "report/kernel_summary.h"

namespace warpsim {
namespace {

const OpInfo* op_for(const std::string& mnemonic) {
  static std::map<std::string, std::unique_ptr<OpInfo>> ops;
  auto& slot = ops[mnemonic];
  if (!slot) {
    slot = std::make_unique<OpInfo>();
    std::string error;
    if (!decode_mnemonic(mnemonic, *slot, error)) throw SimulationError("calibrate: " + error);
  }
  return slot.get();
}

KernelInfo info(const std::string& name, uint32_t ctas, uint32_t threads, uint32_t shared_bytes = 0) {
  KernelInfo k;
  k.name = name;
  k.grid = Dim3{ctas, 1, 1};
  k.block = Dim3{threads, 1, 1};
  k.shared_bytes = shared_bytes;
  k.registers_per_thread = 32;
  return k;
}

// One lane per warp chasing dependent loads: each load's address waits for the last one. With
// `warps` > 1, one warp per CTA (so on different SMs) each takes its share of the `lines` lines
// `stride` apart (warp w takes lines w, w + warps, ...). Every warp makes `passes` passes.
GeneratedKernel chase(const std::string& mnemonic, uint64_t base, uint64_t lines, uint64_t stride, uint64_t passes,
                      uint32_t shared = 0, uint32_t warps = 1) {
  const OpInfo* op = op_for(mnemonic);
  GeneratedKernel k{info("chase", warps, 32, shared), nullptr};
  k.program = [=](uint32_t cta, uint32_t) -> WarpProgram {
    const uint64_t mine = lines / warps;
    return [=, regs = std::array<RegId, 2>{}](uint64_t i, WarpInst& in) mutable {
      if (i >= mine * passes) return false;
      regs = {static_cast<RegId>((i + 1) % 2), static_cast<RegId>(i % 2)};
      in.op = op, in.active_mask = 1, in.num_dst = 1, in.num_src = 1, in.regs = regs.data();
      in.addr = LaneAddresses{base + ((i % mine) * warps + cta) * stride, 0, nullptr};
      return true;
    };
  };
  return k;
}

struct Run {
  std::vector<KernelRun> kernels;
  std::vector<Summary> summaries;
};

// Runs microbenchmark kernels on a fresh GPU model each time, handing each set to the trace sink
// first (if any) under the current label.
class Runner {
 public:
  Runner(const GpuSpec& spec, const MicrobenchTraceSink& sink) : spec_(spec), sink_(sink) {}
  void label(const std::string& name) { label_ = name, run_ = 0; }

  Run simulate(std::vector<GeneratedKernel> kernels) {
    if (sink_) sink_(label_ + (run_ ? "_" + std::to_string(run_) : ""), kernels);
    ++run_;
    Gpu gpu(spec_);
    GeneratedWorkload w(std::move(kernels));
    Run r;
    r.kernels = warpsim::simulate(gpu, w).kernels;
    for (const auto& k : r.kernels) r.summaries.push_back(summarize_kernel(spec_, gpu.stats(), k));
    return r;
  }
  // Cycles per load of a chase's last pass: (time with 2 passes) - (time with 1), per line.
  double chase_latency(const std::string& mnemonic, uint64_t base, uint64_t lines, uint64_t stride, uint32_t shared = 0) {
    auto cycles = [&](uint64_t passes) { return double(simulate({chase(mnemonic, base, lines, stride, passes, shared)}).kernels.at(0).cycles()); };
    return (cycles(2) - cycles(1)) / double(lines);
  }

 private:
  const GpuSpec& spec_;
  const MicrobenchTraceSink& sink_;
  std::string label_ = "microbench";
  int run_ = 0;
};

// Each of `warps` warps per CTA reads `loads` x 512 bytes (a float4 per lane) of its own span,
// `passes` times over.
GeneratedKernel stream(uint32_t ctas, uint32_t warps, uint32_t loads, uint64_t base, uint32_t passes = 1) {
  const OpInfo* op = op_for("ld.global.v4.f32");
  GeneratedKernel k{info("stream", ctas, 32 * warps), nullptr};
  k.program = [=](uint32_t cta, uint32_t warp) -> WarpProgram {
    const uint64_t start = base + (uint64_t{cta} * warps + warp) * loads * 512;
    return [=, regs = std::array<RegId, 4>{}](uint64_t i, WarpInst& in) mutable {
      if (i >= uint64_t{loads} * passes) return false;
      for (int r = 0; r < 4; ++r) regs[r] = static_cast<RegId>((i % 16) * 4 + r);  // no WAW waits
      in.op = op, in.active_mask = 0xffffffffu, in.num_dst = 4, in.regs = regs.data();
      in.addr = LaneAddresses{start + (i % loads) * 512, 16, nullptr};
      return true;
    };
  };
  return k;
}

// Each lane of `warps` warps per CTA reads 4 bytes at `loads` pseudo-random addresses in a
// 16 GiB span above `base`: every read is a sector of its own, nearly always in a row no other
// read opens, so the DRAM's activation rate (tRRD, tFAW) rather than its bus bounds the rate.
GeneratedKernel random_reads(uint32_t ctas, uint32_t warps, uint32_t loads, uint64_t base) {
  const OpInfo* op = op_for("ld.global.f32");
  GeneratedKernel k{info("random_reads", ctas, 32 * warps), nullptr};
  k.program = [=](uint32_t cta, uint32_t warp) -> WarpProgram {
    return [=, regs = std::array<RegId, 1>{}, lanes = std::array<uint64_t, 32>{}](uint64_t i, WarpInst& in) mutable {
      if (i >= loads) return false;
      for (uint32_t l = 0; l < 32; ++l) {
        uint64_t h = ((uint64_t{cta} * warps + warp) * loads + i) * 32 + l + 1;  // splitmix64: fixed, well mixed
        h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
        h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
        lanes[l] = base + ((h ^ (h >> 31)) % (uint64_t{1} << 29)) * 32;
      }
      regs[0] = static_cast<RegId>(i % 32);
      in.op = op, in.active_mask = 0xffffffffu, in.num_dst = 1, in.regs = regs.data();
      in.addr = LaneAddresses{0, 0, lanes.data()};
      return true;
    };
  };
  return k;
}

// `count` independent instructions per warp, each accumulating into one of 8 registers.
GeneratedKernel independent(const std::string& mnemonic, uint32_t ctas, uint32_t warps, uint64_t count) {
  const OpInfo* op = op_for(mnemonic);
  GeneratedKernel k{info("throughput", ctas, 32 * warps), nullptr};
  k.program = [=](uint32_t, uint32_t) -> WarpProgram {
    return [=, regs = std::array<RegId, 4>{}](uint64_t i, WarpInst& in) mutable {
      if (i >= count) return false;
      const auto acc = static_cast<RegId>(8 + i % 8);
      regs = {acc, 1, 2, acc};
      in.op = op, in.active_mask = 0xffffffffu, in.num_dst = 1, in.num_src = 3, in.regs = regs.data();
      return true;
    };
  };
  return k;
}

// Blackwell: one warp per CTA whose first thread issues `count` whole-SM tcgen05 MMAs, commits
// them to the mbarrier at shared 0 and waits for its phase, so the kernel ends when they are done.
GeneratedKernel tcgen05_stream(const std::string& mnemonic, uint32_t ctas, uint64_t count) {
  const OpInfo *init = op_for("mbarrier.init.shared::cta.b64"), *mma = op_for(mnemonic);
  const OpInfo *commit = op_for("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64");
  const OpInfo* wait = op_for("mbarrier.try_wait.parity.shared::cta.b64");
  GeneratedKernel k{info("tcgen05_throughput", ctas, 32, 16), nullptr};
  k.program = [=](uint32_t, uint32_t) -> WarpProgram {
    return [=, regs = std::array<RegId, 2>{1, 2}](uint64_t i, WarpInst& in) mutable {
      if (i > count + 2) return false;
      in.active_mask = 1u, in.regs = regs.data();
      if (i == 0) {
        in.op = init, in.mbar.arrivals = 1;
      } else if (i <= count) {
        in.op = mma;
      } else if (i == count + 1) {
        in.op = commit, in.mbar.arrivals = 1;
      } else {
        in.op = wait, in.active_mask = 0xffffffffu, in.mbar.phase = 0, in.num_dst = 1;
      }
      return true;
    };
  };
  return k;
}

// `warps` warps of one CTA, each `count` independent shared loads whose 32 lanes fall `ways` to a bank.
GeneratedKernel shared_conflicts(uint32_t ways, uint64_t count, uint32_t warps) {
  const OpInfo* op = op_for("ld.shared.u32");
  GeneratedKernel k{info("bank_conflicts", 1, 32 * warps, 8192), nullptr};
  k.program = [=](uint32_t, uint32_t) -> WarpProgram {
    std::array<uint64_t, 32> address{};
    const uint32_t banks_used = 32 / ways;
    for (uint32_t l = 0; l < 32; ++l) address[l] = (l % banks_used) * 4 + (l / banks_used) * 128;
    return [=, regs = std::array<RegId, 2>{}](uint64_t i, WarpInst& in) mutable {
      if (i >= count) return false;
      regs = {static_cast<RegId>(2 + i % 16), 0};
      in.op = op, in.active_mask = 0xffffffffu, in.num_dst = 1, in.num_src = 1, in.regs = regs.data();
      in.addr = LaneAddresses{0, 0, address.data()};
      return true;
    };
  };
  return k;
}

std::string kib(uint64_t bytes) {
  return bytes >= (1u << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes >> 10) + " KiB";
}

}  // namespace

MicrobenchReferences load_microbench_references(const std::string& arch) {
  const std::string path = config_directory() + "/reference/microbench.yaml";
  MicrobenchReferences refs;
  if (!std::filesystem::exists(path)) return refs;
  YAML::Node root = YAML::LoadFile(path);
  if (!root[arch]) return refs;
  for (const auto& entry : root[arch]) {
    refs[entry.first.as<std::string>()] = MicrobenchReference{entry.second["value"].as<double>(), entry.second["source"].as<std::string>()};
  }
  return refs;
}

std::vector<MicrobenchResult> run_microbenchmarks(const GpuSpec& spec, const MicrobenchReferences& measured, const MicrobenchTraceSink& sink) {
  std::vector<MicrobenchResult> out;
  Runner runner(spec, sink);
  // Throughput peaks come from the config's datasheet section.
  MicrobenchReferences refs = measured;
  if (spec.datasheet.fp32_tflops) refs["fp32_tflops"] = {spec.datasheet.fp32_tflops->value, "datasheet: " + spec.datasheet.fp32_tflops->source};
  for (const auto& [p, figure] : spec.datasheet.tensor_tflops)
    refs["tensor_" + std::string(tensor_precision_name(p))] = {figure.value, "datasheet: " + figure.source};
  auto add = [&](const std::string& group, const std::string& name, const std::string& unit, double value, const std::string& key,
                 const std::string& note = "") {
    MicrobenchResult r{group, name, unit, value, std::nullopt, "", note};
    if (auto it = refs.find(key); it != refs.end()) r.reference = it->second.value, r.source = it->second.source;
    out.push_back(r);
  };
  const auto& m = spec.memory;
  const double ghz = spec.cycles_per_second() / 1e9;

  // Latency: one lane chasing dependent loads. L1: 64 lines, the second pass hits. L2: a kernel
  // boundary empties L1, so a warm-up kernel then the measured one. DRAM: lines 64 KiB + 128 B
  // apart, so each lands in a new DRAM row.
  runner.label("latency_l1");
  add("latency", "L1 hit (64 lines)", "cycles", runner.chase_latency("ld.global.u64", 0x100000, 64, 128), "l1_hit");
  runner.label("latency_shared");
  add("latency", "shared memory (ld.shared chain)", "cycles", runner.chase_latency("ld.shared.u32", 0, 64, 4, 4096), "shared");
  {
    auto l2 = [&](uint64_t lines) {
      runner.label("latency_l2_" + std::to_string(lines) + "_lines");
      auto r = runner.simulate({chase("ld.global.u64", 0x200000, lines, 128, 1), chase("ld.global.u64", 0x200000, lines, 128, 1)});
      return double(r.kernels.at(1).cycles());
    };
    add("latency", "L2 hit (near partition)", "cycles", (l2(128) - l2(64)) / 64, "l2_near");
  }
  {
    // DRAM: a chase through lines nobody has touched (n and 2n of them, one pass each), 64 KiB
    // + 128 B apart so that each opens a new DRAM row.
    auto cold = [&](uint64_t lines) {
      runner.label("latency_dram_" + std::to_string(lines) + "_lines");
      return double(runner.simulate({chase("ld.global.u64", 0x40000000, lines, 65536 + 128, 1)}).kernels.at(0).cycles());
    };
    add("latency", "DRAM (L2 miss)", "cycles", (cold(128) - cold(64)) / 64, "dram", "lines 64 KiB + 128 B apart, each in a new DRAM row");
  }
  if (m.l2.partitions > 1) {
    // Far partition: one SM chasing three quarters of the L2, more than its own partition holds,
    // so each line's second visit finds it only in the other partition (TK's far plateau).
    const uint64_t lines = m.l2.size_bytes * 3 / 4 / 128;
    runner.label("latency_l2_far");
    add("latency", "L2 hit (far partition)", "cycles", runner.chase_latency("ld.global.u64", 0x80000000, lines, 128), "l2_far",
        "second pass over " + kib(lines * 128) + " from one SM");
  }
  // The ladder: average latency of a chase's second pass over each working set, every 128-byte
  // line of it touched; 64 warps on different SMs share the lines so that large sets finish.
  const uint32_t chasers = std::min<uint32_t>(64, spec.topology.sms);
  for (uint64_t ws : {uint64_t{16} << 10, uint64_t{256} << 10, uint64_t{2} << 20, m.l2.size_bytes / 2, m.l2.size_bytes * 3 / 2}) {
    const uint64_t lines = ws / 128 / chasers * chasers;
    runner.label("ladder_" + kib(ws).replace(kib(ws).find(' '), 1, "_"));
    auto cycles = [&](uint64_t passes) { return double(runner.simulate({chase("ld.global.u64", 0x80000000, lines, 128, passes, 0, chasers)}).kernels.at(0).cycles()); };
    add("latency ladder", "working set " + kib(ws), "cycles", (cycles(2) - cycles(1)) / double(lines / chasers), "",
        "second pass, " + std::to_string(chasers) + " warps chasing a share each");
  }

  // Shared-memory bank conflicts: SM cycles per warp load, four warps keeping the MIO busy.
  for (uint32_t ways : {1u, 2u, 4u, 8u, 16u, 32u}) {
    runner.label("shared_" + std::to_string(ways) + "way");
    auto cycles = [&](uint64_t n) { return double(runner.simulate({shared_conflicts(ways, n, 4)}).kernels.at(0).cycles()); };
    add("shared", std::to_string(ways) + "-way bank conflict", "cycles/load", (cycles(512) - cycles(256)) / (4 * 256), "",
        "an n-way conflict replays n times: expected " + std::to_string(ways));
  }

  // Bandwidth: every SM streams; 8, 16 and 32 warps per SM.
  const double peak_gbps = m.hbm.peak_bytes_per_second() / 1e9;
  for (uint32_t ctas_per_sm : {1u, 2u, 4u}) {
    const uint32_t ctas = ctas_per_sm * spec.topology.sms, loads = 64;
    runner.label("dram_read_" + std::to_string(8 * ctas_per_sm) + "_warps_per_sm");
    auto r = runner.simulate({stream(ctas, 8, loads, 0x100000000ull)});
    add("bandwidth", "DRAM read, " + std::to_string(8 * ctas_per_sm) + " warps/SM", "GB/s", r.summaries.at(0).dram_bandwidth_gbps,
        ctas_per_sm == 4 ? "dram_read_gbps" : "", "peak " + std::to_string(int(peak_gbps)) + " GB/s");
  }
  {
    runner.label("dram_random_reads");
    auto r = runner.simulate({random_reads(4 * spec.topology.sms, 8, 16, 0x100000000ull)});
    add("bandwidth", "DRAM random sector reads", "GB/s", r.summaries.at(0).dram_bandwidth_gbps, "",
        std::to_string(m.hbm.fetch_bytes) + " B of DRAM per 32 B read, each opening a row: activations (tRRD, tFAW; tRAS + tRP per bank) limit it; peak " + std::to_string(int(peak_gbps)) + " GB/s");
  }
  {
    // L1: every warp reads its own 8 KiB 34 times over (one CTA of 8 warps per SM: 64 KiB,
    // inside every L1 here): all but the first pass hit. Bytes over the whole run's cycles, so
    // the cold first pass makes this a slight underestimate. (A difference of two runs would
    // not do here: the short run's misses leave the SM idle, the long run hides them.)
    const uint32_t ctas = spec.topology.sms, loads = 16, passes = 34;
    runner.label("l1_read");
    auto r = runner.simulate({stream(ctas, 8, loads, 0x100000000ull, passes)});
    const double bytes = double(ctas) * 8 * loads * 512 * passes;
    add("bandwidth", "L1 read (8 KiB per warp, hits)", "B/clk/SM", bytes / double(r.kernels.at(0).cycles()) / spec.topology.sms, "",
        "tag lookups allow " + std::to_string(m.l1.tag_lookups_per_clk * m.line_bytes) + " B/clk/SM");
  }
  {
    // L2: a quarter of L2 read twice; the second kernel finds it in L2.
    const uint32_t ctas = 4 * spec.topology.sms;
    const uint32_t loads = static_cast<uint32_t>(std::max<uint64_t>(1, m.l2.size_bytes / 4 / (uint64_t{ctas} * 8 * 512)));
    runner.label("l2_read");
    auto r = runner.simulate({stream(ctas, 8, loads, 0x100000000ull), stream(ctas, 8, loads, 0x100000000ull)});
    const double bytes = double(ctas) * 8 * loads * 512, seconds = double(r.kernels.at(1).cycles()) / spec.cycles_per_second();
    const double l2_peak = double(m.l2.slices) * m.l2.bytes_per_clk_per_slice * spec.cycles_per_second() / 1e9;
    add("bandwidth", "L2 read (" + kib(uint64_t(bytes)) + " resident)", "GB/s", bytes / seconds / 1e9, "l2_read_gbps",
        "slice ports " + std::to_string(int(l2_peak)) + " GB/s");
  }
  // Bandwidth ladder: the whole GPU reads a working set twice (4 CTAs of 8 warps per SM); the
  // second kernel's rate is L2's while the set fits (with both partitions' copies, about half of
  // L2 per partition pair) and DRAM's once it does not (LRU then evicts each line before reuse).
  const std::pair<uint64_t, const char*> sets[] = {{m.l2.size_bytes / 8, "1/8 of L2"}, {m.l2.size_bytes / 2, "1/2 of L2"},
                                                   {m.l2.size_bytes * 3 / 2, "1.5x L2"}};
  for (const auto& [ws, what] : sets) {
    const uint32_t ctas = 4 * spec.topology.sms;
    const uint32_t loads = static_cast<uint32_t>(std::max<uint64_t>(1, ws / (uint64_t{ctas} * 8 * 512)));
    runner.label("bw_ladder_" + kib(ws).replace(kib(ws).find(' '), 1, "_"));
    auto r = runner.simulate({stream(ctas, 8, loads, 0x100000000ull), stream(ctas, 8, loads, 0x100000000ull)});
    const double bytes = double(ctas) * 8 * loads * 512, seconds = double(r.kernels.at(1).cycles()) / spec.cycles_per_second();
    add("bandwidth ladder", std::string("read, working set ") + what, "GB/s", bytes / seconds / 1e9, "",
        kib(uint64_t(bytes)) + ", second pass; DRAM peak " + std::to_string(int(peak_gbps)) + " GB/s");
  }

  // Compute: FP32 FMA and MMA throughput over the whole GPU, in TFLOP/s: `flops` over one
  // kernel's simulated time.
  auto tflops = [&](const GeneratedKernel& kernel, double flops) {
    return flops / (double(runner.simulate({kernel}).kernels.at(0).cycles()) / spec.cycles_per_second()) / 1e12;
  };
  {
    const uint32_t ctas = 4 * spec.topology.sms;
    const uint64_t count = 512;
    runner.label("fp32_fma");
    add("compute", "FP32 FMA", "TFLOP/s", tflops(independent("fma.rn.f32", ctas, 8, count), double(ctas) * 8 * count * 32 * 2), "fp32_tflops");
  }
  struct Mma {
    TensorPrecision p;
    const char* key;
    const char* mnemonic;
    uint32_t m, n, k;
    bool sparse = false;
  };
  const Mma mmas[] = {
      {TensorPrecision::kFp16, "tensor_fp16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, 8, 16},
      {TensorPrecision::kBf16, "tensor_bf16", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, 8, 16},
      {TensorPrecision::kTf32, "tensor_tf32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 16, 8, 8},
      {TensorPrecision::kInt8, "tensor_int8", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 16, 8, 32},
      {TensorPrecision::kFp8, "tensor_fp8", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 16, 8, 32},
      {TensorPrecision::kFp64, "tensor_fp64", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", 8, 8, 4},
      // 2:4 structured sparsity: m16n8k32 in the time of a dense m16n8k16, counted as the dense
      // product it stands for, as NVIDIA's sparse peaks are (twice the dense ones: WP-A, DS-H, SPEC-B).
      {TensorPrecision::kFp16, "tensor_fp16_sparse", "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 16, 8, 32, true},
  };
  if (auto it = refs.find("tensor_fp16"); it != refs.end() && spec.tensor.structured_sparsity)
    refs["tensor_fp16_sparse"] = {2 * it->second.value, it->second.source + ", doubled with 2:4 sparsity"};
  std::vector<Mma> runnable(std::begin(mmas), std::end(mmas));
  // Volta has no m16n8k16: its FP16 tensor cores are reached through wmma.
  if (!spec.tensor.supports_shape(16, 8, 16))
    runnable.push_back({TensorPrecision::kFp16, "tensor_fp16", "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", 16, 16, 16});
  // Where warp-level MMAs run below the peak (Hopper), their rows have no datasheet reference:
  // the warpgroup or whole-SM rows below carry it. FP64 MMAs have no other form.
  const double warp_share = spec.tensor.warp_mma_fraction;
  for (const Mma& x : runnable) {
    if (!spec.tensor.supports(x.p) || !spec.tensor.supports_shape(x.m, x.n, x.k) || (x.sparse && !spec.tensor.structured_sparsity)) continue;
    const uint32_t ctas = 4 * spec.topology.sms;
    const uint64_t count = 256;
    const bool wmma = std::string(x.mnemonic).starts_with("wmma");
    const bool below_peak = warp_share < 1.0 && x.p != TensorPrecision::kFp64;
    const std::string precision(tensor_precision_name(x.p));
    const std::string api = wmma ? "wmma " : x.sparse ? "mma.sp " : "mma.sync ";
    runner.label(std::string(wmma ? "wmma_" : x.sparse ? "mma_sp_" : "mma_") + precision);
    add("compute", api + precision + (x.sparse ? " (2:4 sparse)" : ""), "TFLOP/s",
        tflops(independent(x.mnemonic, ctas, 4, count), double(ctas) * 4 * count * 2.0 * x.m * x.n * x.k), below_peak ? "" : x.key,
        "m" + std::to_string(x.m) + "n" + std::to_string(x.n) + "k" + std::to_string(x.k) + (x.sparse ? ", dense-equivalent FLOPs" : "") + " at " +
            std::to_string(int(ghz * 1000)) + " MHz" +
            (below_peak ? "; warp-level MMAs reach " + std::to_string(int(std::lround(warp_share * 100))) +
                              "% of the peak here (tensor.warp_mma_fraction_of_peak)"
                        : ""));
  }
  // Hopper's peak is wgmma's: a warpgroup (4 warps per CTA) issuing independent m64n256 MMAs,
  // each warp timed for its quarter.
  const Mma warpgroup[] = {
      {TensorPrecision::kFp16, "tensor_fp16", "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", 64, 256, 16},
      {TensorPrecision::kBf16, "tensor_bf16", "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 64, 256, 16},
      {TensorPrecision::kTf32, "tensor_tf32", "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", 64, 256, 8},
      {TensorPrecision::kFp8, "tensor_fp8", "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", 64, 256, 32},
      {TensorPrecision::kInt8, "tensor_int8", "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8", 64, 256, 32},
      // Sparse with A in registers: from shared memory too, its reads (A's 64 rows of 32 bytes and
      // B's 256 of 64) would take 144 clocks against its FLOPs' 138.5 (issue_tensor).
      {TensorPrecision::kFp16, "tensor_fp16_sparse", "wgmma.mma_async.sp.sync.aligned.a_regs.m64n256k32.f32.f16.f16", 64, 256, 32, true},
  };
  for (const Mma& x : warpgroup) {
    if (spec.compute_capability / 10 != 9 || !spec.tensor.supports(x.p)) continue;
    const uint32_t ctas = 4 * spec.topology.sms;
    const uint64_t count = 64;
    const std::string precision(tensor_precision_name(x.p));
    runner.label(std::string(x.sparse ? "wgmma_sp_" : "wgmma_") + precision);
    const double flops = double(ctas) * count * 2.0 * x.m * x.n * x.k;  // one MMA per warpgroup
    add("compute", std::string(x.sparse ? "wgmma.sp " : "wgmma ") + precision + (x.sparse ? " (2:4 sparse)" : ""), "TFLOP/s",
        tflops(independent(x.mnemonic, ctas, 4, count), flops), x.key,
        "m64n256k" + std::to_string(x.k) + (x.sparse ? ", A in registers, dense-equivalent FLOPs" : "") + ", one warpgroup per CTA, 4 CTAs per SM");
  }
  // Blackwell's peak is tcgen05.mma's, and its FP6 and FP4 exist only there: FP6 through
  // kind::f8f6f4 (the FP8 datapath), FP4 through the block-scaled kind::mxf4nvf4 (NVFP4), whose
  // rate is the datasheet's FP4 peak.
  const Mma whole_sm[] = {
      {TensorPrecision::kFp16, "tensor_fp16", "tcgen05.mma.cta_group::1.kind::f16.m128n256k16.f32.f16.f16", 128, 256, 16},
      {TensorPrecision::kBf16, "tensor_bf16", "tcgen05.mma.cta_group::1.kind::f16.m128n256k16.f32.bf16.bf16", 128, 256, 16},
      {TensorPrecision::kTf32, "tensor_tf32", "tcgen05.mma.cta_group::1.kind::tf32.m128n256k8.f32.tf32.tf32", 128, 256, 8},
      {TensorPrecision::kFp8, "tensor_fp8", "tcgen05.mma.cta_group::1.kind::f8f6f4.m128n256k32.f32.e4m3.e4m3", 128, 256, 32},
      {TensorPrecision::kInt8, "tensor_int8", "tcgen05.mma.cta_group::1.kind::i8.m128n256k32.s32.s8.s8", 128, 256, 32},
      {TensorPrecision::kFp6, "tensor_fp6", "tcgen05.mma.cta_group::1.kind::f8f6f4.m128n256k32.f32.e3m2.e3m2", 128, 256, 32},
      {TensorPrecision::kFp4, "tensor_fp4", "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X.m128n256k64.f32.e2m1.e2m1", 128, 256, 64},
  };
  for (const Mma& x : whole_sm) {
    if (spec.compute_capability < 100 || !spec.tensor.supports(x.p)) continue;
    const uint32_t ctas = 4 * spec.topology.sms;
    const uint64_t count = 32;
    runner.label(std::string("tcgen05_") + std::string(tensor_precision_name(x.p)));
    const std::string mnemonic(x.mnemonic), kind = mnemonic.substr(mnemonic.find("kind::"), mnemonic.find('.', mnemonic.find("kind::")) - mnemonic.find("kind::"));
    add("compute", "tcgen05 " + std::string(tensor_precision_name(x.p)), "TFLOP/s",
        tflops(tcgen05_stream(x.mnemonic, ctas, count), double(ctas) * count * 2.0 * x.m * x.n * x.k), x.key,
        kind + (x.p == TensorPrecision::kFp4 ? " (NVFP4)" : "") + " m128n256k" + std::to_string(x.k) + ", one thread per CTA issuing, 4 CTAs per SM");
  }
  return out;
}

}  // namespace warpsim
