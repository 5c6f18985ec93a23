#pragma once
// A launch file (YAML, docs/launch-format.md): which PTX kernel to run, its grid and block, and
// its arguments, with buffers created and initialised in emulated global memory. PtxWorkload
// runs it: each CTA is emulated when the CTA scheduler launches it, so the instruction stream
// is produced lazily, like a trace's.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/kernel_source.h"
#include "frontend/ptx/cta_emulator.h"
#include "config/map_reader.h"
#include "frontend/ptx/ptx_module.h"

namespace warpsim::sass {
struct SassListing;
}

namespace warpsim::ptx {

struct BufferArg {
  std::string name, elem;  // elem: f32 f64 s32 u32 s64 u64 f16 s8 u8 ...
  uint64_t count = 0;
  uint32_t elem_bytes = 4;
};

// A reference the output must match: |x - ref| <= atol + rtol * |ref| element by element.
struct Expectation {
  std::string buffer, file;
  std::vector<uint8_t> values;  // {values: [...]} given in the launch file, when there is no file
  double rtol = 0, atol = 0;
};

struct CheckResult {
  bool passed = true;
  std::vector<std::string> lines;  // one per buffer, then the first mismatches
  double largest_error = 0;        // the largest |output - reference| over the checked buffers
};

// Which instruction set a launch file's kernels run as: the GPU's SASS (the listing committed
// beside the PTX, sass/<name>.sm_80.sass or .sm_90a.sass), the PTX, or SASS where it exists and
// the emulator runs every instruction of it, PTX otherwise (saying why, in notes()).
enum class IsaChoice { kPtx, kSass, kAuto };

struct LaunchSpec {
  std::string file;          // the launch file
  std::string ptx_path;      // resolved, after {sm} substitution (for a .cu, the PTX nvcc made of it)
  std::string ptx_named;     // as messages name it: the resolved path, or the .cu it was compiled from
  std::string kernel;
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  uint32_t registers_per_thread = 32;
  std::vector<std::string> dump;
  std::vector<Expectation> expect;
};

// How messages name a kernel parameter: nvcc calls the i-th `<entry>_param_<i>`, which reads
// as "parameter 1 (_Z6axpy_s6Params_param_1)"; other names are given as they are.
std::string param_label(const Variable& param);

class PtxWorkload : public Workload {
 public:
  // Reads the launch file, parses and lowers the PTX for compute capability `cc`, and creates
  // and initialises the buffers. Throws InputError.
  PtxWorkload(const std::string& launch_file, uint32_t compute_capability, IsaChoice isa = IsaChoice::kPtx);
  // The same for a GPU: its compute capability and its tensor cores' arithmetic, as `warpsim
  // run` simulates it.
  PtxWorkload(const std::string& launch_file, const GpuSpec& gpu, IsaChoice isa = IsaChoice::kPtx);
  ~PtxWorkload() override;
  std::unique_ptr<KernelSource> next_kernel() override;
  bool reads_ahead() const override { return true; }  // each launch is its own

  const LaunchSpec& spec() const { return spec_; }
  DeviceMemory& memory() { return memory_; }
  const std::vector<BufferArg>& buffers() const { return buffers_; }
  // Writes each buffer named in `dump:` as raw little-endian <name>.bin into `dir`.
  void dump(const std::string& dir) const;
  // A register's name in the kernel next_kernel() returned last.
  const std::string& register_name(RegId id) const { return register_name(*current_, id); }
  // Register names in that kernel, still right once later kernels were read (streams).
  std::function<const std::string&(RegId)> register_names() const {
    return [this, launch = current_](RegId id) -> const std::string& { return register_name(*launch, id); };
  }
  // "sass" or "ptx" for each launch, in order, and where SASS was wanted and PTX runs, why (one
  // line each, for the user).
  std::vector<std::string> isas() const;
  const std::vector<std::string>& notes() const { return notes_; }
  // What the kernel checkers found while the kernel ran.
  const Findings& findings() const { return findings_; }
  // What the kernels printed with printf, in the order the emulator ran the calls.
  const std::string& device_output() const { return device_output_.text; }
  void set_checks(bool enabled) { findings_.enabled = enabled; }
  // Overrides the launch file's reconvergence: model.
  void set_independent_thread_scheduling(bool on);
  // Compares the buffers named in `expect:` with their reference files (after the run).
  CheckResult check() const;

 private:
  struct Launch {
    std::string kernel;  // as the launch file names it (kernel_names.h)
    std::string entry;   // the PTX entry that is: the same, or the mangled name of a C++ kernel
    Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0, registers_per_thread = 32;
    bool cooperative = false;  // cudaLaunchCooperativeKernel: every CTA resident at once, grid.sync() allowed
    std::string stream;        // the CUDA stream it is issued to (KernelInfo::stream); empty: the default stream
    std::vector<std::string> waits_for;  // KernelInfo::waits_for
    Program program;
    LaunchContext context;
    bool sass = false;                // `program` was lowered from the kernel's SASS listing
    uint64_t declared_shared_bytes = 0;  // the kernel's static shared memory as its PTX declares it
    std::string file;                 // what the program's line numbers refer to
    std::map<std::string, OpInfo> run_time_ops;  // LaunchContext::run_time_ops
  };
  const std::string& register_name(const Launch& launch, RegId id) const;
  void add_buffer(MapReader& b, const std::string& name, const std::filesystem::path& dir);
  // launch_args.cpp: scalars, buffers' addresses and structs passed by value.
  void write_arg(MapReader& a, const Variable& param, uint8_t* slot, const std::filesystem::path& dir);
  uint32_t lay_out_struct(const ConfigNode& fields, std::vector<uint8_t>& bytes, const std::filesystem::path& dir);
  uint64_t buffer_address(MapReader& a, const std::filesystem::path& dir);
  static uint32_t scalar_bytes(MapReader& a);
  static void store_scalar(MapReader& a, uint8_t* slot);
  void add_tensor_map(MapReader& arg, const Variable& param, uint8_t* slot);
  // texture_args.cpp: a texture or surface object's descriptor, kept in global memory; the
  // parameter gets its handle.
  void add_texture(MapReader& arg, const Variable& param, uint8_t* slot, bool surface);
  void add_launch(MapReader& r, const std::filesystem::path& dir);
  void set_cluster(Launch& l, const Function& f, MapReader& r, bool given);
  void check_launch_bounds(Launch& l, const Function& f, MapReader& r, bool registers_given);
  // launch_sass.cpp: replaces the launch's program with its SASS when isa_ asks for it and the
  // listing exists (and, under kAuto, lowers without an unsupported instruction).
  void use_sass(Launch& l, MapReader& r);

  LaunchSpec spec_;
  Module module_;
  std::map<std::string, uint64_t> global_addresses_;  // module __device__ variables
  bool globals_placed_ = false;
  DeviceMemory memory_;
  std::unique_ptr<DeviceHeap> heap_;  // in-kernel malloc/free; made when the module declares either
  uint64_t malloc_heap_bytes_ = 8 << 20;  // cudaLimitMallocHeapSize (CUDA's default: 8 MB)
  std::vector<std::unique_ptr<Launch>> launches_;
  size_t next_ = 0;
  const Launch* current_ = nullptr;
  // The GPU's tensor-core arithmetic (TensorSpec::block_sum); without a GpuSpec, IEEE arithmetic.
  void set_mma_sums(const MmaSumSpecs& sums, bool warp_fp8_via_fp16);

  bool independent_ = false;
  IsaChoice isa_ = IsaChoice::kPtx;
  uint32_t compute_capability_ = 0;
  std::string sass_path_;  // the launch file's `sass:` (resolved), or empty: next to the PTX
  // The launch file's `isa: ptx`: `--isa auto` runs the PTX, because the SASS is known to compute
  // something else than the PTX ISA says (the file's comment says what and how it was measured).
  bool pins_ptx_ = false;
  std::vector<std::string> notes_;
  std::map<std::string, std::shared_ptr<const sass::SassListing>> listings_;  // by path: read once per launch file
  MmaSumSpecs mma_sums_{};  // set_mma_sums
  bool warp_fp8_via_fp16_ = false;
  uint64_t max_warp_instructions_ = 100'000'000;
  std::vector<BufferArg> buffers_;
  struct ConstantInit {
    std::string name;
    SourceLocation where;
    std::vector<uint8_t> bytes;
  };
  std::vector<ConstantInit> constants_;  // `constants:`, applied to every launch's constant bank
  Findings findings_;
  DeviceOutput device_output_;
  uint32_t shared_allocation_unit_ = 128;
};

}  // namespace warpsim::ptx
