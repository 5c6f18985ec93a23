// Blackwell's CTA-pair MMA (tcgen05 .cta_group::2, sm_100a only), the form CUTLASS's 2-SM GEMMs
// issue: C = A B for A (M x K, row-major) and B given as B^T (N x K, row-major), f16 inputs, f32
// results. A cluster of two CTAs (a CTA pair: cluster ranks 0 and 1) computes a 256 x 256 tile of C.
// Each CTA stages its own 128 rows of A and its own half of B (128 rows of B^T) in shared memory
// as 128-byte-swizzled K-major tiles at the same offsets; thread 0 of the even CTA issues the
// m256n256k16 MMAs, which read both CTAs' tiles and leave each CTA's 128 x 256 block of D in that
// CTA's tensor memory, and commits them to the mbarrier at the same offset in both CTAs
// (.multicast::cluster). Both CTAs allocate tensor memory together (one warp each,
// .cta_group::2), wait on their own mbarrier, and read their own block of D back.
// ptx-targets: 100a
#include <cuda_fp16.h>
#include <stdint.h>

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
// tcgen05 shared-memory descriptor: start, LBO, SBO (>> 4), version 1 (bit 46), layout 2 =
// 128-byte swizzle (bits 61-63).
__device__ uint64_t pair_descriptor(const void* smem, uint32_t lbo, uint32_t sbo) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return uint64_t((addr >> 4) & 0x3fff) | (uint64_t((lbo >> 4) & 0x3fff) << 16) | (uint64_t((sbo >> 4) & 0x3fff) << 32) |
         (uint64_t(1) << 46) | (uint64_t(2) << 61);
}

// Byte offset of element (row, k) of a 128 x 64 half tile: rows of 128 bytes, 8-row atoms, the
// 16-byte chunk XORed with the row in its atom.
__device__ uint32_t pair_swizzled(int row, int k) {
  const uint32_t linear = row * 128 + k * 2;
  return linear ^ (((linear >> 7) & 7) << 4);
}

// Every thread of both CTAs arrives, then waits: what each CTA wrote before is seen by the other.
__device__ void pair_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
#endif

extern "C" __global__ void __cluster_dims__(2, 1, 1) tcgen05_pair_gemm(const __half* __restrict__ a, const __half* __restrict__ bt,
                                                                       float* __restrict__ c, int n, int k_total) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  __shared__ alignas(1024) __half sa[128 * 64];
  __shared__ alignas(1024) __half sb[128 * 64];
  __shared__ uint32_t tmem_base;
  __shared__ alignas(8) uint64_t bar;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  // This CTA's rows of A and C, and its rows of B^T (columns of C).
  const int m0 = blockIdx.y * 256 + rank * 128, n0 = rank * 128, warp = threadIdx.x / 32;
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (warp == 0) {  // with the same warp of the peer CTA
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(&tmem_base));
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], 256;\n" ::"r"(dst) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;\n" ::: "memory");
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar_addr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  pair_sync();  // both CTAs' mbarriers are initialised and their tensor memory allocated
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
  const uint32_t tmem = tmem_base;
  // D format f32 (bit 4), A and B f16 (0), both K-major, N / 8 at bit 17, M / 16 at bit 24: the
  // pair's M = 256 is 128 rows in each CTA, its N = 256 half from each CTA's B tile.
  const uint32_t idesc = (1u << 4) | ((256u >> 3) << 17) | ((256u >> 4) << 24);
  uint32_t phase = 0;
  for (int k0 = 0; k0 < k_total; k0 += 64) {
    for (int i = threadIdx.x; i < 128 * 64; i += blockDim.x) {
      const int row = i / 64, k = i % 64;
      *reinterpret_cast<__half*>(reinterpret_cast<char*>(sa) + pair_swizzled(row, k)) = a[(m0 + row) * k_total + k0 + k];
      *reinterpret_cast<__half*>(reinterpret_cast<char*>(sb) + pair_swizzled(row, k)) = bt[(n0 + row) * k_total + k0 + k];
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // the stores are seen by the tensor cores' async proxy
    pair_sync();  // both CTAs' tiles are in place
    if (rank == 0 && threadIdx.x == 0) {
      asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
      for (int ks = 0; ks < 4; ++ks) {
        const uint64_t da = pair_descriptor(reinterpret_cast<char*>(sa) + ks * 32, 16, 1024);
        const uint64_t db = pair_descriptor(reinterpret_cast<char*>(sb) + ks * 32, 16, 1024);
        const uint32_t accumulate = (k0 > 0 || ks > 0) ? 1 : 0;
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
            "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n}\n" ::"r"(tmem),
            "l"(da), "l"(db), "r"(idesc), "r"(accumulate)
            : "memory");
      }
      // One arrival on the mbarrier at bar's offset in CTAs 0 and 1 (mask 0b11).
      asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;\n" ::"r"(bar_addr),
                   "h"(uint16_t(3))
                   : "memory");
    }
    // Every thread of both CTAs waits for the MMAs (the tiles may then be overwritten and D read).
    asm volatile(
        "{\n.reg .pred %%done;\nWAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 %%done, [%0], %1;\n"
        "@!%%done bra WAIT_%=;\n}\n" ::"r"(bar_addr),
        "r"(phase)
        : "memory");
    phase ^= 1;
    asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
  }
  // Warp w reads lanes 32w..32w+31 (rows of this CTA's block), 16 columns at a time.
  const int row = 32 * warp + threadIdx.x % 32;
  for (int col = 0; col < 256; col += 16) {
    uint32_t v[16];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, [%16];\n"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7]), "=r"(v[8]), "=r"(v[9]),
          "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]), "=r"(v[15])
        : "r"(tmem + (uint32_t(32 * warp) << 16) + col));
    asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
    for (int j = 0; j < 16; ++j) c[(m0 + row) * n + col + j] = __uint_as_float(v[j]);
  }
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  pair_sync();  // both CTAs are done with the pair's tensor memory
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 256;\n" ::"r"(tmem) : "memory");
#endif
}
