// Blackwell's block-scaled MMAs (tcgen05, sm_100a only): C (128 x 128, f32) = A B, A (M x K) and
// B given as B^T (N x K), each row's elements in blocks of 32 (or 16) that share a scale factor,
// which the tensor cores apply inside the MMA. Three modes, one CTA of 128 threads each:
//   mode 0  MXFP8: A E4M3, B E5M2, K = 128, one UE8M0 factor per 32 (kind::mxf8f6f4, scale_vec::1X)
//   mode 1  MXFP4: A and B E2M1 packed two to a byte, K = 256, UE8M0 per 32 (kind::mxf4, 2X)
//   mode 2  NVFP4: as mode 1 with a UE4M3 factor per 16 (kind::mxf4nvf4, scale_vec::4X)
// Either way a row is 128 bytes: thread t copies row t of A and B^T into shared memory as
// no-swizzle K-major core matrices (8 rows x 16 bytes; LBO 2048 bytes to the next 16 bytes of K,
// SBO 128 to the next 8 rows) and its row's scale factors into 512-byte tiles of 32 rows of 16
// bytes: factor j of row r at byte 16 (r % 32) + 4 (r / 32) + j % 4 of tile j / 4. Thread 0 copies
// each tile into four tensor-memory columns with tcgen05.cp.32x128b.warpx4 (each 32-lane group
// gets the same 32 x 128 bits), which places row r's factors in lane r, column r / 32: where the
// MMA reads them. It then issues four MMAs over K, each naming its factors by column and by the
// byte offset in the instruction descriptor (the scale factor ID: 1X reads byte ID, 2X bytes ID
// and ID + 1, 4X all four), commits them to an mbarrier and every thread reads its row of C.
// ptx-targets: 100a
#include <stdint.h>

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
// tcgen05 shared-memory descriptor: start, LBO, SBO (>> 4), version 1 (bit 46), no swizzle.
__device__ uint64_t plain_descriptor(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return uint64_t((addr >> 4) & 0x3fff) | (uint64_t((lbo >> 4) & 0x3fff) << 16) | (uint64_t((sbo >> 4) & 0x3fff) << 32) |
         (uint64_t(1) << 46);
}
#endif

extern "C" __global__ void tcgen05_block_scaled(const uint8_t* __restrict__ a, const uint8_t* __restrict__ bt,
                                                const uint8_t* __restrict__ sfa, const uint8_t* __restrict__ sfb, float* __restrict__ c,
                                                int mode) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  __shared__ alignas(1024) uint8_t sa[128 * 128];
  __shared__ alignas(1024) uint8_t sb[128 * 128];
  __shared__ alignas(128) uint8_t scale_a[4][512];
  __shared__ alignas(128) uint8_t scale_b[4][512];
  __shared__ uint32_t tmem_base;
  __shared__ alignas(8) uint64_t bar;
  const int t = threadIdx.x, warp = t / 32;
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (warp == 0) {
    // Columns 0-127: D; 128-143: A's factors (four tiles of four columns); 160-175: B's.
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(&tmem_base));
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;\n" ::"r"(dst) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" ::: "memory");
  }
  if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar_addr) : "memory");
  for (int b = 0; b < 128; ++b) {
    const int at = (b / 16) * 2048 + (t / 8) * 128 + (t % 8) * 16 + b % 16;
    sa[at] = a[t * 128 + b];
    sb[at] = bt[t * 128 + b];
  }
  const int blocks = mode == 0 ? 1 : mode == 1 ? 2 : 4;  // factors per row per MMA
  const int factors = 4 * blocks;                        // per row over the four MMAs
  for (int j = 0; j < factors; ++j) {
    scale_a[j / 4][16 * (t % 32) + 4 * (t / 32) + j % 4] = sfa[t * factors + j];
    scale_b[j / 4][16 * (t % 32) + 4 * (t / 32) + j % 4] = sfb[t * factors + j];
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // the tensor cores' async proxy sees the stores
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
  const uint32_t tmem = tmem_base;
  if (t == 0) {
    for (int i = 0; i < factors / 4; ++i) {
      const uint32_t at_a = static_cast<uint32_t>(__cvta_generic_to_shared(scale_a[i]));
      const uint32_t at_b = static_cast<uint32_t>(__cvta_generic_to_shared(scale_b[i]));
      asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;\n" ::"r"(tmem + 128 + 4 * i), "l"(plain_descriptor(at_a, 128, 128))
                   : "memory");
      asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;\n" ::"r"(tmem + 160 + 4 * i), "l"(plain_descriptor(at_b, 128, 128))
                   : "memory");
    }
    const uint32_t base_a = static_cast<uint32_t>(__cvta_generic_to_shared(sa));
    const uint32_t base_b = static_cast<uint32_t>(__cvta_generic_to_shared(sb));
    for (int s = 0; s < 4; ++s) {
      // Each MMA reads 32 bytes of every row (K = 32 FP8 or 64 FP4 values): two 16-byte columns of
      // core matrices further per step.
      const uint64_t da = plain_descriptor(base_a + s * 2 * 2048, 2048, 128);
      const uint64_t db = plain_descriptor(base_b + s * 2 * 2048, 2048, 128);
      // Factor j = blocks s + b of a row: tile j / 4, byte j % 4, so the ID is (blocks s) % 4.
      const uint32_t id = (blocks * s) % 4, column = (blocks * s) / 4 * 4;
      // Block-scaled instruction descriptor: B factors' ID (bits 4-5), A and B formats (7-9,
      // 10-12: E4M3 0, E5M2 1 for mxf8f6f4; E2M1 1 for mxf4*), N / 8 (17), the factors' type (23:
      // 1 UE8M0, 0 UE4M3), M / 16 (24), A factors' ID (29-30).
      const uint32_t formats = mode == 0 ? (0u << 7) | (1u << 10) : (1u << 7) | (1u << 10);
      const uint32_t idesc = (id << 4) | formats | ((128u >> 3) << 17) | (uint32_t(mode != 2) << 23) | ((128u >> 4) << 24) | (id << 29);
      const uint32_t accumulate = s > 0 ? 1 : 0;
      if (mode == 0) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
            "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%0], %1, %2, %3, [%4], [%5], p;\n}\n" ::"r"(tmem),
            "l"(da), "l"(db), "r"(idesc), "r"(tmem + 128 + column), "r"(tmem + 160 + column), "r"(accumulate)
            : "memory");
      } else if (mode == 1) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
            "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X [%0], %1, %2, %3, [%4], [%5], p;\n}\n" ::"r"(tmem),
            "l"(da), "l"(db), "r"(idesc), "r"(tmem + 128 + column), "r"(tmem + 160 + column), "r"(accumulate)
            : "memory");
      } else {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
            "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [%0], %1, %2, %3, [%4], [%5], p;\n}\n" ::"r"(tmem),
            "l"(da), "l"(db), "r"(idesc), "r"(tmem + 128 + column), "r"(tmem + 160 + column), "r"(accumulate)
            : "memory");
      }
    }
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" ::"r"(bar_addr) : "memory");
  }
  asm volatile(
      "{\n.reg .pred %%done;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 %%done, [%0], 0;\n"
      "@!%%done bra WAIT_%=;\n}\n" ::"r"(bar_addr)
      : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
  // Warp w reads lanes 32w..32w+31 (rows of C), 16 columns at a time.
  for (int col = 0; col < 128; col += 16) {
    uint32_t v[16];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, [%16];\n"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7]), "=r"(v[8]), "=r"(v[9]),
          "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]), "=r"(v[15])
        : "r"(tmem + (uint32_t(32 * warp) << 16) + col));
    asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
    for (int j = 0; j < 16; ++j) c[t * 128 + col + j] = __uint_as_float(v[j]);
  }
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  __syncthreads();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;\n" ::"r"(tmem) : "memory");
#endif
}
