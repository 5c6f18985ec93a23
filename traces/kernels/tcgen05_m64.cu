// Blackwell's M = 64 tcgen05.mma and the 16-lane tcgen05.ld shapes that read its accumulator
// (sm_100a only): C = A B for A (M x K, row-major) and B given as B^T (N x K, row-major), f16
// inputs, f32 results. One CTA of 128 threads per 64 x 128 tile of C: thread 0 issues m64n128k16
// MMAs from 128-byte-swizzled K-major shared-memory tiles (as tcgen05_gemm.cu does for M = 128).
// With M = 64 the accumulator takes half the data path (the PTX ISA's layout F): rows 16 w to
// 16 w + 15 in lanes 32 w to 32 w + 15, one column per element, so warp w reads its 16 rows
// with a 16-lane shape. `shape` picks which, and where each register lands follows that shape's
// matrix fragment (PTX ISA, tcgen05.ld; read as CUTLASS's SM100 TMEM copy traits lay it out):
//   0  .16x256b.x4    register r of thread l: row l/4 + 8 ((r/2)%2), column r%2 + 2 (l%4) + 8 (r/4)
//   1  .16x128b.x4    row l/4 + 8 (r%2), column l%4 + 4 (r/2)
//   2  .16x64b.x8     row l/4 + 8 (l%2), column (l/2)%2 + 2 r
//   3  .16x32bx2.x8, immHalfSplitoff 8: row l%16, column r (+ 8 for l >= 16)
// Every launch writes the same C; the GPU suite compares each with the reference, which checks
// the fragment maps as well as the MMA.
// ptx-targets: 100a
#include <cuda_fp16.h>
#include <stdint.h>

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
// tcgen05 shared-memory descriptor: start, LBO, SBO (>> 4), version 1 (bit 46), layout 2 =
// 128-byte swizzle (bits 61-63).
__device__ uint64_t m64_descriptor(const void* smem, uint32_t lbo, uint32_t sbo) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return uint64_t((addr >> 4) & 0x3fff) | (uint64_t((lbo >> 4) & 0x3fff) << 16) | (uint64_t((sbo >> 4) & 0x3fff) << 32) |
         (uint64_t(1) << 46) | (uint64_t(2) << 61);
}

// Byte offset of element (row, k) of a tile of 64-half rows: rows of 128 bytes, 8-row atoms,
// the 16-byte chunk XORed with the row in its atom.
__device__ uint32_t m64_swizzled(int row, int k) {
  const uint32_t linear = row * 128 + k * 2;
  return linear ^ (((linear >> 7) & 7) << 4);
}

#define M64_R8(v, o) "=r"(v[o]), "=r"(v[o + 1]), "=r"(v[o + 2]), "=r"(v[o + 3]), "=r"(v[o + 4]), "=r"(v[o + 5]), "=r"(v[o + 6]), "=r"(v[o + 7])
#endif

extern "C" __global__ void tcgen05_m64(const __half* __restrict__ a, const __half* __restrict__ bt, float* __restrict__ c, int n,
                                       int k_total, int shape) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  __shared__ alignas(1024) __half sa[64 * 64];
  __shared__ alignas(1024) __half sb[128 * 64];
  __shared__ uint32_t tmem_base;
  __shared__ alignas(8) uint64_t bar;
  const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 128, warp = threadIdx.x / 32, l = threadIdx.x % 32;
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (warp == 0) {
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(&tmem_base));
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;\n" ::"r"(dst) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" ::: "memory");
  }
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar_addr) : "memory");
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
  const uint32_t tmem = tmem_base;
  // D format f32 (bit 4), A and B f16 (0), both K-major, N / 8 at bit 17, M / 16 at bit 24.
  const uint32_t idesc = (1u << 4) | ((128u >> 3) << 17) | ((64u >> 4) << 24);
  uint32_t phase = 0;
  for (int k0 = 0; k0 < k_total; k0 += 64) {
    for (int i = threadIdx.x; i < 128 * 64; i += blockDim.x) {
      const int row = i / 64, k = i % 64;
      if (row < 64) *reinterpret_cast<__half*>(reinterpret_cast<char*>(sa) + m64_swizzled(row, k)) = a[(m0 + row) * k_total + k0 + k];
      *reinterpret_cast<__half*>(reinterpret_cast<char*>(sb) + m64_swizzled(row, k)) = bt[(n0 + row) * k_total + k0 + k];
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // the stores are seen by the tensor cores' async proxy
    asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
      for (int ks = 0; ks < 4; ++ks) {  // k16 steps: 32 bytes further along each row
        const uint64_t da = m64_descriptor(reinterpret_cast<char*>(sa) + ks * 32, 16, 1024);
        const uint64_t db = m64_descriptor(reinterpret_cast<char*>(sb) + ks * 32, 16, 1024);
        const uint32_t accumulate = (k0 > 0 || ks > 0) ? 1 : 0;
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
            "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n" ::"r"(tmem),
            "l"(da), "l"(db), "r"(idesc), "r"(accumulate)
            : "memory");
      }
      asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" ::"r"(bar_addr) : "memory");
    }
    asm volatile(
        "{\n.reg .pred %%done;\nWAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 %%done, [%0], %1;\n"
        "@!%%done bra WAIT_%=;\n}\n" ::"r"(bar_addr),
        "r"(phase)
        : "memory");
    phase ^= 1;
    asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
    __syncthreads();
  }
  // Warp w: rows 16 w.. of the tile, in its lanes 32 w to 32 w + 15.
  const uint32_t taddr = tmem + (uint32_t(32 * warp) << 16);
  float* tile = c + (m0 + 16 * warp) * n + n0;
  uint32_t v[16];
  if (shape == 0) {
    for (int col = 0; col < 128; col += 32) {
      asm volatile(
          "tcgen05.ld.sync.aligned.16x256b.x4.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, [%16];\n"
          : M64_R8(v, 0), M64_R8(v, 8)
          : "r"(taddr + col));
      asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
      for (int r = 0; r < 16; ++r) tile[(l / 4 + 8 * ((r / 2) % 2)) * n + col + r % 2 + 2 * (l % 4) + 8 * (r / 4)] = __uint_as_float(v[r]);
    }
  } else {
    for (int col = 0; col < 128; col += 16) {
      if (shape == 1) {
        asm volatile("tcgen05.ld.sync.aligned.16x128b.x4.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];\n" : M64_R8(v, 0) : "r"(taddr + col));
      } else if (shape == 2) {
        asm volatile("tcgen05.ld.sync.aligned.16x64b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];\n" : M64_R8(v, 0) : "r"(taddr + col));
      } else {
        asm volatile("tcgen05.ld.sync.aligned.16x32bx2.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8], 8;\n" : M64_R8(v, 0) : "r"(taddr + col));
      }
      asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
      for (int r = 0; r < 8; ++r) {
        const int row = shape == 1 ? l / 4 + 8 * (r % 2) : shape == 2 ? l / 4 + 8 * (l % 2) : l % 16;
        const int column = shape == 1 ? l % 4 + 4 * (r / 2) : shape == 2 ? (l / 2) % 2 + 2 * r : r + (l >= 16 ? 8 : 0);
        tile[row * n + col + column] = __uint_as_float(v[r]);
      }
    }
  }
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  __syncthreads();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;\n" ::"r"(tmem) : "memory");
#endif
}
