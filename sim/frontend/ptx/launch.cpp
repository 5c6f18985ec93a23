#include "frontend/ptx/launch.h"
#include "frontend/ptx/compiled_cuda.h"
#include "frontend/ptx/kernel_names.h"

#include "common/format.h"

#include "frontend/ptx/initial_values.h"
#include "frontend/ptx/tensor_map.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <cstdio>
#include <cstdlib>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/half.h"
#include "config/config_node.h"
#include "config/map_reader.h"
#include "frontend/ptx/value_bits.h"
#include "frontend/ptx/tensor_map.h"

namespace warpsim::ptx {
namespace fs = std::filesystem;

namespace {

Dim3 dim3_of(MapReader& r, const std::string& key) {
  auto v = r.integer_list(key, 1, 0x7fffffff);
  if (v.empty() || v.size() > 3) config_error(r.location(key), "'" + key + "' must list 1 to 3 sizes");
  Dim3 d;
  d.x = static_cast<uint32_t>(v[0]);
  if (v.size() > 1) d.y = static_cast<uint32_t>(v[1]);
  if (v.size() > 2) d.z = static_cast<uint32_t>(v[2]);
  return d;
}

}  // namespace

// Creates a buffer from {name, elem, count, init} (inline in args, or under buffers:).
void PtxWorkload::add_buffer(MapReader& b, const std::string& name, const fs::path& dir) {
  BufferArg buf;
  buf.name = name;
  buf.elem = b.string("elem");
  buf.elem_bytes = elem_size(buf.elem);
  if (!buf.elem_bytes) config_error(b.location("elem"), "unknown element type '" + buf.elem + "'");
  if (memory_.find(name)) config_error(b.where(), "buffer '" + name + "' is defined twice");
  buf.count = static_cast<uint64_t>(b.integer("count", 1, 1ll << 32));
  bool undefined = false;
  std::vector<uint8_t> bytes = initial_bytes(b, buf.elem, buf.count, dir, &undefined);
  b.finish();
  memory_.allocate(buf.name, std::move(bytes), undefined);
  buffers_.push_back(buf);
}

// One kernel launch: kernel, grid, block, dynamic_shared_bytes, registers_per_thread, args.
void PtxWorkload::add_launch(MapReader& r, const fs::path& dir) {
  auto l = std::make_unique<Launch>();
  l->kernel = r.string("kernel");
  l->grid = dim3_of(r, "grid");
  l->block = dim3_of(r, "block");
  // CUDA's limit on every GPU warpsim models (Programming Guide, compute capabilities table).
  if (l->block.count() > 1024) config_error(r.location("block"), "a block has at most 1024 threads, this one " + std::to_string(l->block.count()));
  const bool cluster_given = r.has("cluster");
  if (cluster_given) l->context.cluster = dim3_of(r, "cluster");
  l->dynamic_shared_bytes = static_cast<uint32_t>(r.integer_or("dynamic_shared_bytes", 0, 0, 1 << 20));
  l->registers_per_thread = static_cast<uint32_t>(r.integer_or("registers_per_thread", 32, 1, 255));
  l->cooperative = r.boolean_or("cooperative", false);
  // Streams are named by one word, as a trace's .stream line writes them.
  auto stream_name = [](const std::string& name, const SourceLocation& where) {
    if (name.empty() || name.find_first_of(" \t\n#") != std::string::npos) {
      config_error(where, "a stream is named by one word (no spaces or '#'), got '" + name + "'");
    }
    return name;
  };
  if (r.has("stream")) l->stream = stream_name(r.string("stream"), r.location("stream"));
  if (r.has("wait_for")) {
    if (l->stream.empty()) {
      config_error(r.location("wait_for"), "wait_for needs a stream: a launch in the default stream waits for every launch before it");
    }
    for (const auto& [name, where] : r.string_list("wait_for")) l->waits_for.push_back(stream_name(name, where));
  }
  const KernelMatch match = find_kernel(module_, l->kernel);
  if (match.candidates.size() > 1) {
    std::string names;
    for (const Function* fn : match.candidates) names += "\n  " + describe_kernel(*fn);
    config_error(r.location("kernel"), "'" + l->kernel + "' names " + std::to_string(match.candidates.size()) + " kernels in " + spec_.ptx_named +
                                           "; give one of these names, or its signature:" + names);
  }
  const Function* f = match.kernel;
  if (!f) {
    std::string names;
    for (const auto& fn : module_.functions)
      if (fn.is_entry) names += (names.empty() ? "" : ", ") + describe_kernel(fn);
    config_error(r.location("kernel"), "no kernel '" + l->kernel + "' in " + spec_.ptx_named + "; its kernels are: " + names);
  }
  l->entry = f->name;
  if (!heap_ && (module_.find("malloc") || module_.find("free"))) {
    // The heap exists once per launch file, so blocks outlive the kernel that allocated them.
    // Undefined: 0xff until written (initial_values.h), and reads of bytes nothing wrote are found.
    const uint64_t base = memory_.allocate("<device heap>", std::vector<uint8_t>(malloc_heap_bytes_, kUndefinedByte), true);
    heap_ = std::make_unique<DeviceHeap>(base, malloc_heap_bytes_);
  }
  if (!globals_placed_) {
    // __device__ variables live in global memory for the whole launch file, after the buffers
    // declared so far (so a module without any leaves every address as it was).
    // Placed first and filled after, as an initializer may hold another variable's address.
    for (const auto& v : module_.globals)
      if (v.space == ".global") global_addresses_[v.name] = memory_.allocate("__device__ " + v.name, std::vector<uint8_t>(v.size_bytes(), 0));
    for (const auto& v : module_.globals) {
      if (v.space != ".global" || v.initializer.empty()) continue;
      const std::vector<uint8_t> image = variable_image(v, module_, global_addresses_);
      std::copy(image.begin(), image.end(), memory_.at(global_addresses_.at(v.name), image.size()));
    }
    globals_placed_ = true;
  }
  l->program = lower(module_, l->entry, global_addresses_);
  set_cluster(*l, *f, r, cluster_given);
  check_launch_bounds(*l, *f, r, r.has("registers_per_thread"));
  for (const auto& c : constants_) {
    auto it = l->program.constant_symbols.find(c.name);
    if (it == l->program.constant_symbols.end()) {
      std::string names;
      for (const auto& [n, _] : l->program.constant_symbols) names += (names.empty() ? "" : ", ") + n;
      config_error(c.where, "no __constant__ variable '" + c.name + "' in " + spec_.ptx_named + "; its .const variables are: " +
                                (names.empty() ? "none" : names));
    }
    if (c.bytes.size() > it->second.second) {
      config_error(c.where, "'" + c.name + "' has " + std::to_string(it->second.second) + " bytes; the launch file gives " +
                                std::to_string(c.bytes.size()));
    }
    std::copy(c.bytes.begin(), c.bytes.end(), l->program.constant_bank.begin() + static_cast<ptrdiff_t>(it->second.first));
  }
  const Program& program = l->program;
  // Arguments, in the kernel's parameter order.
  const ConfigNode& args = r.raw("args");
  if (args.kind != ConfigNode::Kind::kSequence) config_error(args.where, "'args' must be a list");
  if (args.items.size() != program.param_vars.size()) {
    config_error(args.where, "kernel '" + l->kernel + "' takes " + std::to_string(program.param_vars.size()) +
                                 " parameters; 'args' lists " + std::to_string(args.items.size()));
  }
  l->context.params.assign(program.param_bytes, 0);
  for (size_t i = 0; i < args.items.size(); ++i) {
    MapReader a(args.items[i], "args[" + std::to_string(i) + "]");
    const Variable& param = program.param_vars[i];
    uint8_t* slot = l->context.params.data() + program.params.at(param.name);
    if (a.has("tensor_map") || a.has("texture") || a.has("surface")) {
      if (a.has("tensor_map")) add_tensor_map(a, param, slot);
      else add_texture(a, param, slot, a.has("surface"));
      a.finish();
      continue;
    }
    write_arg(a, param, slot, dir);
    a.finish();
  }
  l->context.memory = &memory_;
  l->context.grid = l->grid;
  l->context.block = l->block;
  l->context.dynamic_shared_bytes = l->dynamic_shared_bytes;
  l->context.shared_allocation_unit = shared_allocation_unit_;
  l->context.device_output = &device_output_;
  l->context.file = l->file = spec_.ptx_path;
  l->declared_shared_bytes = l->program.static_shared_bytes;
  l->context.findings = &findings_;
  l->context.independent_thread_scheduling = independent_;
  l->context.mma_sums = mma_sums_;
  l->context.warp_fp8_via_fp16 = warp_fp8_via_fp16_;
  l->context.max_warp_instructions = max_warp_instructions_;
  l->context.run_time_ops = &l->run_time_ops;
  l->context.grid_id = launches_.size() + 1;  // grids numbered in launch order, from 1
  l->context.heap = heap_.get();
  // A cooperative launch gets the driver's grid-barrier workspace (cooperative groups keep an
  // arrival counter in it), zeroed, one per launch.
  if (l->cooperative) l->context.grid_workspace = memory_.allocate("<grid barrier of launch " + std::to_string(l->context.grid_id) + ">", std::vector<uint8_t>(16, 0));
  if (isa_ == IsaChoice::kAuto && pins_ptx_) {
    notes_.push_back(l->kernel + ": running the PTX: the launch file says `isa: ptx`");
  } else if (isa_ != IsaChoice::kPtx) {
    use_sass(*l, r);
  }
  launches_.push_back(std::move(l));
  launches_.back()->context.program = &launches_.back()->program;
}

// {tensor_map: {buffer: NAME, elem: f32, dims: [inner, ...], box: [inner, ...], strides: [bytes, ...],
// swizzle: 128B}}: a tensor map over a buffer, in warpsim's encoding (tensor_map.h), with the
// constraints cuTensorMapEncodeTiled documents: rank 1 to 5, 16-byte aligned address and strides,
// boxes of at most 256 elements per dimension whose inner extent is a multiple of 16 bytes and,
// when swizzled, no wider than the swizzle span.
void PtxWorkload::add_tensor_map(MapReader& arg, const Variable& param, uint8_t* slot) {
  MapReader m(arg.raw("tensor_map"), "tensor_map");
  const std::string buffer = m.string("buffer");
  const DeviceMemory::Buffer* b = memory_.find(buffer);
  if (!b) config_error(m.location("buffer"), "no buffer '" + buffer + "' (define it under 'buffers:' or in an earlier argument)");
  const std::string elem = m.string("elem");
  if (!elem_size(elem)) config_error(m.location("elem"), "unknown element type '" + elem + "'");
  TensorMap t;
  t.address = b->base;
  t.elem_bytes = elem_size(elem);
  t.elem_kind = elem == "bf16" ? 'h' : elem[0] == 'f' ? 'f' : elem[0] == 's' ? 's' : 'u';
  const auto dims = m.integer_list("dims", 1, 0xffffffffll), box = m.integer_list("box", 1, 256);
  if (dims.empty() || dims.size() > TensorMap::kMaxRank) {
    config_error(m.location("dims"), "tensor maps have rank 1 to 5; got " + std::to_string(dims.size()) + " dimensions");
  }
  if (box.size() != dims.size()) config_error(m.location("box"), "'box' needs one extent per dimension (" + std::to_string(dims.size()) + ")");
  t.rank = static_cast<uint32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) t.dims[i] = static_cast<uint32_t>(dims[i]), t.box[i] = static_cast<uint32_t>(box[i]);
  if (t.box[0] * t.elem_bytes % 16 != 0) config_error(m.location("box"), "the box's inner extent must be a multiple of 16 bytes");
  const std::string swizzle = m.choice("swizzle", {"none", "32B", "64B", "128B"}, "none");
  t.swizzle_bytes = swizzle == "none" ? 0 : static_cast<uint32_t>(std::stoul(swizzle));
  if (t.swizzle_bytes && t.box[0] * t.elem_bytes > t.swizzle_bytes) {
    config_error(m.location("swizzle"), "a " + swizzle + " swizzle needs a box whose inner extent is at most " + std::to_string(t.swizzle_bytes) +
                                            " bytes; this one has " + std::to_string(t.box[0] * t.elem_bytes));
  }
  std::vector<int64_t> strides;
  if (m.has("strides")) strides = m.integer_list("strides", 16, int64_t{1} << 40);
  if (strides.empty()) {  // packed: each dimension follows the previous one
    uint64_t s = uint64_t{t.dims[0]} * t.elem_bytes;
    for (uint32_t d = 1; d < t.rank; ++d) strides.push_back(static_cast<int64_t>(s)), s *= t.dims[d];
  }
  if (strides.size() != t.rank - 1) {
    config_error(m.location("strides"), "'strides' gives the bytes between consecutive indices of dimensions 1 and up: " + std::to_string(t.rank - 1) + " value(s)");
  }
  uint64_t extent = uint64_t{t.dims[0]} * t.elem_bytes;
  for (size_t i = 0; i < strides.size(); ++i) {
    if (strides[i] % 16 != 0) config_error(m.location("strides"), "tensor map strides must be multiples of 16 bytes");
    if (strides[i] >= (int64_t{1} << 36)) config_error(m.location("strides"), "warpsim models tensor map strides below 64 GiB");
    t.strides[i] = static_cast<uint64_t>(strides[i]);
    extent += t.strides[i] * (t.dims[i + 1] - 1);
  }
  if (extent > b->bytes.size()) {
    config_error(m.location("dims"), "the tensor map spans " + std::to_string(extent) + " bytes; buffer '" + buffer + "' has " +
                                         std::to_string(b->bytes.size()));
  }
  if (param.size_bytes() < 128) config_error(m.location("buffer"), param_label(param) + " has " + std::to_string(param.size_bytes()) + " bytes; a tensor map takes 128");
  m.finish();
  std::memcpy(slot, &t, sizeof t);
}

PtxWorkload::PtxWorkload(const std::string& launch_file, const GpuSpec& gpu, IsaChoice isa) : PtxWorkload(launch_file, gpu.compute_capability, isa) {
  set_mma_sums(gpu.tensor.block_sum, gpu.tensor.warp_fp8_via_fp16);
}

PtxWorkload::PtxWorkload(const std::string& launch_file, uint32_t cc, IsaChoice isa) : isa_(isa), compute_capability_(cc) {
  spec_.file = launch_file;
  shared_allocation_unit_ = cc < 80 ? 256 : 128;  // the PTX ISA's %total_smem_size table: 256 B to sm_7x, 128 B from sm_8x
  ConfigNode root = load_yaml_file(launch_file);
  MapReader r(root, "");
  fs::path dir = fs::path(launch_file).parent_path();
  if (r.has("requires")) {
    // A kernel built on sm_80+ features (mma.sync.m16n8k16, cp.async) compiles to an empty body
    // for older targets; refusing it says so instead of reporting a wrong result.
    double need = r.number("requires", 1.0, 20.0);
    auto need_cc = static_cast<uint32_t>(std::lround(need * 10));
    if (cc < need_cc) {
      config_error(r.location("requires"), "this kernel needs compute capability " + std::to_string(need_cc / 10) + "." +
                                               std::to_string(need_cc % 10) + " or later; the simulated GPU has " +
                                               std::to_string(cc / 10) + "." + std::to_string(cc % 10));
    }
  }
  std::string ptx = r.string("ptx");
  size_t sm = ptx.find("{sm}");
  if (sm != std::string::npos) ptx.replace(sm, 4, ptx_target_for(cc));
  spec_.ptx_path = spec_.ptx_named = (dir / ptx).string();
  pins_ptx_ = r.choice("isa", {"auto", "ptx"}, "auto") == "ptx";
  if (r.has("sass")) {
    std::string sass = r.string("sass");
    if (size_t at = sass.find("{sm}"); at != std::string::npos) sass.replace(at, 4, cc >= 90 ? "90a" : std::to_string(cc / 10 * 10));
    sass_path_ = (dir / sass).string();
  }
  if (ptx.size() > 3 && ptx.compare(ptx.size() - 3, 3, ".cu") == 0) {
    const std::string target = cuda_target_for(spec_.ptx_path, cc);
    spec_.ptx_path = compile_cuda(spec_.ptx_path, target, r.location("ptx"));
    spec_.ptx_named += " (compiled by nvcc for compute_" + target + ")";
  }
  independent_ = r.choice("reconvergence", {"stack", "independent"}, "stack") == "independent";
  max_warp_instructions_ = static_cast<uint64_t>(r.integer_or("max_warp_instructions", 100'000'000, 1, INT64_MAX));
  std::error_code ec;  // the non-throwing form: a path the OS refuses (too long, say) is just not there
  if (!fs::exists(spec_.ptx_path, ec)) config_error(r.location("ptx"), "no PTX file " + spec_.ptx_path);
  module_ = parse_ptx_file(spec_.ptx_path);
  malloc_heap_bytes_ = static_cast<uint64_t>(r.integer_or("malloc_heap_bytes", 8 << 20, 16, int64_t{1} << 32));
  // PTX for an architecture-specific target (sm_90a: wgmma, setmaxnreg) loads only on that
  // exact compute capability, as the driver requires; later GPUs lack those instructions.
  for (const auto& t : module_.targets) {
    if (t.size() > 4 && t.rfind("sm_", 0) == 0 && t.back() == 'a') {
      const uint32_t want = static_cast<uint32_t>(std::strtoul(t.c_str() + 3, nullptr, 10));
      if (want != cc) {
        config_error(r.location("ptx"), spec_.ptx_named + " targets " + t + " (architecture-specific features), which only compute capability " +
                                            std::to_string(want / 10) + "." + std::to_string(want % 10) + " runs; the simulated GPU has " +
                                            std::to_string(cc / 10) + "." + std::to_string(cc % 10));
      }
    }
  }
  if (r.has("buffers")) {
    MapReader bs = r.section("buffers");
    for (const auto& name : bs.keys()) {
      MapReader b = bs.section(name);
      add_buffer(b, name, dir);
    }
    bs.finish();
  }
  if (r.has("constants")) {
    // __constant__ variables set from the host (cudaMemcpyToSymbol): replaces the PTX initializer.
    MapReader cs = r.section("constants");
    for (const auto& name : cs.keys()) {
      MapReader c = cs.section(name);
      ConstantInit init;
      init.name = name;
      init.where = cs.key_location(name);
      std::string elem = c.string("elem");
      if (!elem_size(elem)) config_error(c.location("elem"), "unknown element type '" + elem + "'");
      uint64_t count = static_cast<uint64_t>(c.integer("count", 1, 1 << 16));
      init.bytes = initial_bytes(c, elem, count, dir);
      c.finish();
      constants_.push_back(std::move(init));
    }
    cs.finish();
  }
  if (r.has("launches")) {
    // Several kernels in order, as in one CUDA stream, sharing the buffers.
    const ConfigNode& list = r.raw("launches");
    if (list.kind != ConfigNode::Kind::kSequence || list.items.empty()) config_error(list.where, "'launches' must list kernel launches");
    for (size_t i = 0; i < list.items.size(); ++i) {
      MapReader l(list.items[i], "launches[" + std::to_string(i) + "]");
      add_launch(l, dir);
      l.finish();
    }
  } else {
    add_launch(r, dir);
  }
  spec_.kernel = launches_.front()->kernel;
  spec_.grid = launches_.front()->grid;
  spec_.block = launches_.front()->block;
  if (r.has("dump")) {
    for (const auto& [name, where] : r.string_list("dump")) {
      if (!memory_.find(name)) config_error(where, "'dump' names '" + name + "', which is not a buffer argument");
      spec_.dump.push_back(name);
    }
  }
  if (r.has("expect")) {
    MapReader e = r.section("expect");
    for (const auto& name : e.keys()) {
      const auto* b = memory_.find(name);
      const auto arg = std::find_if(buffers_.begin(), buffers_.end(), [&](const BufferArg& a) { return a.name == name; });
      // (memory_ also holds __device__ variables and the heap, under names no buffer can take)
      if (!b || arg == buffers_.end()) config_error(e.key_location(name), "'expect' names '" + name + "', which is not a buffer argument");
      MapReader x = e.section(name);
      Expectation ex;
      ex.buffer = name;
      ex.rtol = x.number_or("rtol", 0, 0, 1);
      ex.atol = x.number_or("atol", 0, 0, 1e300);
      if (x.has("values") && !x.has("file")) {
        ex.values = listed_values(x.raw("values"), arg->elem, arg->count);
        x.finish();
        spec_.expect.push_back(ex);
        continue;
      }
      ex.file = (dir / x.string("file")).string();
      x.finish();
      std::error_code ec;
      if (!fs::exists(ex.file, ec)) config_error(e.location(name), "no reference file " + ex.file);
      if (fs::file_size(ex.file, ec) != b->bytes.size()) {
        config_error(e.location(name), ex.file + " holds " + std::to_string(fs::file_size(ex.file, ec)) + " bytes; buffer '" + name +
                                           "' has " + std::to_string(b->bytes.size()));
      }
      spec_.expect.push_back(ex);
    }
    e.finish();
  }
  r.finish();
}

PtxWorkload::~PtxWorkload() = default;

namespace {
class PtxKernel : public KernelSource {
 public:
  PtxKernel(const LaunchContext& context, KernelInfo info)
      : context_(context), info_(std::move(info)), grid_(std::make_shared<GridState>(info_.grid, info_.cluster)) {}
  const KernelInfo& info() const override { return info_; }
  void resident_ctas(uint64_t ctas) override { grid_->resident = ctas; }
  // CTAs in launch order (grid_state.h), skipping those a running CTA has cancelled.
  std::unique_ptr<CtaWork> next_cta() override {
    if (grid_->next >= grid_->ctas) return nullptr;
    const uint64_t size = info_.cluster.count(), rank = grid_->next % size;
    const Dim3 id = grid_->cta_at(grid_->next++);
    if (!info_.clustered()) return std::make_unique<CtaEmulator>(context_, id, nullptr, 0, grid_);
    if (rank == 0) {
      cluster_ = std::make_shared<ClusterState>();
      cluster_->ctas.assign(size, nullptr);
      cluster_->retired_shared.resize(size);
    }
    return std::make_unique<CtaEmulator>(context_, id, cluster_, static_cast<uint32_t>(rank), grid_);
  }
  const std::vector<Dim3>& cancelled_ctas() const override { return grid_->cancelled; }

 private:
  const LaunchContext& context_;
  KernelInfo info_;
  std::shared_ptr<ClusterState> cluster_;
  std::shared_ptr<GridState> grid_;
};
}  // namespace

std::unique_ptr<KernelSource> PtxWorkload::next_kernel() {
  if (next_ >= launches_.size()) return nullptr;
  const Launch& l = *launches_[next_++];
  current_ = &l;
  memory_.begin_launch();
  KernelInfo info;
  info.name = l.kernel;
  info.grid = l.grid;
  info.block = l.block;
  info.cluster = l.context.cluster;
  // Saturated, not truncated: a 4 GiB .shared array must fail the per-block limit, not wrap to
  // a few bytes and have every CTA allocate it.
  info.shared_bytes = static_cast<uint32_t>(std::min<uint64_t>(l.declared_shared_bytes + l.dynamic_shared_bytes, UINT32_MAX));
  info.registers_per_thread = l.registers_per_thread;
  info.source_file = l.file;
  info.cooperative = l.cooperative;
  info.stream = l.stream;
  info.waits_for = l.waits_for;
  return std::make_unique<PtxKernel>(l.context, std::move(info));
}

const std::string& PtxWorkload::register_name(const Launch& launch, RegId id) const {
  const Program& p = launch.program;
  if (id < p.register_names.size()) return p.register_names[id];
  // The pseudo registers cp.async and its waits carry for the timing model (a trace keeps them,
  // so its replay waits for the same copies).
  static const std::vector<std::string> kAsync = [] {
    std::vector<std::string> names;
    for (uint32_t k = 0; k < Program::kAsyncCopyRegs; ++k) names.push_back("%cp_async" + std::to_string(k));
    return names;
  }();
  if (id >= p.async_copy_reg_base && id < p.async_copy_reg_base + Program::kAsyncCopyRegs) return kAsync[id - p.async_copy_reg_base];
  throw SimulationError("register " + std::to_string(id) + " has no name in " + spec_.ptx_path);
}

void PtxWorkload::set_independent_thread_scheduling(bool on) {
  independent_ = on;
  for (auto& l : launches_) l->context.independent_thread_scheduling = on;
}

void PtxWorkload::set_mma_sums(const MmaSumSpecs& sums, bool warp_fp8_via_fp16) {
  mma_sums_ = sums;
  warp_fp8_via_fp16_ = warp_fp8_via_fp16;
  for (auto& l : launches_) {
    l->context.mma_sums = sums;
    l->context.warp_fp8_via_fp16 = warp_fp8_via_fp16;
  }
}

namespace {
// An element of a buffer as a double, its type decoded once per buffer (value_type), not per
// element: a string comparison per element was 1% of a small SGEMM's run.
double element(const uint8_t* p, ValueType t) {
  const uint64_t bits = load_bits(p, t.bits / 8);
  if (t.kind == 'f' || t.kind == 'h') return as_float(bits, t.bits, t.kind == 'h');
  return t.kind == 's' ? static_cast<double>(as_signed(bits, t.bits)) : static_cast<double>(mask_bits(bits, t.bits));
}
}  // namespace

CheckResult PtxWorkload::check() const {
  CheckResult result;
  for (const auto& ex : spec_.expect) {
    const auto* b = memory_.find(ex.buffer);
    const BufferArg* arg = nullptr;
    for (const auto& a : buffers_)
      if (a.name == ex.buffer) arg = &a;
    std::vector<uint8_t> ref = ex.values;
    if (ex.file.size()) {
      ref.assign(b->bytes.size(), 0);
      std::ifstream f(ex.file, std::ios::binary);
      f.read(reinterpret_cast<char*>(ref.data()), static_cast<std::streamsize>(ref.size()));
    }
    uint64_t bad = 0;
    double worst = 0;  // the largest |output - reference|: how close a passing check came
    std::vector<std::string> first;
    const ValueType type = value_type(arg->elem);
    for (uint64_t k = 0; k < arg->count; ++k) {
      double got = element(b->bytes.data() + k * arg->elem_bytes, type);
      double want = element(ref.data() + k * arg->elem_bytes, type);
      const bool both_nan = std::isnan(got) && std::isnan(want);
      if (!both_nan && got != want) worst = std::max(worst, std::isnan(got - want) ? INFINITY : std::fabs(got - want));
      bool ok = std::fabs(got - want) <= ex.atol + ex.rtol * std::fabs(want) || both_nan;
      if (!ok && ++bad <= 5) {
        first.push_back("  " + ex.buffer + "[" + std::to_string(k) + "] = " + std::to_string(got) + ", expected " + std::to_string(want));
      }
    }
    std::string tol = "rtol " + fmt("%g", ex.rtol) + ", atol " + fmt("%g", ex.atol) + "; largest |error| " + fmt("%.3g", worst);
    result.lines.push_back(ex.buffer + ": " + (bad ? std::to_string(bad) + " of " + std::to_string(arg->count) + " elements differ" : std::to_string(arg->count) + " elements match") + " (" + tol + ")");
    result.lines.insert(result.lines.end(), first.begin(), first.end());
    if (bad) result.passed = false;
    result.largest_error = std::max(result.largest_error, worst);
  }
  return result;
}

void PtxWorkload::dump(const std::string& dir) const {
  for (const auto& name : spec_.dump) {
    const auto* b = memory_.find(name);
    write_file_atomically((fs::path(dir) / (name + ".bin")).string(), std::string(b->bytes.begin(), b->bytes.end()));
  }
}

}  // namespace warpsim::ptx
