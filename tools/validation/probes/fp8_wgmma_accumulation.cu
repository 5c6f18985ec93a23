// How Hopper's wgmma adds FP8 products into an FP32 accumulator (sm_90a only). One warpgroup
// computes D = A B^T for A, B^T of 64 x 4096 e4m3 values with a known sum: in row r of A and
// column c of B^T, element 0 is 16 and every other element a_r (resp. b_c), so
//   D[r][c] = 256 + 4095 a_r b_c,
// a large first product followed by 4095 small ones, p = a_r b_c, spanning 2^-1 to 2^-18. An
// adder keeping F fraction bits below the largest exponent in its block (C and the 32 products
// of one k32 step) drops each product smaller than 256 x 2^-F, so the size of p where the small
// products stop counting gives F. Prints one line per (a_r, b_c): p, the exact sum, what the GPU
// returned, and the kept share of the small products; with a file name, also D's 4096 floats
// (row-major) there. Compiled and run by hand on an H100/H200:
//   nvcc -O2 -arch=sm_90a fp8_wgmma_accumulation.cu -o probe && ./probe d.bin
// The kernel alone runs in warpsim too: fp8_wgmma_accumulation.launch.yaml, whose expected D is
// the H200's.
// ptx-targets: 90a
#include <cuda_fp8.h>
#include <stdint.h>

#include <cmath>
#include <cstdio>
#include <vector>

constexpr int kK = 4096;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ uint64_t descriptor(const void* smem, uint32_t lbo, uint32_t sbo) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return uint64_t((addr >> 4) & 0x3fff) | (uint64_t((lbo >> 4) & 0x3fff) << 16) | (uint64_t((sbo >> 4) & 0x3fff) << 32);
}
// Byte offset of byte kb of row `row` in a 64 x 128-byte tile, wgmma's no-swizzle K-major
// layout: 8 x 16-byte core matrices, the one at (row block r, k block c) at (c * 8 + r) * 128.
__device__ uint32_t tile_offset(int row, int kb) { return ((kb / 16) * 8 + row / 8) * 128 + (row % 8) * 16 + kb % 16; }
#endif

// a_small[r], b_small[c]: the e4m3 bytes of a_r and b_c; the tiles are built from them.
extern "C" __global__ void fp8_wgmma(const uint8_t* a_small, const uint8_t* b_small, float* d_out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ alignas(1024) uint8_t sa[64 * 128];
  __shared__ alignas(1024) uint8_t sb[64 * 128];
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  for (int k0 = 0; k0 < kK; k0 += 128) {
    for (int i = threadIdx.x; i < 64 * 128; i += blockDim.x) {
      const int row = i / 128, kb = i % 128;
      const bool first = k0 + kb == 0;  // 16 (e4m3 0x58) there
      sa[tile_offset(row, kb)] = first ? 0x58 : a_small[row];
      sb[tile_offset(row, kb)] = first ? 0x58 : b_small[row];
    }
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int ks = 0; ks < 4; ++ks) {  // k32 steps: 32 bytes, two core matrices along K
      const uint64_t da = descriptor(sa + ks * 2048, 1024, 128), db = descriptor(sb + ks * 2048, 1024, 128);
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 "
          "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
          "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
          "%32, %33, p, 1, 1;\n}\n"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
            "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
            "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
            "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
          : "l"(da), "l"(db));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    __syncthreads();
  }
  // Accumulator layout (PTX ISA, wgmma D fragment): register i of lane l in warp w is row
  // 16w + l/4 + 8 ((i/2) % 2), column 8 (i/4) + 2 (l%4) + i%2.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = 0; i < 32; ++i) d_out[(16 * warp + lane / 4 + 8 * ((i / 2) % 2)) * 64 + 8 * (i / 4) + 2 * (lane % 4) + i % 2] = d[i];
#endif
}

#define CHECK(x)                                                                             \
  do {                                                                                       \
    cudaError_t e = (x);                                                                     \
    if (e != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));       \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

int main(int argc, char** argv) {
  // a_r: 2^-(r / 4) x {1, 1.125, 1.5, 1.875}[r % 4] for r < 40 (e4m3 normals reach 2^-6, and
  // subnormals m x 2^-9 below); b_c: 2^-(c / 8) x {1, 1.25, ...}: products from 2^-1 to ~2^-18.
  const float mant_a[4] = {1.0f, 1.125f, 1.5f, 1.875f};
  std::vector<float> av(64), bv(64);
  for (int r = 0; r < 64; ++r) av[r] = r < 40 ? std::ldexp(mant_a[r % 4], -(r / 4)) : std::ldexp(float(1 + r % 7), -9);
  for (int c = 0; c < 64; ++c) bv[c] = std::ldexp(1.0f + 0.125f * (c % 8), -(c / 8));
  std::vector<uint8_t> a(64), bt(64);
  auto enc = [](float x) { return __nv_fp8_e4m3(x).__x; };
  auto dec = [](uint8_t b) {
    __nv_fp8_e4m3 v;
    v.__x = b;
    return float(v);
  };
  for (int r = 0; r < 64; ++r) a[r] = enc(av[r]), bt[r] = enc(bv[r]);
  uint8_t *da, *db;
  float* dd;
  CHECK(cudaMalloc(&da, a.size()));
  CHECK(cudaMalloc(&db, bt.size()));
  CHECK(cudaMalloc(&dd, 64 * 64 * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, bt.data(), bt.size(), cudaMemcpyHostToDevice));
  fp8_wgmma<<<1, 128>>>(da, db, dd);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> d(64 * 64);
  CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(float), cudaMemcpyDeviceToHost));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, K = %d, D = 256 + 4095 p\n# r c a_r b_c p log2(p) exact gpu kept_share\n", prop.name, kK);
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < 64; ++c) {
      const double ar = dec(a[r]), bc = dec(bt[c]), p = ar * bc;
      const double exact = 256.0 + 4095.0 * p, gpu = d[r * 64 + c];
      std::printf("%d %d %.9g %.9g %.9g %.3f %.9g %.9g %.6f\n", r, c, ar, bc, p, std::log2(p), exact, gpu, (gpu - 256.0) / (4095.0 * p));
    }
  }
  if (argc > 1) {
    std::FILE* f = std::fopen(argv[1], "wb");
    if (!f || std::fwrite(d.data(), sizeof(float), d.size(), f) != d.size() || std::fclose(f) != 0) return 1;
  }
  std::printf("# a_small:");
  for (int r = 0; r < 64; ++r) std::printf(" %d", a[r]);
  std::printf("\n# b_small:");
  for (int c = 0; c < 64; ++c) std::printf(" %d", bt[c]);
  std::printf("\n");
  return 0;
}
