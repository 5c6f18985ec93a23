// Hopper's warpgroup MMA (wgmma.mma_async, sm_90a only): C = A B for A (M x K, row-major), B
// given as B^T (N x K, row-major: both operands K-major, wgmma's native layout) in f16 and C in
// f32. One warpgroup (128 threads) per 64 x 64 tile of C; K in tiles of 64 staged in shared
// memory in one of wgmma's canonical layouts, then four m64n64k16 MMAs per tile read straight
// from shared memory through matrix descriptors (PTX ISA, "Matrix Descriptor Format").
//   swizzle 0: 8 x 8 core matrices of 128 contiguous bytes; the core matrix at (row block r,
//              k block c) sits at (c * 8 + r) * 128, so LBO (next k block) = 1024 bytes and
//              SBO (next 8 rows) = 128 bytes.
//   swizzle 128: rows of 128 bytes (64 halves of K), 8-row atoms of 1024 bytes, SBO = 1024;
//              the 16-byte chunk index (address bits 4-6) is XORed with the row in the atom
//              (bits 7-9), as the 128-byte swizzle mode reads it.
// tma_wgmma_gemm stages the same tiles with TMA instead: 2D tensor maps with the 128-byte
// swizzle put each 64 x 64 tile in shared memory exactly where the swizzle-128 descriptors read
// it, completing on an mbarrier (Hopper GEMM mainloops' pattern, one stage). With b_mn_major, B
// comes as it usually lies, row-major K x N (N contiguous): the TMA box is 64 columns of N (128
// bytes) by 64 rows of K, which is wgmma's MN-major 128-byte-swizzled layout (PTX ISA canonical
// layout ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)), T = 8 halves): K row kk at kk * 128 bytes, so
// SBO (the next 8 K rows) = 1024 and each k16 step starts 2048 bytes further; imm-trans-b = 1.
// ptx-targets: 90a
#include <cuda.h>
#include <cuda/ptx>
#include <cuda_fp16.h>
#include <stdint.h>

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ uint64_t descriptor(const void* smem, uint32_t lbo, uint32_t sbo, uint32_t mode) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return uint64_t((addr >> 4) & 0x3fff) | (uint64_t((lbo >> 4) & 0x3fff) << 16) | (uint64_t((sbo >> 4) & 0x3fff) << 32) |
         (uint64_t(mode) << 62);
}

// Byte offset of element (row, k) of a 64 x 64 half tile in the chosen layout.
__device__ uint32_t tile_offset(int row, int k, int swizzle) {
  if (swizzle == 0) return ((k / 8) * 8 + row / 8) * 128 + (row % 8) * 16 + (k % 8) * 2;
  const uint32_t linear = row * 128 + k * 2;
  return linear ^ (((linear >> 7) & 7) << 4);
}

// Four m64n64k16 MMAs over one 64 x 64 x 64 step, A and B read through matrix descriptors (B
// MN-major and 128-byte swizzled when BMnMajor).
template <bool BMnMajor = false>
__device__ void mma_tile(float (&d)[32], const __half* sa, const __half* sb, int swizzle) {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  for (int ks = 0; ks < 4; ++ks) {
    // The k16 step: two core matrices further along K (swizzle 0), or 32 bytes into the row.
    const uint32_t step = swizzle == 0 ? ks * 2 * 1024 : ks * 32;
    const uint32_t lbo = swizzle == 0 ? 1024 : 16, sbo = swizzle == 0 ? 128 : 1024, mode = swizzle == 0 ? 0 : 1;
    const uint64_t da = descriptor(reinterpret_cast<const char*>(sa) + step, lbo, sbo, mode);
    const uint64_t db = BMnMajor ? descriptor(reinterpret_cast<const char*>(sb) + ks * 2048, 8192, 1024, 1)
                                 : descriptor(reinterpret_cast<const char*>(sb) + step, lbo, sbo, mode);
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, p, 1, 1, 0, %34;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(da), "l"(db), "n"(BMnMajor ? 1 : 0));
  }
}

// Writes a warpgroup's 64 x 64 accumulator tile at (m0, n0) of C (n columns).
__device__ void store_tile(const float (&d)[32], float* c, int m0, int n0, int n) {
  // Accumulator layout (PTX ISA, wgmma .m64nNk16 D fragment): warp w holds rows 16w..16w+15;
  // register i of lane l is row g + 8 ((i / 2) % 2), column 8 (i / 4) + 2 t + i % 2, g = l / 4, t = l % 4.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  for (int i = 0; i < 32; ++i) {
    const int row = 16 * warp + g + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * t + i % 2;
    c[(m0 + row) * n + n0 + col] = d[i];
  }
}
#endif

extern "C" __global__ void wgmma_gemm(const __half* __restrict__ a, const __half* __restrict__ bt, float* __restrict__ c, int n,
                                      int k_total, int swizzle) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ alignas(1024) __half sa[64 * 64];
  __shared__ alignas(1024) __half sb[64 * 64];
  const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  for (int k0 = 0; k0 < k_total; k0 += 64) {
    for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x) {
      const int row = i / 64, k = i % 64;
      *reinterpret_cast<__half*>(reinterpret_cast<char*>(sa) + tile_offset(row, k, swizzle)) = a[(m0 + row) * k_total + k0 + k];
      *reinterpret_cast<__half*>(reinterpret_cast<char*>(sb) + tile_offset(row, k, swizzle)) = bt[(n0 + row) * k_total + k0 + k];
    }
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // the generic stores are seen by wgmma's async proxy
    mma_tile(d, sa, sb, swizzle);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    __syncthreads();  // the tiles are read before the next are written
  }
  store_tile(d, c, m0, n0, n);
#endif
}

extern "C" __global__ void tma_wgmma_gemm(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                                          float* __restrict__ c, int n, int k_total, int b_mn_major) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ alignas(1024) __half sa[64 * 64];
  __shared__ alignas(1024) __half sb[64 * 64];
  __shared__ alignas(8) uint64_t full;
  const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&full, 1);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // the copy engine sees the initialised barrier
  }
  __syncthreads();
  float d[32];
  for (int i = 0; i < 32; ++i) d[i] = 0.0f;
  uint32_t phase = 0;
  for (int k0 = 0; k0 < k_total; k0 += 64, phase ^= 1) {
    if (threadIdx.x == 0) {
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full,
                                           uint32_t(sizeof(sa) + sizeof(sb)));
      // Coordinates innermost first: A's and B^T's rows run along K; row-major B's along N.
      const int ca[2] = {k0, m0}, cb[2] = {b_mn_major ? n0 : k0, b_mn_major ? k0 : n0};
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, sa, &a_map, ca, &full);
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, sb, &b_map, cb, &full);
    }
    while (!cuda::ptx::mbarrier_try_wait_parity(&full, phase)) {
    }
    if (b_mn_major) {
      mma_tile<true>(d, sa, sb, 128);
    } else {
      mma_tile(d, sa, sb, 128);
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    __syncthreads();  // both tiles are read before the next copies overwrite them
  }
  store_tile(d, c, m0, n0, n);
#endif
}
