// ptx-targets: 100
// Three ways to hand a GPU 1184 tiles of uneven work, for docs/tutorials/scheduling.md. A quarter
// of the tiles, spread irregularly, take twelve times as long as the rest, and every CTA first
// sets up a table in shared memory (standing for a real kernel's prologue: barriers, descriptors,
// tensor memory). Each tile's result is added into out[tile], so a tile done twice or never shows.
//   tiles_per_cta:       one CTA per tile; the hardware scheduler starts a new CTA as one ends.
//   tiles_persistent:    as many CTAs as the GPU holds; CTA c takes tiles c, c + G, c + 2G, ...
//   tiles_work_stealing: one CTA per tile, but a CTA that finishes a tile cancels a CTA not yet
//                        launched (Blackwell's cluster launch control) and does its tile.
#include <stdint.h>

// 768 steps for about one tile in four (picked by a hash), 64 for the others.
__device__ uint32_t sched_steps(uint32_t tile) {
  uint32_t h = tile * 0x9E3779B1u;
  h = (h ^ (h >> 15)) * 0x85EBCA77u;
  h ^= h >> 13;
  return (h >> 30) == 0 ? 768u : 64u;
}

__device__ void sched_prologue(float* table) {
  for (uint32_t i = threadIdx.x; i < 1024; i += blockDim.x) table[i] = 0.5f * i;
  __syncthreads();
}

// A dependent chain of multiply-adds per thread: the tile's time is its steps' latency.
__device__ void sched_tile(float* out, const float* table, uint32_t tile) {
  float v = table[threadIdx.x % 1024];
  for (uint32_t k = sched_steps(tile); k > 0; --k) v = v * 0.999f + 1.0f;
  if (threadIdx.x == 0) atomicAdd(&out[tile], v);
}

extern "C" __global__ void tiles_per_cta(float* out) {
  __shared__ float table[1024];
  sched_prologue(table);
  sched_tile(out, table, blockIdx.x);
}

extern "C" __global__ void tiles_persistent(float* out, uint32_t tiles) {
  __shared__ float table[1024];
  sched_prologue(table);
  for (uint32_t t = blockIdx.x; t < tiles; t += gridDim.x) sched_tile(out, table, t);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
__device__ uint32_t sched_smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
#endif

extern "C" __global__ void tiles_work_stealing(float* out) {
  __shared__ float table[1024];
  sched_prologue(table);
  uint32_t tile = blockIdx.x;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
  __shared__ uint4 answer;
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sched_smem(&bar)) : "memory");
  __syncthreads();
  for (uint32_t parity = 0;; parity ^= 1) {
    // Ask for the next tile now; the answer comes while this one is worked on.
    if (threadIdx.x == 0) {
      asm volatile(
          "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%1], 16;\n\t"
          "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];" ::"r"(sched_smem(&answer)),
          "r"(sched_smem(&bar))
          : "memory");
    }
    sched_tile(out, table, tile);
    uint32_t more;
    asm volatile(
        "{\n\t.reg .pred done, p;\n\t.reg .b128 r;\n"
        "sched_wait_%=:\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%2], %3;\n\t"
        "@!done bra sched_wait_%=;\n\t"
        "ld.shared.b128 r, [%1];\n\t"
        "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, r;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(more)
        : "r"(sched_smem(&answer)), "r"(sched_smem(&bar)), "r"(parity)
        : "memory");
    if (more) {
      asm volatile(
          "{\n\t.reg .b128 r;\n\tld.shared.b128 r, [%1];\n\t"
          "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %0, r;\n\t}"
          : "=r"(tile)
          : "r"(sched_smem(&answer))
          : "memory");
    }
    __syncthreads();  // every thread has read the answer before thread 0 asks again
    if (!more) break;
  }
#else
  sched_tile(out, table, tile);
#endif
}
