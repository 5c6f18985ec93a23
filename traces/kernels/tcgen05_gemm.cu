// Blackwell's fifth-generation tensor cores (tcgen05, sm_100a only): C = A B for A (M x K,
// row-major) and B given as B^T (N x K, row-major), f16 inputs, f32 results. One CTA of 128
// threads per 128 x 128 tile of C: warp 0 allocates 128 columns of tensor memory, thread 0 issues
// the m128n128k16 MMAs (A and B from shared memory, 128-byte swizzled K-major tiles, through
// tcgen05 shared-memory descriptors) and commits them to an mbarrier that every thread waits on;
// then each warp reads its 32 lanes (rows) of the accumulator out of tensor memory.
// With b_mn_major, B comes row-major (K x N, N contiguous) and is read MN-major (instruction
// descriptor bit 16): the PTX ISA's canonical 128-byte-swizzled MN-major layout
// ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)), T = 8 halves, puts 64 columns of N in each 128-byte row
// and K rows 128 bytes apart, so SBO (8 K rows) = 1024, LBO (the next 64 columns of N) = 8192
// (a 64 x 64 block), and each k16 step starts 2048 bytes further.
// With a_in_tmem, A skips shared memory: each thread writes its row of the A tile into tensor
// memory with tcgen05.st (lane = row, two halves per 32-bit column, the lower k in the low half)
// and the MMA reads A from there ([a-tmem], the form attention kernels use for P x V).
// With fp4, the same bytes are read as FP4 (E2M1) through kind::f8f6f4: the kernel moves bytes
// unchanged, so A and B^T arrive already in the shared-memory packing that kind requires (in each
// 16-byte chunk, 16 elements in the low 8 bytes, then 8 bytes of padding: PTX ISA, "Packing
// formats of elements in Tensor and Shared memory"), and each k32 step reads 32 bytes, as f16's
// k16 does.
// ptx-targets: 100a
#include <cuda_fp16.h>
#include <stdint.h>

#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
// tcgen05 shared-memory descriptor: start, LBO, SBO (>> 4), version 1 (bit 46), layout 2 =
// 128-byte swizzle (bits 61-63).
__device__ uint64_t tc_descriptor(const void* smem, uint32_t lbo, uint32_t sbo) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return uint64_t((addr >> 4) & 0x3fff) | (uint64_t((lbo >> 4) & 0x3fff) << 16) | (uint64_t((sbo >> 4) & 0x3fff) << 32) |
         (uint64_t(1) << 46) | (uint64_t(2) << 61);
}

// Byte offset of element (row, k) of a 128 x 64 half tile: rows of 128 bytes, 8-row atoms, the
// 16-byte chunk XORed with the row in its atom.
__device__ uint32_t swizzled(int row, int k) {
  const uint32_t linear = row * 128 + k * 2;
  return linear ^ (((linear >> 7) & 7) << 4);
}
#endif

extern "C" __global__ void tcgen05_gemm(const __half* __restrict__ a, const __half* __restrict__ b, float* __restrict__ c, int n,
                                        int k_total, int b_mn_major, int a_in_tmem, int fp4) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
  __shared__ alignas(1024) __half sa[128 * 64];
  __shared__ alignas(1024) __half sb[128 * 64];
  __shared__ uint32_t tmem_base;
  __shared__ alignas(8) uint64_t bar;
  const int m0 = blockIdx.y * 128, n0 = blockIdx.x * 128, warp = threadIdx.x / 32;
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  if (warp == 0) {
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(&tmem_base));
    // Columns 0-127 hold D (128 x 128 f32), columns 128-159 the A tile when it lives here.
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;\n" ::"r"(dst) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" ::: "memory");
  }
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar_addr) : "memory");
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
  const uint32_t tmem = tmem_base;
  // D format f32 (bit 4), A and B f16 (0), A K-major, B K-major or MN-major (bit 16), N / 8 at
  // bit 17, M / 16 at bit 24.
  // With fp4: A and B format 5 (E2M1) of kind::f8f6f4.
  const uint32_t idesc = (1u << 4) | (fp4 ? (5u << 7) | (5u << 10) : 0u) | (uint32_t(b_mn_major != 0) << 16) | ((128u >> 3) << 17) |
                         ((128u >> 4) << 24);
  uint32_t phase = 0;
  for (int k0 = 0; k0 < k_total; k0 += 64) {
    for (int i = threadIdx.x; i < 128 * 64; i += blockDim.x) {
      const int row = i / 64, k = i % 64;
      if (!a_in_tmem) *reinterpret_cast<__half*>(reinterpret_cast<char*>(sa) + swizzled(row, k)) = a[(m0 + row) * k_total + k0 + k];
      if (!b_mn_major) *reinterpret_cast<__half*>(reinterpret_cast<char*>(sb) + swizzled(row, k)) = b[(n0 + row) * k_total + k0 + k];
    }
    for (int i = threadIdx.x; b_mn_major && i < 128 * 64; i += blockDim.x) {
      const int kk = i / 128, col = i % 128;  // consecutive threads read consecutive columns of row-major B
      *reinterpret_cast<__half*>(reinterpret_cast<char*>(sb) + (col / 64) * 8192 + swizzled(kk, col % 64)) = b[(k0 + kk) * n + n0 + col];
    }
    if (a_in_tmem) {
      // Thread t of warp w: row 32 w + t of the A tile, 64 halves packed into 32 columns.
      const __half* row_a = a + (m0 + 32 * warp + threadIdx.x % 32) * k_total + k0;
      uint32_t p[32];
      for (int j = 0; j < 32; ++j)
        p[j] = uint32_t(__half_as_ushort(row_a[2 * j])) | (uint32_t(__half_as_ushort(row_a[2 * j + 1])) << 16);
      asm volatile(
          "tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "
          "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32};\n" ::"r"(tmem + (uint32_t(32 * warp) << 16) + 128),
          "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]), "r"(p[4]), "r"(p[5]), "r"(p[6]), "r"(p[7]), "r"(p[8]), "r"(p[9]), "r"(p[10]),
          "r"(p[11]), "r"(p[12]), "r"(p[13]), "r"(p[14]), "r"(p[15]), "r"(p[16]), "r"(p[17]), "r"(p[18]), "r"(p[19]), "r"(p[20]),
          "r"(p[21]), "r"(p[22]), "r"(p[23]), "r"(p[24]), "r"(p[25]), "r"(p[26]), "r"(p[27]), "r"(p[28]), "r"(p[29]), "r"(p[30]), "r"(p[31])
          : "memory");
      asm volatile("tcgen05.wait::st.sync.aligned;\n" ::: "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // the stores are seen by the tensor cores' async proxy
    asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");  // ... and the tensor-memory stores by the MMA
    __syncthreads();
    if (threadIdx.x == 0) {
      asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
      for (int ks = 0; ks < 4; ++ks) {
        const uint64_t da = tc_descriptor(reinterpret_cast<char*>(sa) + ks * 32, 16, 1024);
        const uint64_t db = b_mn_major ? tc_descriptor(reinterpret_cast<char*>(sb) + ks * 2048, 8192, 1024)
                                       : tc_descriptor(reinterpret_cast<char*>(sb) + ks * 32, 16, 1024);
        const uint32_t accumulate = (k0 > 0 || ks > 0) ? 1 : 0;
        if (fp4) {
          asm volatile(
              "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
              "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p;\n}\n" ::"r"(tmem),
              "l"(da), "l"(db), "r"(idesc), "r"(accumulate)
              : "memory");
        } else if (a_in_tmem) {  // the k16 step: 16 halves, 8 columns further
          asm volatile(
              "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
              "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n}\n" ::"r"(tmem),
              "r"(tmem + 128 + ks * 8), "l"(db), "r"(idesc), "r"(accumulate)
              : "memory");
        } else {
          asm volatile(
              "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
              "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n" ::"r"(tmem),
              "l"(da), "l"(db), "r"(idesc), "r"(accumulate)
              : "memory");
        }
      }
      asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" ::"r"(bar_addr) : "memory");
    }
    // Every thread waits for the MMAs (the tiles may then be overwritten and D read).
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
  // Warp w reads lanes 32w..32w+31 (rows of the tile), 16 columns at a time.
  const int row = 32 * warp + threadIdx.x % 32;
  for (int col = 0; col < 128; col += 16) {
    uint32_t v[16];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, [%16];\n"
        : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7]), "=r"(v[8]), "=r"(v[9]),
          "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]), "=r"(v[15])
        : "r"(tmem + (uint32_t(32 * warp) << 16) + col));
    asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
    for (int j = 0; j < 16; ++j) c[(m0 + row) * n + n0 + col + j] = __uint_as_float(v[j]);
  }
  asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
  __syncthreads();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;\n" ::"r"(tmem) : "memory");
#endif
}
