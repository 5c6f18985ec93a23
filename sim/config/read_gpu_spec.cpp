// YAML tree → GpuSpec, section by section, with range and consistency checks.
#include <algorithm>

#include "common/error.h"
#include "config/load_config.h"
#include "config/map_reader.h"

namespace warpsim {
namespace {

constexpr int64_t kBig = 1'000'000'000;

PipeSpec read_pipe(MapReader& pipes, const std::string& key) {
  MapReader r = pipes.section(key);
  PipeSpec p;
  p.lanes = static_cast<uint32_t>(r.integer("lanes", 1, 32));
  p.latency = static_cast<uint32_t>(r.integer("latency", 1, 10000));
  r.finish();
  return p;
}

void read_tensor(MapReader& root, GpuSpec& s) {
  MapReader t = root.section("tensor");
  s.tensor.generation = static_cast<uint32_t>(t.integer("generation", 0, 10));
  s.tensor.latency = static_cast<uint32_t>(t.integer("latency", 1, 10000));
  for (const auto& [text, where] : t.string_list("mma_shapes")) {
    // mMnNkK, each number or '*'
    MmaShape shape;
    size_t n_at = text.find('n'), k_at = text.find('k');
    auto field = [&](const std::string& f, uint32_t& v) {
      if (f == "*") return true;
      if (f.empty() || f.find_first_not_of("0123456789") != std::string::npos || f.size() > 5) return false;
      v = static_cast<uint32_t>(std::stoul(f));
      return v > 0;
    };
    bool ok = text.size() > 5 && text[0] == 'm' && n_at != std::string::npos && k_at != std::string::npos && n_at < k_at &&
              field(text.substr(1, n_at - 1), shape.m) && field(text.substr(n_at + 1, k_at - n_at - 1), shape.n) &&
              field(text.substr(k_at + 1), shape.k);
    if (!ok) config_error(where, "'tensor.mma_shapes' entry '" + text + "' is not a shape; expected mMnNkK such as m16n8k16 (a number may be *)");
    s.tensor.shapes.push_back(shape);
  }
  MapReader rates = t.section("dense_flops_per_clk_per_sm");
  for (const auto& key : rates.keys()) {
    TensorPrecision p = tensor_precision_from_name(key);
    if (p == TensorPrecision::kNone) {
      config_error(rates.key_location(key), "unknown tensor precision '" + key +
                                            "'; expected fp16, bf16, tf32, fp8, fp6, fp4, int8, int4 or fp64");
    }
    s.tensor.flops_per_clk_per_sm[static_cast<int>(p)] = static_cast<uint32_t>(rates.integer(key, 1, 1 << 20));
  }
  rates.finish();
  s.tensor.structured_sparsity = t.boolean_or("structured_sparsity", false);
  s.tensor.warp_mma_fraction = t.number_or("warp_mma_fraction_of_peak", 1.0, 0.01, 1.0);
  s.tensor.warp_fp8_via_fp16 = t.boolean_or("warp_fp8_via_fp16", false);
  if (t.has("clock_mhz")) {
    MapReader clocks = t.section("clock_mhz");
    for (const auto& key : clocks.keys()) {
      TensorPrecision p = tensor_precision_from_name(key);
      if (p == TensorPrecision::kNone || !s.tensor.supports(p)) {
        config_error(clocks.key_location(key), "tensor.clock_mhz names '" + key + "', which tensor.dense_flops_per_clk_per_sm does not list");
      }
      s.tensor.clock_mhz[static_cast<int>(p)] = clocks.number(key, 1, 10000);
    }
    clocks.finish();
  }
  if (t.has("block_sum")) {
    MapReader sums = t.section("block_sum");
    for (const auto& key : sums.keys()) {
      TensorPrecision p = tensor_precision_from_name(key);
      if (p == TensorPrecision::kNone || !s.tensor.supports(p)) {
        config_error(sums.key_location(key), "tensor.block_sum names '" + key + "', which tensor.dense_flops_per_clk_per_sm does not list");
      }
      if (p == TensorPrecision::kInt8 || p == TensorPrecision::kInt4 || p == TensorPrecision::kFp64) {
        config_error(sums.key_location(key), "tensor.block_sum is for floating-point inputs of 4 to 19 bits; '" + key + "' products are added exactly or in IEEE arithmetic");
      }
      MapReader sum = sums.section(key);
      MmaSumSpec& spec = s.tensor.block_sum[static_cast<int>(p)];
      spec.terms = static_cast<uint32_t>(sum.integer("terms", 0, 64));  // 0: IEEE arithmetic (a what-if)
      // Bounded so that every aligned product keeps fewer bits than its exact 48-bit value
      // (mma_block_sum.cpp shifts right only) and an f32 result keeps at least one.
      spec.extra_bits = static_cast<int32_t>(sum.integer("extra_bits", -22, 8));
      sum.finish();
    }
    sums.finish();
  }
  t.finish();
}

void read_memory(MapReader& root, GpuSpec& s) {
  MapReader m = root.section("memory");
  MemorySpec& mem = s.memory;
  mem.line_bytes = static_cast<uint32_t>(m.integer("line_bytes", 32, 1024));
  mem.sector_bytes = static_cast<uint32_t>(m.integer("sector_bytes", 4, 1024));
  {
    MapReader r = m.section("l1");
    mem.l1.unified_bytes = static_cast<uint32_t>(r.integer("unified_kib", 1, 1 << 20) * 1024);
    for (int64_t v : r.integer_list("shared_carveouts_kib", 0, 1 << 20))
      mem.l1.shared_carveouts_bytes.push_back(static_cast<uint32_t>(v * 1024));
    if (mem.l1.shared_carveouts_bytes.empty()) config_error(r.location("shared_carveouts_kib"), "'memory.l1.shared_carveouts_kib' must list at least one size");
    std::sort(mem.l1.shared_carveouts_bytes.begin(), mem.l1.shared_carveouts_bytes.end());
    mem.l1.associativity = static_cast<uint32_t>(r.integer("associativity", 1, 1024));
    mem.l1.hit_latency = static_cast<uint32_t>(r.integer("hit_latency", 1, 10000));
    mem.l1.mshr_lines = static_cast<uint32_t>(r.integer("mshr_lines", 1, 1 << 16));
    mem.l1.lsu_queue_lines = static_cast<uint32_t>(r.integer("lsu_queue_lines", 1, 1 << 16));
    mem.l1.tag_lookups_per_clk = static_cast<uint32_t>(r.integer("tag_lookups_per_clk", 1, 64));
    if (mem.l1.shared_carveouts_bytes.back() > mem.l1.unified_bytes) {
      config_error(r.location("shared_carveouts_kib"), "largest shared carve-out exceeds memory.l1.unified_kib");
    }
    r.finish();
  }
  {
    MapReader r = m.section("shared");
    mem.shared.banks = static_cast<uint32_t>(r.integer("banks", 1, 256));
    mem.shared.bank_bytes = static_cast<uint32_t>(r.integer("bank_bytes", 1, 64));
    mem.shared.latency = static_cast<uint32_t>(r.integer("latency", 1, 10000));
    mem.shared.mio_queue_cycles = static_cast<uint32_t>(r.integer("mio_queue_cycles", 1, 1 << 16));
    r.finish();
  }
  {
    MapReader r = m.section("constant");
    mem.constant.latency = static_cast<uint32_t>(r.integer("latency", 1, 10000));
    r.finish();
  }
  {
    MapReader r = m.section("interconnect");
    mem.interconnect.latency = static_cast<uint32_t>(r.integer("latency", 1, 10000));
    mem.interconnect.bytes_per_clk_per_sm = static_cast<uint32_t>(r.integer("bytes_per_clk_per_sm", 1, 4096));
    mem.interconnect.request_bytes_per_clk_per_sm =
        r.number_or("request_bytes_per_clk_per_sm", double(mem.interconnect.bytes_per_clk_per_sm), 1, 4096);
    r.finish();
  }
  {
    MapReader r = m.section("l2");
    mem.l2.size_bytes = static_cast<uint64_t>(r.integer("size_kib", 1, kBig)) * 1024;
    mem.l2.slices = static_cast<uint32_t>(r.integer("slices", 1, 4096));
    mem.l2.partitions = static_cast<uint32_t>(r.integer("partitions", 1, 16));
    mem.l2.associativity = static_cast<uint32_t>(r.integer("associativity", 1, 1024));
    mem.l2.hit_latency = static_cast<uint32_t>(r.integer("hit_latency", 1, 10000));
    mem.l2.far_partition_extra_latency = static_cast<uint32_t>(r.integer_or("far_partition_extra_latency", 0, 0, 10000));
    mem.l2.bytes_per_clk_per_slice = static_cast<uint32_t>(r.integer("bytes_per_clk_per_slice", 1, 4096));
    mem.l2.atomic_ops_per_clk_per_slice = r.number("atomic_ops_per_clk_per_slice", 0.01, 1024);
    uint64_t per_set = uint64_t{mem.l2.slices} * mem.l2.associativity * mem.line_bytes;
    if (mem.l2.size_bytes % per_set != 0) {
      config_error(r.location("size_kib"), "memory.l2.size_kib must be a multiple of slices x associativity x line_bytes (" +
                                               std::to_string(per_set) + " bytes)");
    }
    if (mem.l2.slices % mem.l2.partitions != 0) config_error(r.location("slices"), "memory.l2.slices must divide evenly into partitions");
    r.finish();
  }
  {
    MapReader r = m.section("hbm");
    mem.hbm.type = r.string("type");
    mem.hbm.channels = static_cast<uint32_t>(r.integer("channels", 1, 4096));
    mem.hbm.bus_width_bits = static_cast<uint32_t>(r.integer("bus_width_bits", 16, 1 << 16));
    mem.hbm.data_rate_gtps = r.number("data_rate_gtps", 0.1, 100);
    mem.hbm.latency = static_cast<uint32_t>(r.integer("latency", 1, 100000));
    mem.hbm.banks_per_channel = static_cast<uint32_t>(r.integer("banks_per_channel", 1, 1024));
    mem.hbm.row_bytes = static_cast<uint32_t>(r.integer("row_bytes", 256, 1 << 16));
    mem.hbm.t_rcd_ns = r.number("t_rcd_ns", 0, 1000);
    mem.hbm.t_rp_ns = r.number("t_rp_ns", 0, 1000);
    mem.hbm.t_cl_ns = r.number("t_cl_ns", 0, 1000);
    mem.hbm.t_ras_ns = r.number("t_ras_ns", 0, 1000);
    mem.hbm.t_refi_ns = r.number("t_refi_ns", 0, 1e6);
    mem.hbm.t_rfc_ns = r.number("t_rfc_ns", 0, 1e5);
    mem.hbm.t_rrd_ns = r.number_or("t_rrd_ns", 0, 0, 1000);
    mem.hbm.t_faw_ns = r.number_or("t_faw_ns", 0, 0, 1000);
    mem.hbm.pseudo_channels = static_cast<uint32_t>(r.integer_or("pseudo_channels", 1, 1, 64));
    if (mem.hbm.banks_per_channel % mem.hbm.pseudo_channels != 0)
      config_error(r.location("pseudo_channels"), "memory.hbm.banks_per_channel must divide evenly into pseudo_channels");
    const std::string refresh = r.string("refresh");
    if (refresh != "all_bank" && refresh != "per_bank") config_error(r.location("refresh"), "memory.hbm.refresh must be all_bank or per_bank, not '" + refresh + "'");
    mem.hbm.per_bank_refresh = refresh == "per_bank";
    const std::string scheduler = r.string_or("scheduler", "fr_fcfs");
    if (scheduler != "fr_fcfs" && scheduler != "fcfs") config_error(r.location("scheduler"), "memory.hbm.scheduler must be fr_fcfs or fcfs, not '" + scheduler + "'");
    mem.hbm.fr_fcfs = scheduler == "fr_fcfs";
    mem.hbm.scheduler_queue = static_cast<uint32_t>(r.integer_or("scheduler_queue", 64, 1, 4096));
    mem.hbm.fetch_bytes = static_cast<uint32_t>(r.integer_or("fetch_bytes", 32, 32, 64));
    if (mem.hbm.fetch_bytes != 32 && mem.hbm.fetch_bytes != 64) config_error(r.location("fetch_bytes"), "memory.hbm.fetch_bytes must be 32 or 64");
    if (mem.hbm.t_refi_ns > 0 && mem.hbm.t_rfc_ns >= mem.hbm.t_refi_ns) config_error(r.location("t_rfc_ns"), "memory.hbm.t_rfc_ns must be shorter than t_refi_ns");
    if (mem.hbm.row_bytes & (mem.hbm.row_bytes - 1)) config_error(r.location("row_bytes"), "memory.hbm.row_bytes must be a power of two");
    r.finish();
  }
  auto power_of_two = [](uint32_t v) { return v && (v & (v - 1)) == 0; };
  if (!power_of_two(mem.line_bytes) || !power_of_two(mem.sector_bytes)) {
    config_error(m.location("line_bytes"), "memory.line_bytes and memory.sector_bytes must be powers of two");
  }
  if (mem.line_bytes % mem.sector_bytes != 0 || mem.line_bytes / mem.sector_bytes > 32) {
    config_error(m.location("sector_bytes"), "memory.line_bytes must be a multiple of memory.sector_bytes (at most 32 sectors)");
  }
  uint64_t l1_set_bytes = uint64_t{mem.l1.associativity} * mem.line_bytes;
  for (uint32_t carve : mem.l1.shared_carveouts_bytes) {
    uint32_t l1 = mem.l1.unified_bytes - carve;
    if (l1 % l1_set_bytes != 0) {
      config_error(m.location("l1"), "memory.l1: L1 size " + std::to_string(l1) + " bytes left by carve-out " +
                                         std::to_string(carve / 1024) + " KiB is not a multiple of associativity x line_bytes");
    }
  }
  m.finish();
}

void read_cta_scheduler(MapReader& root, GpuSpec& s) {
  if (!root.has("cta_scheduler")) return;
  MapReader r = root.section("cta_scheduler");
  s.cta_scheduler.dispatch_cycles = r.number("dispatch_cycles", 0, 100000);
  r.finish();
}

void read_clusters(MapReader& root, GpuSpec& s) {
  if (!root.has("clusters")) return;
  MapReader r = root.section("clusters");
  auto& c = s.clusters;
  c.max_portable_size = static_cast<uint32_t>(r.integer("max_portable_size", 1, 64));
  c.max_size = static_cast<uint32_t>(r.integer("max_size", 1, 64));
  c.dsmem_latency = static_cast<uint32_t>(r.integer("dsmem_latency", 1, 100000));
  c.dsmem_bytes_per_clk_per_sm = static_cast<uint32_t>(r.integer("dsmem_bytes_per_clk_per_sm", 1, 4096));
  c.barrier_latency = static_cast<uint32_t>(r.integer("barrier_latency", 1, 100000));
  // Cluster launch control is Blackwell's (PTX ISA: sm_100 and later): its latency is required
  // there and refused before.
  if (s.compute_capability >= 100 || r.has("launch_control_latency")) {
    c.launch_control_latency = static_cast<uint32_t>(r.integer("launch_control_latency", 1, 100000));
    if (s.compute_capability < 100) {
      config_error(r.key_location("launch_control_latency"), "clusters.launch_control_latency: cluster launch control needs compute capability 10.0 or later");
    }
  }
  if (c.max_size < c.max_portable_size) config_error(r.location("max_size"), "clusters.max_size must be at least clusters.max_portable_size");
  if (s.compute_capability < 90) config_error(root.key_location("clusters"), "clusters: thread-block clusters need compute capability 9.0 or later");
  r.finish();
}

DatasheetFigure read_figure(MapReader& parent, const std::string& key) {
  MapReader r = parent.section(key);
  DatasheetFigure f;
  f.value = r.number("value", 0, 1e9);
  f.source = r.string("source");
  f.explain = r.string_or("explain", "");
  r.finish();
  return f;
}

void read_datasheet(MapReader& root, GpuSpec& s) {
  if (!root.has("datasheet")) return;
  MapReader d = root.section("datasheet");
  if (d.has("fp32_tflops")) s.datasheet.fp32_tflops = read_figure(d, "fp32_tflops");
  if (d.has("fp64_tflops")) s.datasheet.fp64_tflops = read_figure(d, "fp64_tflops");
  if (d.has("hbm_tbps")) s.datasheet.hbm_tbps = read_figure(d, "hbm_tbps");
  if (d.has("tensor_tflops")) {
    MapReader t = d.section("tensor_tflops");
    for (const auto& key : t.keys()) {
      TensorPrecision p = tensor_precision_from_name(key);
      if (p == TensorPrecision::kNone) config_error(t.key_location(key), "unknown tensor precision '" + key + "'");
      if (!s.tensor.supports(p)) {
        config_error(t.key_location(key), "datasheet lists tensor precision '" + key + "' but tensor.dense_flops_per_clk_per_sm does not");
      }
      s.datasheet.tensor_tflops[p] = read_figure(t, key);
    }
    t.finish();
  }
  d.finish();
}

void check_consistency(MapReader& root, const GpuSpec& s) {
  const auto& t = s.topology;
  const auto& l = s.limits;
  if (t.tpcs < t.gpcs || t.sms < t.tpcs) config_error(root.location("topology"), "topology: expected gpcs <= tpcs <= sms");
  if (l.max_threads_per_sm != l.max_warps_per_sm * 32) {
    config_error(root.location("limits"), "limits.max_threads_per_sm must equal limits.max_warps_per_sm x 32");
  }
  if (l.max_warps_per_sm % t.sub_partitions_per_sm != 0) {
    config_error(root.location("limits"), "limits.max_warps_per_sm must divide evenly among topology.sub_partitions_per_sm");
  }
  if (l.max_shared_per_cta_bytes > l.max_shared_per_sm_bytes) {
    config_error(root.location("limits"), "limits.max_shared_per_cta_kib exceeds limits.max_shared_per_sm_kib");
  }
  if (l.max_shared_per_sm_bytes > s.memory.l1.shared_carveouts_bytes.back()) {
    config_error(root.location("limits"), "limits.max_shared_per_sm_kib exceeds the largest memory.l1.shared_carveouts_kib");
  }
}

}  // namespace

GpuSpec read_gpu_spec(const ConfigNode& node, const std::string& source_file) {
  MapReader root(node, "");
  GpuSpec s;
  s.source_file = source_file;
  s.name = root.string("name");
  s.product = root.string("product");
  s.compute_capability = static_cast<uint32_t>(root.integer("compute_capability", 10, 200));
  {
    MapReader r = root.section("clocks");
    s.clocks.boost_mhz = r.number("boost_mhz", 1, 10000);
    s.clocks.tensor_peak_mhz = r.number_or("tensor_peak_mhz", s.clocks.boost_mhz, 1, 10000);
    r.finish();
  }
  {
    MapReader r = root.section("topology");
    s.topology.gpcs = static_cast<uint32_t>(r.integer("gpcs", 1, 1024));
    s.topology.tpcs = static_cast<uint32_t>(r.integer("tpcs", 1, 4096));
    s.topology.sms = static_cast<uint32_t>(r.integer("sms", 1, 4096));
    s.topology.sub_partitions_per_sm = static_cast<uint32_t>(r.integer("sub_partitions_per_sm", 1, 16));
    r.finish();
  }
  {
    MapReader r = root.section("limits");
    auto u = [&](const char* k, int64_t lo, int64_t hi) { return static_cast<uint32_t>(r.integer(k, lo, hi)); };
    s.limits.max_warps_per_sm = u("max_warps_per_sm", 1, 1024);
    s.limits.max_threads_per_sm = u("max_threads_per_sm", 32, 32768);
    s.limits.max_ctas_per_sm = u("max_ctas_per_sm", 1, 1024);
    s.limits.max_threads_per_cta = u("max_threads_per_cta", 32, 32768);
    s.limits.registers_per_sm = u("registers_per_sm", 1024, 1 << 24);
    s.limits.max_registers_per_thread = u("max_registers_per_thread", 1, 1024);
    s.limits.register_allocation_unit = u("register_allocation_unit", 1, 4096);
    s.limits.max_shared_per_sm_bytes = u("max_shared_per_sm_kib", 0, 1 << 20) * 1024;
    s.limits.max_shared_per_cta_bytes = u("max_shared_per_cta_kib", 0, 1 << 20) * 1024;
    s.limits.shared_allocation_unit_bytes = u("shared_allocation_unit_bytes", 1, 1 << 16);
    s.limits.reserved_shared_per_cta_bytes = u("reserved_shared_per_cta_bytes", 0, 1 << 16);
    r.finish();
  }
  {
    MapReader r = root.section("scheduler");
    std::string policy = r.choice("policy", {"gto", "lrr"}, "gto");
    s.scheduler = policy == "lrr" ? SchedulerPolicy::kLrr : SchedulerPolicy::kGto;
    r.finish();
  }
  {
    MapReader r = root.section("pipes");
    for (Pipe p : {Pipe::kFma, Pipe::kAlu, Pipe::kFp16, Pipe::kFp64, Pipe::kXu, Pipe::kBranch}) {
      s.pipes[static_cast<int>(p)] = read_pipe(r, std::string(pipe_name(p)));
    }
    r.finish();
  }
  read_tensor(root, s);
  read_memory(root, s);
  read_clusters(root, s);
  read_cta_scheduler(root, s);
  read_datasheet(root, s);
  check_consistency(root, s);
  root.finish();
  return s;
}

}  // namespace warpsim
