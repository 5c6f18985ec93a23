// Runs the validation suite on a real GPU: for each entry of suite_table.h, builds its buffers
// exactly as warpsim's launch file does, runs its launches once and checks the outputs against
// the references, then times them with CUDA events (median and spread over --runs runs after
// --warmup runs). Writes one JSON file. Never changes clocks or any other GPU setting.
//   nvcc -O2 -std=c++17 -arch=sm_90 harness.cu -o harness && ./harness -o results.json
#include <cuda.h>  // CUtensorMap and cuTensorMapEncodeTiled's declaration (reached through the runtime, no -lcuda)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

// Every kernel of the suite in this one translation unit (each source exists once; the GPU run
// and warpsim's PTX are built from the same files). Their macros are undone between files.
#include "kernels/bf16_gemm.cu"
#include "../../traces/kernels/hgemm_mma.cu"
#include "kernels/microbench.cu"
#include "kernels/mma_throughput.cu"
#include "../../traces/kernels/reduce_sum.cu"
#include "../../traces/kernels/softmax.cu"
#include "../../traces/kernels/histogram.cu"
#include "../../traces/kernels/transpose.cu"
#undef TILE
#include "../../traces/kernels/sgemm.cu"
#undef T
#include "../../traces/kernels/attention.cu"
#include "../../traces/kernels/attention_mma.cu"
#undef D
#undef BC
#undef WARPS
#include "../../traces/kernels/bulk_copy.cu"
#include "../../traces/kernels/bulk_store.cu"
#include "../../traces/kernels/wgmma_gemm.cu"
#include "../../traces/kernels/tcgen05_gemm.cu"
#include "../../traces/kernels/tcgen05_block_scaled.cu"
#include "../../traces/kernels/tcgen05_m64.cu"
#include "../../traces/kernels/tcgen05_pair.cu"
#include "../../traces/kernels/work_stealing.cu"
#include "../../traces/kernels/cluster.cu"
#include "../../traces/kernels/tma_transpose.cu"
#include "../../traces/kernels/tma_tiles.cu"
#include "../../traces/kernels/tma_multicast.cu"
#include "../../traces/kernels/async_store.cu"
#include "../../traces/kernels/grid_sync.cu"
#include "../../traces/kernels/textures.cu"
#include "../../traces/kernels/mma_shapes.cu"
#include "../../traces/kernels/mma_sparse.cu"
#include "../../traces/kernels/fp8_accumulate.cu"
#include "../../traces/kernels/scan_lookback.cu"

#include "suite_table.h"

// Reads a buffer several times L2's size before each run, so every run starts with its data out
// of L2 (and the previous run's dirty lines written back) as warpsim's simulated launch does;
// reading rather than writing leaves L2 full of clean lines that cost nothing to evict.
__global__ void evict_l2(const float4* a, size_t n4, float* sink) {
  float acc = 0.0f;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x) {
    float4 v = __ldcg(a + i);
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == -1.0f) sink[0] = acc;  // never true: the buffer is zeros
}

namespace {

struct KernelRef {
  const char* name;
  const void* fn;
};
const KernelRef kKernels[] = {
    {"bf16_gemm", (const void*)bf16_gemm}, {"hgemm_mma", (const void*)hgemm_mma}, {"dgemm_mma", (const void*)dgemm_mma},
    {"mma_sparse_f16", (const void*)mma_sparse_f16}, {"mma_sparse_int", (const void*)mma_sparse_int}, {"mma_sparse_tf32", (const void*)mma_sparse_tf32},
    {"mma_sparse_e4m3", (const void*)mma_sparse_e4m3}, {"fp8_accumulate", (const void*)fp8_accumulate}, {"prune_24", (const void*)prune_24}, {"pack_metadata", (const void*)pack_metadata},
    {"hgemm_sparse", (const void*)hgemm_sparse}, {"chase", (const void*)chase}, {"chase_shared", (const void*)chase_shared},
    {"mma_streams_f16", (const void*)mma_streams_f16}, {"mma_streams_s8", (const void*)mma_streams_s8}, {"bw_read", (const void*)bw_read}, {"bw_random", (const void*)bw_random}, {"bw_reread", (const void*)bw_reread}, {"bw_write", (const void*)bw_write}, {"bw_copy", (const void*)bw_copy},
    {"bw_triad", (const void*)bw_triad}, {"fma_chain", (const void*)fma_chain}, {"fma_streams", (const void*)fma_streams},
    {"dfma_streams", (const void*)dfma_streams}, {"sfu_streams", (const void*)sfu_streams},
    {"shared_stride", (const void*)shared_stride}, {"diverge_paths", (const void*)diverge_paths},
    {"lane_trips", (const void*)lane_trips}, {"atomic_slots", (const void*)atomic_slots},
    {"empty_kernel", (const void*)empty_kernel}, {"reduce_sum", (const void*)reduce_sum}, {"softmax", (const void*)softmax},
    {"histogram", (const void*)histogram}, {"transpose_naive", (const void*)transpose_naive},
    {"transpose_tiled", (const void*)transpose_tiled}, {"sgemm_tiled", (const void*)sgemm_tiled},
    {"attention_scores", (const void*)attention_scores}, {"attention_softmax_pv", (const void*)attention_softmax_pv},
    {"attention_flash", (const void*)attention_flash}, {"attention_mma", (const void*)attention_mma}, {"bulk_scale", (const void*)bulk_scale},
    {"bulk_store", (const void*)bulk_store},
    {"wgmma_gemm", (const void*)wgmma_gemm}, {"tma_wgmma_gemm", (const void*)tma_wgmma_gemm}, {"tcgen05_gemm", (const void*)tcgen05_gemm}, {"tcgen05_block_scaled", (const void*)tcgen05_block_scaled},
    {"tcgen05_m64", (const void*)tcgen05_m64}, {"tcgen05_pair_gemm", (const void*)tcgen05_pair_gemm}, {"work_stealing_sums", (const void*)work_stealing_sums}, {"cluster_histogram", (const void*)cluster_histogram},
    {"cluster_exchange", (const void*)cluster_exchange}, {"tma_transpose", (const void*)tma_transpose},
    {"tma_scale_3d", (const void*)tma_scale_3d}, {"tma_multicast", (const void*)tma_multicast},
    {"async_store_ring", (const void*)async_store_ring}, {"async_reduce_to_leader", (const void*)async_reduce_to_leader},
    {"grid_stencil", (const void*)grid_stencil}, {"tex_fetch", (const void*)tex_fetch}, {"tex_resize", (const void*)tex_resize},
    {"tex_rgba", (const void*)tex_rgba}, {"tex_gather", (const void*)tex_gather}, {"tex_volume", (const void*)tex_volume}, {"tex_layered", (const void*)tex_layered},
    {"surf_sobel", (const void*)surf_sobel}, {"scan_lookback", (const void*)scan_lookback},
};

#define CUDA_OK(call)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "harness: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// Waits for `event` like cudaEventSynchronize, but gives up after `seconds`: a kernel that never
// finishes (a lost forward-progress assumption) must not hang the whole measurement. The exit
// status 4 tells run_on_gpu.sh to record this entry as timed out and go on after it.
void wait_for(cudaEvent_t event, double seconds, const char* entry) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    const cudaError_t e = cudaEventQuery(event);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) CUDA_OK(e);
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "harness: %s did not finish within %.0f s\n", entry, seconds);
      std::exit(4);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

size_t elem_size(const std::string& e) {
  if (e == "f64" || e == "s64" || e == "u64") return 8;
  if (e == "f32" || e == "s32" || e == "u32") return 4;
  if (e == "f16" || e == "bf16" || e == "s16" || e == "u16") return 2;
  return 1;
}

// A launch file's tensor_map: argument as the driver encodes it (cuTensorMapEncodeTiled, found
// through the runtime so that the harness needs no -lcuda): tile mode, element strides of 1, no
// interleave, no L2 promotion, zeros out of bounds.
CUtensorMap encode_tensor_map(const SuiteTensorMap& m, const std::vector<void*>& buffers) {
  using Encode = decltype(&cuTensorMapEncodeTiled);
  static Encode encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    CUDA_OK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
#else  // CUDA 12.0-12.4 (the by-version call does not exist yet; CUDA 13 removed this one)
    CUDA_OK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &found));
#endif
    if (found != cudaDriverEntryPointSuccess || !fn) {
      std::fprintf(stderr, "harness: the driver has no cuTensorMapEncodeTiled\n");
      std::exit(1);
    }
    return reinterpret_cast<Encode>(fn);
  }();
  const std::string e = m.elem;
  const CUtensorMapDataType type = e == "f32" ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : e == "f64" ? CU_TENSOR_MAP_DATA_TYPE_FLOAT64
                                 : e == "f16" ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : e == "bf16" ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                 : e == "s32" ? CU_TENSOR_MAP_DATA_TYPE_INT32 : e == "u32" ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                 : e == "s64" ? CU_TENSOR_MAP_DATA_TYPE_INT64 : e == "u64" ? CU_TENSOR_MAP_DATA_TYPE_UINT64
                                 : e == "u16" || e == "s16" ? CU_TENSOR_MAP_DATA_TYPE_UINT16 : CU_TENSOR_MAP_DATA_TYPE_UINT8;
  const CUtensorMapSwizzle swizzle = m.swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : m.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                   : m.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B : CU_TENSOR_MAP_SWIZZLE_NONE;
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], element_strides[5];
  for (unsigned d = 0; d < m.rank; ++d) dims[d] = m.dims[d], box[d] = m.box[d], element_strides[d] = 1;
  for (unsigned d = 0; d + 1 < m.rank; ++d) strides[d] = m.strides[d];
  CUtensorMap map;
  const CUresult r = encode(&map, type, m.rank, buffers.at(m.buffer), dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "harness: cuTensorMapEncodeTiled failed (%d) for a rank-%u %s map\n", int(r), m.rank, m.elem);
    std::exit(1);
  }
  return map;
}

// A launch file's texture: or surface: argument as the runtime makes it: over the buffer itself
// (linear and pitch2d resources) or over a CUDA array holding a copy of the buffer's texels,
// copied back after the launches so that what a kernel wrote through a surface is checked.
struct TextureObject {
  unsigned long long handle = 0;  // cudaTextureObject_t / cudaSurfaceObject_t
  cudaArray_t array = nullptr;
  const SuiteTexture* spec = nullptr;
  void* buffer = nullptr;
};

cudaChannelFormatDesc channel_format(const SuiteTexture& t) {
  const std::string e = t.elem;
  const int bits = int(elem_size(e)) * 8;
  const cudaChannelFormatKind kind = e[0] == 'f' ? cudaChannelFormatKindFloat : e[0] == 's' ? cudaChannelFormatKindSigned : cudaChannelFormatKindUnsigned;
  return cudaCreateChannelDesc(bits, t.channels > 1 ? bits : 0, t.channels > 2 ? bits : 0, t.channels > 3 ? bits : 0, kind);
}

// A runtime call that may fail for one entry (a texture this GPU refuses): the first failure is
// kept in `failure` and the entry is skipped, rather than ending the whole measurement.
#define CUDA_TRY(call, failure)                                                                  \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess && (failure).empty()) (failure) = std::string(#call) + ": " + cudaGetErrorString(e_); \
  } while (0)

// Between the buffer (rows t.pitch bytes apart) and the array; extents in texels.
void copy_array(const TextureObject& o, bool to_array, std::string& failure) {
  const SuiteTexture& t = *o.spec;
  cudaMemcpy3DParms c{};
  const cudaPitchedPtr p = make_cudaPitchedPtr(o.buffer, t.pitch, t.dims[0], t.dims[1]);
  if (to_array) c.srcPtr = p, c.dstArray = o.array;
  else c.srcArray = o.array, c.dstPtr = p;
  c.extent = make_cudaExtent(t.dims[0], t.dims[1], t.layers ? t.layers : t.dims[2]);  // a layered array's layers are its depth
  c.kind = cudaMemcpyDeviceToDevice;
  CUDA_TRY(cudaMemcpy3D(&c), failure);
}

TextureObject make_texture(const SuiteTexture& t, void* buffer, std::string& failure) {
  TextureObject o{0, nullptr, &t, buffer};
  const cudaChannelFormatDesc format = channel_format(t);
  cudaResourceDesc res{};
  if (t.resource == 0) {
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = buffer;
    res.res.linear.desc = format;
    res.res.linear.sizeInBytes = size_t{t.dims[0]} * t.channels * elem_size(t.elem);
  } else if (t.resource == 1) {
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = buffer;
    res.res.pitch2D.desc = format;
    res.res.pitch2D.width = t.dims[0];
    res.res.pitch2D.height = t.dims[1];
    res.res.pitch2D.pitchInBytes = t.pitch;
  } else {
    const cudaExtent extent = make_cudaExtent(t.dims[0], t.rank > 1 ? t.dims[1] : 0, t.layers ? t.layers : t.rank > 2 ? t.dims[2] : 0);
    const unsigned flags = (t.surface ? cudaArraySurfaceLoadStore : 0) | (t.layers ? cudaArrayLayered : 0);
    CUDA_TRY(cudaMalloc3DArray(&o.array, &format, extent, flags), failure);
    if (!failure.empty()) return o;
    copy_array(o, true, failure);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = o.array;
  }
  if (t.surface) {
    CUDA_TRY(cudaCreateSurfaceObject(&o.handle, &res), failure);
    return o;
  }
  static const cudaTextureAddressMode kModes[4] = {cudaAddressModeClamp, cudaAddressModeBorder, cudaAddressModeWrap, cudaAddressModeMirror};
  cudaTextureDesc td{};
  for (int d = 0; d < 3; ++d) td.addressMode[d] = kModes[t.address[d]];
  td.filterMode = t.linear_filter ? cudaFilterModeLinear : cudaFilterModePoint;
  td.readMode = t.normalized_read ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
  td.normalizedCoords = t.normalized_coords ? 1 : 0;
  CUDA_TRY(cudaCreateTextureObject(&o.handle, &res, &td, nullptr), failure);
  return o;
}

void destroy_texture(const TextureObject& o) {
  if (o.handle && o.spec->surface) CUDA_OK(cudaDestroySurfaceObject(o.handle));
  if (o.handle && !o.spec->surface) CUDA_OK(cudaDestroyTextureObject(o.handle));
  if (o.array) CUDA_OK(cudaFreeArray(o.array));
}

// As warpsim's launch files store a double into an element (sim/frontend/ptx/launch.cpp).
void store(uint8_t* p, const std::string& e, double v) {
  if (e == "f32") {
    float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else if (e == "f64") {
    std::memcpy(p, &v, 8);
  } else if (e == "f16") {
    __half h = __float2half_rn(static_cast<float>(v));
    std::memcpy(p, &h, 2);
  } else if (e == "bf16") {
    uint32_t x;
    float f = static_cast<float>(v);
    std::memcpy(&x, &f, 4);
    uint16_t h = static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
    std::memcpy(p, &h, 2);
  } else {
    int64_t i = static_cast<int64_t>(std::llround(v));
    std::memcpy(p, &i, elem_size(e));
  }
}

double load(const uint8_t* p, const std::string& e) {
  if (e == "f32") { float f; std::memcpy(&f, p, 4); return f; }
  if (e == "f64") { double d; std::memcpy(&d, p, 8); return d; }
  if (e == "f16") { __half h; std::memcpy(&h, p, 2); return __half2float(h); }
  if (e == "bf16") { uint16_t h; std::memcpy(&h, p, 2); uint32_t x = uint32_t(h) << 16; float f; std::memcpy(&f, &x, 4); return f; }
  if (e == "s32") { int32_t i; std::memcpy(&i, p, 4); return i; }
  if (e == "u32") { uint32_t i; std::memcpy(&i, p, 4); return i; }
  if (e == "s64") { int64_t i; std::memcpy(&i, p, 8); return double(i); }
  if (e == "u64") { uint64_t i; std::memcpy(&i, p, 8); return double(i); }
  if (e == "s8") { int8_t i; std::memcpy(&i, p, 1); return i; }
  uint8_t u = *p;
  return u;
}

std::vector<uint8_t> initial(const SuiteBuffer& b, std::string& error) {
  const std::string e = b.elem;
  std::vector<uint8_t> bytes(b.count * elem_size(e), 0);
  if (b.init == InitKind::kSequence) {
    for (uint64_t k = 0; k < b.count; ++k) store(bytes.data() + k * elem_size(e), e, b.a + b.b * double(k));
  } else if (b.init == InitKind::kRandom) {
    std::mt19937_64 rng(b.seed);
    for (uint64_t k = 0; k < b.count; ++k) store(bytes.data() + k * elem_size(e), e, b.a + (b.b - b.a) * (double(rng() >> 11) * 0x1.0p-53));
  } else if (b.init == InitKind::kFile) {
    std::ifstream f(b.file, std::ios::binary);
    f.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!f) error = std::string("cannot read ") + b.file;
  }
  return bytes;
}

// Compares each checked buffer with its reference; `worst` gets the largest |output - reference|
// over them (recorded with the measurements: for FP8 accumulation it measures the tensor cores'
// arithmetic, docs/tensor-numerics.md).
std::string check(const SuiteEntry& s, const std::vector<std::vector<uint8_t>>& out, double& worst) {
  worst = 0;
  for (const SuiteCheck& c : s.checks) {
    if (c.buffer < 0) break;
    const SuiteBuffer& b = s.buffers[c.buffer];
    const std::string e = b.elem;
    const size_t w = elem_size(e);
    std::vector<uint8_t> want;
    if (c.kind == CheckKind::kFile) {
      std::ifstream f(c.file, std::ios::binary);
      want.assign(std::istreambuf_iterator<char>(f), {});
      if (want.size() != out[c.buffer].size()) return std::string(b.name) + ": reference " + c.file + " has the wrong size";
    }
    for (uint64_t i = 0; i < b.count; ++i) {
      const double got = load(out[c.buffer].data() + i * w, e);
      double expect;
      if (c.kind == CheckKind::kFile) {
        expect = load(want.data() + i * w, e);
      } else {
        std::vector<uint8_t> one(w);
        store(one.data(), e, c.start + c.step * double(i));
        expect = load(one.data(), e);
      }
      worst = std::max(worst, std::fabs(got - expect));
      if (!(std::fabs(got - expect) <= c.atol + c.rtol * std::fabs(expect))) {
        std::ostringstream m;
        m.precision(9);
        m << b.name << "[" << i << "] = " << got << ", expected " << expect;
        return m.str();
      }
    }
  }
  return "";
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (c == '\n') o += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) o += ' ';
    else o += c;
  }
  return o + "\"";
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Timing {
  std::vector<double> us;
  double pick(double q) const {
    std::vector<double> v = us;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(q * double(v.size() - 1) + 0.5))];
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string out_path = "results.json", only, after, smi_before, smi_after;
  int runs = 20, warmup = 3, count = -1;
  double timeout_s = 20;  // per entry's checked run, and per timed run
  bool profile = false;  // under Nsight Compute: each entry's checked run only, nothing timed
  bool warm_l2 = false;  // --warm-l2: no eviction between runs (data left in L2 by the last run)
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "harness: %s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "-o") out_path = next();
    else if (a == "--runs") runs = std::stoi(next());
    else if (a == "--warmup") warmup = std::stoi(next());
    else if (a == "--only") only = next();
    else if (a == "--after") after = next();
    else if (a == "--count") count = std::stoi(next());
    else if (a == "--timeout") timeout_s = std::stod(next());
    else if (a == "--list") {
      for (const SuiteEntry& s : kSuite) std::printf("%s\t%s\t%s\n", s.name, s.family, s.launch_file);
      return 0;
    }
    else if (a == "--profile") profile = true;
    else if (a == "--warm-l2") warm_l2 = true;
    else if (a == "--nvidia-smi-before") smi_before = read_text(next());
    else if (a == "--nvidia-smi-after") smi_after = read_text(next());
    else {
      std::fprintf(stderr, "usage: harness [-o FILE] [--runs N>=10] [--warmup N] [--only NAME | --after NAME] [--count N] [--timeout S]\n"
                           "               [--profile] [--warm-l2] [--list] [--nvidia-smi-before FILE] [--nvidia-smi-after FILE]\n");
      return 2;
    }
  }
  if (runs < 10) { std::fprintf(stderr, "harness: --runs must be at least 10\n"); return 2; }
  if (profile) runs = warmup = 0;
  int dev = 0, cc_major = 0, cc_minor = 0, sms = 0, clock_khz = 0, mem_clock_khz = 0, driver = 0, runtime = 0;
  CUDA_OK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, dev));
  CUDA_OK(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, dev));
  CUDA_OK(cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, dev));
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CUDA_OK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
  CUDA_OK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, dev));
  CUDA_OK(cudaDriverGetVersion(&driver));
  CUDA_OK(cudaRuntimeGetVersion(&runtime));
  const int cc = cc_major * 10 + cc_minor;

  std::ostringstream js;
  js << "{\n  \"format\": \"warpsim-validation-1\",\n  \"gpu\": {\"name\": " << json_string(prop.name) << ", \"compute_capability\": \""
     << cc_major << "." << cc_minor << "\", \"sms\": " << sms << ", \"max_sm_clock_mhz\": " << clock_khz / 1000
     << ", \"memory_clock_mhz\": " << mem_clock_khz / 1000 << ", \"l2_bytes\": " << prop.l2CacheSize
     << ", \"cuda_driver_version\": " << driver << ", \"cuda_runtime_version\": " << runtime
     << ",\n          \"nvidia_smi_before\": " << json_string(smi_before) << ",\n          \"nvidia_smi_after\": " << json_string(smi_after)
     << "},\n  \"runs\": " << runs << ", \"warmup\": " << warmup << ", \"l2_evicted_before_each_run\": " << (warm_l2 || profile ? "false" : "true")
     << ",\n  \"kernels\": [\n";
  bool first = true, all_passed = true;
  // Four times L2 (at least 64 MiB) of zeros to read before each run (--warm-l2: none).
  const size_t evict_bytes = std::max<size_t>(size_t(4) * size_t(prop.l2CacheSize), size_t(64) << 20);
  float4* evict_buffer = nullptr;
  float* evict_sink = nullptr;
  // Not under Nsight Compute: it would profile every eviction, and its own cache control
  // (--cache-control all, the default) flushes the caches before each profiled kernel.
  const bool evicting = !warm_l2 && !profile;
  if (evicting) {
    CUDA_OK(cudaMalloc(&evict_buffer, evict_bytes));
    CUDA_OK(cudaMemset(evict_buffer, 0, evict_bytes));
    CUDA_OK(cudaMalloc(&evict_sink, sizeof(float)));
  }
  auto evict = [&]() {
    if (!evicting) return;
    evict_l2<<<4 * sms, 512>>>(evict_buffer, evict_bytes / sizeof(float4), evict_sink);
    CUDA_OK(cudaGetLastError());
  };
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  // The file is rewritten, complete, after every entry: if a kernel takes the process down (a
  // sticky CUDA error, the watchdog), the entries before it are kept and run_on_gpu.sh resumes
  // with --after.
  auto write_results = [&]() {
    std::ofstream f(out_path);
    f << js.str() << "\n  ]\n}\n";
    return static_cast<bool>(f);
  };
  if (!write_results()) { std::fprintf(stderr, "harness: cannot write %s\n", out_path.c_str()); return 1; }
  bool started = after.empty();
  for (const SuiteEntry& s : kSuite) {
    if (!started) {
      started = after == s.name;
      continue;
    }
    if (!only.empty() && only != s.name) continue;
    if (count == 0) break;
    if (count > 0) --count;
    std::fprintf(stderr, "harness: running %s\n", s.name);
    std::ostringstream k;
    k << "    {\"name\": " << json_string(s.name) << ", \"family\": " << json_string(s.family) << ", \"launch_file\": " << json_string(s.launch_file);
    if (s.requires_cc > cc) {
      k << ", \"skipped\": \"needs compute capability " << s.requires_cc / 10 << "." << s.requires_cc % 10 << "\"}";
    } else if (s.exact_cc && s.exact_cc != cc) {
      k << ", \"skipped\": \"architecture-specific PTX for compute capability " << s.exact_cc / 10 << "." << s.exact_cc % 10 << " only\"}";
    } else {
      std::vector<void*> dev_buffers;
      std::vector<std::vector<uint8_t>> host;
      std::string error;
      for (const SuiteBuffer& b : s.buffers) {
        if (!b.name) break;
        host.push_back(initial(b, error));
        void* p = nullptr;
        CUDA_OK(cudaMalloc(&p, std::max<size_t>(host.back().size(), 1)));
        CUDA_OK(cudaMemcpy(p, host.back().data(), host.back().size(), cudaMemcpyHostToDevice));
        dev_buffers.push_back(p);
      }
      // Argument storage per launch: cudaLaunchKernel takes pointers to each argument.
      struct Prepared {
        const void* fn;
        dim3 grid, block;
        unsigned shared;
        std::vector<uint64_t> storage;
        std::vector<void*> args;
        dim3 cluster;  // 0 x 0 x 0: launched without a cluster attribute
        std::vector<CUtensorMap> maps;
        bool cooperative = false;
      };
      std::vector<Prepared> launches;
      std::vector<TextureObject> objects;
      std::string texture_failure;
      for (const SuiteLaunch& l : s.launches) {
        if (!l.kernel) break;
        Prepared p{nullptr, dim3(l.grid[0], l.grid[1], l.grid[2]), dim3(l.block[0], l.block[1], l.block[2]), l.dynamic_shared, {}, {},
                   dim3(l.cluster[0], l.cluster[1], l.cluster[2]), {}, l.cooperative};
        for (const KernelRef& r : kKernels)
          if (std::strcmp(r.name, l.kernel) == 0) p.fn = r.fn;
        if (!p.fn) { std::fprintf(stderr, "harness: no kernel %s in this build\n", l.kernel); return 1; }
        p.storage.resize(kMaxSuiteArgs);
        p.maps.reserve(kMaxSuiteArgs);  // the arguments point into it: no reallocation
        for (int a = 0; a < kMaxSuiteArgs; ++a) {
          const SuiteArg& arg = l.args[a];
          if (arg.tensor_map >= 0) {
            p.maps.push_back(encode_tensor_map(s.maps[arg.tensor_map], dev_buffers));
            p.args.push_back(&p.maps.back());
            continue;
          }
          if (arg.texture >= 0) {
            objects.push_back(make_texture(s.textures[arg.texture], dev_buffers.at(s.textures[arg.texture].buffer), texture_failure));
            p.storage[a] = objects.back().handle;
            p.args.push_back(&p.storage[a]);
            continue;
          }
          if (!arg.is_buffer && !arg.scalar) break;
          uint64_t bits = 0;
          const std::string t = arg.scalar ? arg.scalar : "";
          if (arg.is_buffer) { void* ptr = dev_buffers[arg.buffer]; std::memcpy(&bits, &ptr, sizeof ptr); }
          else if (t == "f32") { float f = float(arg.value); std::memcpy(&bits, &f, 4); }
          else if (t == "f64") { std::memcpy(&bits, &arg.value, 8); }
          else if (t == "s32" || t == "u32") { int64_t i = std::llround(arg.value); std::memcpy(&bits, &i, 4); }
          else { int64_t i = std::llround(arg.value); std::memcpy(&bits, &i, 8); }
          p.storage[a] = bits;
          p.args.push_back(&p.storage[a]);
        }
        launches.push_back(std::move(p));
      }
      auto run_all = [&]() {
        for (auto& p : launches) {
          if (p.cooperative) {  // every CTA resident at once; grid.sync() allowed
            CUDA_OK(cudaLaunchCooperativeKernel(p.fn, p.grid, p.block, p.args.data(), p.shared, 0));
            continue;
          }
          if (p.cluster.x == 0) {
            CUDA_OK(cudaLaunchKernel(p.fn, p.grid, p.block, p.args.data(), p.shared, 0));
            continue;
          }
          // The launch file's cluster: (as cudaLaunchKernelEx's cluster attribute).
          cudaLaunchConfig_t config{};
          cudaLaunchAttribute attribute{};
          attribute.id = cudaLaunchAttributeClusterDimension;
          attribute.val.clusterDim.x = p.cluster.x;
          attribute.val.clusterDim.y = p.cluster.y;
          attribute.val.clusterDim.z = p.cluster.z;
          config.gridDim = p.grid;
          config.blockDim = p.block;
          config.dynamicSmemBytes = p.shared;
          config.attrs = &attribute;
          config.numAttrs = 1;
          CUDA_OK(cudaLaunchKernelExC(&config, p.fn, p.args.data()));
        }
      };
      if (!texture_failure.empty()) {  // an object this GPU's runtime refused: the other entries still run
        for (const TextureObject& o : objects) destroy_texture(o);
        for (void* p : dev_buffers) CUDA_OK(cudaFree(p));
        k << ", \"skipped\": " << json_string("the CUDA runtime refused a texture or surface object: " + texture_failure) << "}";
        std::fprintf(stderr, "%-26s skipped: %s\n", s.name, texture_failure.c_str());
        js << (first ? "" : ",\n") << k.str();
        first = false;
        if (!write_results()) { std::fprintf(stderr, "harness: cannot write %s\n", out_path.c_str()); return 1; }
        continue;
      }
      evict();
      CUDA_OK(cudaEventRecord(start));
      run_all();
      CUDA_OK(cudaEventRecord(stop));
      wait_for(stop, timeout_s, s.name);
      CUDA_OK(cudaDeviceSynchronize());
      for (const TextureObject& o : objects)
        if (o.array) copy_array(o, false, texture_failure);
      if (!texture_failure.empty() && error.empty()) error = texture_failure;
      std::vector<std::vector<uint8_t>> out(host.size());
      for (size_t b = 0; b < host.size(); ++b) {
        out[b].resize(host[b].size());
        CUDA_OK(cudaMemcpy(out[b].data(), dev_buffers[b], out[b].size(), cudaMemcpyDeviceToHost));
      }
      double worst = 0;
      if (error.empty()) error = check(s, out, worst);
      all_passed &= error.empty();
      // Every run starts from the entry's initial buffers, as warpsim's one run does: kernels that
      // keep state in memory (a scan's ticket counter, atomics' totals) see what they saw the first
      // time. The copies come before the eviction and outside the timed span.
      auto restore = [&]() {
        for (size_t b = 0; b < host.size(); ++b)
          CUDA_OK(cudaMemcpy(dev_buffers[b], host[b].data(), host[b].size(), cudaMemcpyHostToDevice));
      };
      for (int w = 0; w < warmup; ++w) {
        restore();
        evict();
        run_all();
      }
      Timing t;
      for (int r = 0; r < runs; ++r) {
        restore();
        evict();
        CUDA_OK(cudaEventRecord(start));
        run_all();
        CUDA_OK(cudaEventRecord(stop));
        wait_for(stop, timeout_s, s.name);
        float ms = 0;
        CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
        t.us.push_back(ms * 1000.0);
      }
      for (const TextureObject& o : objects) destroy_texture(o);
      for (void* p : dev_buffers) CUDA_OK(cudaFree(p));
      char nums[256] = "";
      if (!profile)
        std::snprintf(nums, sizeof nums, ", \"time_us_median\": %.3f, \"time_us_min\": %.3f, \"time_us_p10\": %.3f, \"time_us_p90\": %.3f, \"time_us_max\": %.3f",
                    t.pick(0.5), t.pick(0.0), t.pick(0.1), t.pick(0.9), t.pick(1.0));
      char err[64] = "";
      if (s.checks[0].buffer >= 0 && std::isfinite(worst)) std::snprintf(err, sizeof err, ", \"max_abs_error\": %.9g", worst);  // JSON has no inf
      k << ", \"check\": " << json_string(error.empty() ? "passed" : "FAILED: " + error) << err << nums << "}";
      if (profile) std::fprintf(stderr, "%-26s profiled    %s\n", s.name, error.empty() ? "passed" : ("FAILED: " + error).c_str());
      else std::fprintf(stderr, "%-26s %10.3f us  %s\n", s.name, t.pick(0.5), error.empty() ? "passed" : ("FAILED: " + error).c_str());
    }
    js << (first ? "" : ",\n") << k.str();
    first = false;
    if (!write_results()) { std::fprintf(stderr, "harness: cannot write %s\n", out_path.c_str()); return 1; }
  }
  if (!started) { std::fprintf(stderr, "harness: --after %s: no such entry (--list names them)\n", after.c_str()); return 2; }
  return all_passed ? 0 : 3;
}
