#pragma once
// The typed, validated description of one GPU. Built once from YAML by load_gpu_spec();
// components receive the parts they need and never see YAML.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "isa/op_info.h"

namespace warpsim {

struct ClockSpec {
  double boost_mhz = 0;        // the core clock the simulator runs at; cycles → time
  double tensor_peak_mhz = 0;  // clock NVIDIA's tensor peaks assume (defaults to boost)
};

struct TopologySpec {
  uint32_t gpcs = 0, tpcs = 0, sms = 0, sub_partitions_per_sm = 0;
  // SMs are numbered GPC by GPC; when they do not divide evenly the GPCs differ by one SM (as
  // H100's 66 TPCs over 8 GPCs do). GPC g holds SMs [first_sm(g), first_sm(g + 1)).
  uint32_t first_sm(uint32_t gpc) const { return static_cast<uint32_t>(uint64_t{gpc} * sms / gpcs); }
  uint32_t sms_in_gpc(uint32_t gpc) const { return first_sm(gpc + 1) - first_sm(gpc); }
};

struct LimitSpec {
  uint32_t max_warps_per_sm = 0;
  uint32_t max_threads_per_sm = 0;
  uint32_t max_ctas_per_sm = 0;
  uint32_t max_threads_per_cta = 0;
  uint32_t registers_per_sm = 0;
  uint32_t max_registers_per_thread = 0;
  uint32_t register_allocation_unit = 0;   // registers, per warp
  uint32_t max_shared_per_sm_bytes = 0;
  uint32_t max_shared_per_cta_bytes = 0;
  uint32_t shared_allocation_unit_bytes = 0;
  uint32_t reserved_shared_per_cta_bytes = 0;  // CUDA reserves 1 KiB per CTA from CC 8.0
};

enum class SchedulerPolicy : uint8_t { kGto, kLrr };

struct PipeSpec {
  uint32_t lanes = 0;    // results per clock per sub-partition; issue interval = ceil(32/lanes)
  uint32_t latency = 0;  // cycles from issue until a dependent instruction may issue
  uint32_t issue_interval() const { return (32 + lanes - 1) / lanes; }
};

// An MMA shape the tensor cores execute; 0 in a field matches any value ("m64n*k16").
struct MmaShape {
  uint32_t m = 0, n = 0, k = 0;
  bool matches(uint32_t mm, uint32_t nn, uint32_t kk) const {
    return (m == 0 || m == mm) && (n == 0 || n == nn) && (k == 0 || k == kk);
  }
};

// How the tensor cores add products for one input precision (Khattak & Mikaitis, "Accurate
// Models of NVIDIA Tensor Cores", arXiv 2512.07004, 2025; frontend/ptx/mma_block_sum.h does the
// arithmetic). terms = 0 (not given): each product is added with one float rounding in k order.
struct MmaSumSpec {
  uint32_t terms = 0;      // products summed with the accumulator before one rounding ("block FMA" size)
  int32_t extra_bits = 0;  // bits kept below an f32 significand's 23 when terms are aligned (negative: fewer)
};

struct TensorSpec {
  uint32_t generation = 0;
  std::vector<MmaShape> shapes;  // mma / wmma / wgmma / tcgen05 shapes of this generation
  uint32_t latency = 0;  // fixed pipeline part; an MMA's result is ready after latency + its issue interval
  // Dense FLOP (or integer OP) per clock per SM for each supported input precision; 0 = unsupported.
  std::array<uint32_t, kNumTensorPrecisions> flops_per_clk_per_sm{};
  // The clock a precision's MMAs run at where it differs from clocks.tensor_peak_mhz (0: that
  // one): NVIDIA's FP64 tensor peaks assume the boost clock, its FP16/FP8 peaks a lower one.
  std::array<double, kNumTensorPrecisions> clock_mhz{};
  // 2:4 structured-sparse MMAs (Ampere on): a sparse MMA performs half its shape's products at
  // the dense rate (OpInfo::sparse). false: the generation has no sparse tensor cores (Volta).
  bool structured_sparsity = false;
  // The share of the dense rate that warp-level MMAs (mma.sync, mma.sp, wmma) reach; 1 where
  // they are the path to peak (Volta, Ampere). On Hopper only the warpgroup wgmma reaches it.
  double warp_mma_fraction = 1.0;
  std::array<MmaSumSpec, kNumTensorPrecisions> block_sum{};  // by input precision
  // Warp-level FP8 MMAs run on the FP16 path: each k32 mma.sync is its inputs converted to f16
  // (exactly) and two k16 FP16 MMAs, so it adds products as fp16's block_sum says, not fp8's
  // (Hopper: ptxas emits F2FP.F16.E4M3 + two HMMA.16816.F32 for sm_90a). wgmma keeps fp8's.
  bool warp_fp8_via_fp16 = false;
  bool supports(TensorPrecision p) const { return flops_per_clk_per_sm[static_cast<int>(p)] > 0; }
  bool supports_shape(uint32_t m, uint32_t n, uint32_t k) const {
    for (const auto& s : shapes)
      if (s.matches(m, n, k)) return true;
    return false;
  }
};

struct L1Spec {
  uint32_t unified_bytes = 0;  // L1 + shared memory per SM
  std::vector<uint32_t> shared_carveouts_bytes;  // choices for the shared-memory part
  uint32_t associativity = 0;
  uint32_t hit_latency = 0;
  uint32_t mshr_lines = 0;          // distinct 128-byte lines with misses in flight
  uint32_t lsu_queue_lines = 0;     // lines the LSU may have queued before lg_throttle
  uint32_t tag_lookups_per_clk = 0; // 128-byte lines looked up per clock ("wavefronts")
};

struct SharedMemSpec {
  uint32_t banks = 0, bank_bytes = 0, latency = 0;
  uint32_t mio_queue_cycles = 0;  // MIO backlog (cycles of work) before mio_throttle
};

struct ConstSpec {
  uint32_t latency = 0;  // constant/param cache hit
};

struct InterconnectSpec {
  uint32_t latency = 0;               // one way, SM ↔ L2 slice
  uint32_t bytes_per_clk_per_sm = 0;  // each SM's port, L2 to SM (load and atomic data)
  // Each SM's port, SM to L2: store and atomic data, and read requests' headers. The same as
  // bytes_per_clk_per_sm unless the config says otherwise.
  double request_bytes_per_clk_per_sm = 0;
};

struct L2Spec {
  uint64_t size_bytes = 0;
  uint32_t slices = 0, partitions = 0, associativity = 0;
  uint32_t hit_latency = 0;            // slice lookup + data, added to the L1 and NoC path
  uint32_t far_partition_extra_latency = 0;  // added to a read another partition's copy serves
  uint32_t bytes_per_clk_per_slice = 0;
  double atomic_ops_per_clk_per_slice = 0;  // sector read-modify-writes each slice's atomic unit performs per clock
};

struct HbmSpec {
  std::string type;
  uint32_t channels = 0;
  uint32_t bus_width_bits = 0;
  double data_rate_gtps = 0;  // per pin
  uint32_t latency = 0;       // controller, PHY and return path: cycles added to an L2 miss beyond the L2 path and the bank timing
  // Banks and row buffers (mem/dram_channel.h); timings in nanoseconds.
  uint32_t banks_per_channel = 0;
  uint32_t row_bytes = 0;     // row (page) per bank
  double t_rcd_ns = 0, t_rp_ns = 0, t_cl_ns = 0, t_ras_ns = 0;
  double t_refi_ns = 0, t_rfc_ns = 0;
  bool per_bank_refresh = false;  // REFpb (HBM3): one bank at a time; else all banks together
  // The activation window: activates in one pseudo-channel at least t_rrd_ns apart, at most four
  // per t_faw_ns (0: not modelled). A channel's banks split evenly into pseudo_channels.
  double t_rrd_ns = 0, t_faw_ns = 0;
  uint32_t pseudo_channels = 1;
  // The controller (mem/dram_controller.h): FR-FCFS lets a request to a bank's open row go ahead
  // of older ones to other rows; only the scheduler_queue oldest requests of a channel are looked at.
  bool fr_fcfs = true;
  uint32_t scheduler_queue = 64;
  // The smallest read HBM serves an L2 miss: 32 (a sector) or 64 (the aligned pair of sectors, both
  // filled into L2).
  uint32_t fetch_bytes = 32;
  double peak_bytes_per_second() const { return bus_width_bits / 8.0 * data_rate_gtps * 1e9; }
};

struct MemorySpec {
  uint32_t line_bytes = 0, sector_bytes = 0;
  L1Spec l1;
  SharedMemSpec shared;
  ConstSpec constant;
  InterconnectSpec interconnect;
  L2Spec l2;
  HbmSpec hbm;
};

// Thread-block clusters and distributed shared memory (Hopper and later). A GPU without them
// has max_size 0, and a kernel launched with clusters on it is refused.
struct ClusterSpec {
  uint32_t max_portable_size = 0;  // CTAs per cluster every GPU of the generation runs (8)
  uint32_t max_size = 0;           // with the non-portable attribute (16 on Hopper)
  uint32_t dsmem_latency = 0;      // cycles: a load from another CTA's shared memory, request to data
  uint32_t dsmem_bytes_per_clk_per_sm = 0;  // SM-to-SM network, each SM's port (one direction)
  uint32_t barrier_latency = 0;    // cycles from the last arrival to the waiting warps' release
  // Cluster launch control (Blackwell, compute capability 10.0+): cycles from a try_cancel's issue
  // to its answer landing in shared memory (0 on GPUs without it).
  uint32_t launch_control_latency = 0;
  bool supported() const { return max_size > 0; }
};

// The CTA scheduler: how fast it hands CTAs to SMs, GPU-wide. 0: a grid's first wave lands at
// once (and each replacement as a CTA retires).
struct CtaSchedulerSpec {
  double dispatch_cycles = 0;  // SM cycles between two CTAs it hands out
};

// A published figure the derived peaks are checked against (warpsim arch show).
struct DatasheetFigure {
  double value = 0;
  std::string source;
  std::string explain;  // why the derived value may differ by more than 2%
};

struct DatasheetSpec {
  std::optional<DatasheetFigure> fp32_tflops, fp64_tflops, hbm_tbps;
  std::map<TensorPrecision, DatasheetFigure> tensor_tflops;
};

struct GpuSpec {
  std::string name;          // short name ("a100")
  std::string product;       // "NVIDIA A100-SXM4-80GB"
  uint32_t compute_capability = 0;
  std::string source_file;
  ClockSpec clocks;
  TopologySpec topology;
  LimitSpec limits;
  SchedulerPolicy scheduler = SchedulerPolicy::kGto;
  std::array<PipeSpec, kNumPipes> pipes{};  // indexed by Pipe; kTensor/kLsu/kMio/kNone unused
  TensorSpec tensor;
  MemorySpec memory;
  ClusterSpec clusters;
  CtaSchedulerSpec cta_scheduler;
  DatasheetSpec datasheet;

  const PipeSpec& pipe(Pipe p) const { return pipes[static_cast<int>(p)]; }
  double tensor_clock_mhz(TensorPrecision p) const {
    const double c = tensor.clock_mhz[static_cast<int>(p)];
    return c > 0 ? c : clocks.tensor_peak_mhz;
  }
  double cycles_per_second() const { return clocks.boost_mhz * 1e6; }
};

}  // namespace warpsim
