// Warp specialisation and the CTA barriers beyond __syncthreads, as CUTLASS-style kernels use
// them: named barriers (bar.sync/bar.arrive with an id and a thread count), __syncthreads_count/
// _and/_or (bar.red), and a producer warp handing tiles to consumer warps through mbarriers.
#include <cstdint>

__device__ __forceinline__ void named_sync(int id, int threads) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory"); }
__device__ __forceinline__ void named_arrive(int id, int threads) { asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory"); }

// One producer warpgroup (threads 0-127) fills a two-stage ring of 256-float tiles; two consumer
// warpgroups (128-383) each reduce 2 * x over a tile. Barriers 1-2 say "stage full" (the
// producer arrives, consumers wait), 3-4 "stage empty" (the reverse), 5 synchronises the
// consumers alone, around their cross-warp sum. out[t] = 2 * sum of tile t.
constexpr int kTile = 256, kStages = 2;
extern "C" __global__ void named_pipeline(const float* __restrict__ in, float* __restrict__ out, int tiles) {
  __shared__ float ring[kStages][kTile];
  __shared__ float partial[8];
  const int t = threadIdx.x;
  const float* src = in + blockIdx.x * tiles * kTile;
  if (t < 128) {
    for (int i = 0; i < tiles; ++i) {
      const int s = i % kStages;
      if (i >= kStages) named_sync(3 + s, 384);  // wait until the consumers emptied the stage
      ring[s][t] = src[i * kTile + t];
      ring[s][t + 128] = src[i * kTile + t + 128];
      named_arrive(1 + s, 384);  // stage full
    }
  } else {
    const int c = t - 128;
    for (int i = 0; i < tiles; ++i) {
      const int s = i % kStages;
      named_sync(1 + s, 384);  // wait until the stage is full
      float v = ring[s][c] * 2.0f;
      for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
      if ((c & 31) == 0) partial[c / 32] = v;
      named_sync(5, 256);
      if (c == 0) {
        float sum = 0.0f;
        for (int k = 0; k < 8; ++k) sum += partial[k];
        out[blockIdx.x * tiles + i] = sum;
      }
      named_sync(5, 256);  // partial[] is free again
      if (i + kStages < tiles) named_arrive(3 + s, 384);  // stage empty
    }
  }
}

// Per CTA: how many threads see x > threshold (__syncthreads_count), whether all see x >= 0
// (__syncthreads_and) and whether any sees x == 77 (__syncthreads_or); then the first two warps
// alone count x odd over barrier 1 with 64 threads (bar.red.popc with a thread count). Thread 0
// writes the four results.
extern "C" __global__ void sync_reduce(const int* __restrict__ x, int* __restrict__ out, int threshold) {
  const int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  const int above = __syncthreads_count(v > threshold);
  const int all_positive = __syncthreads_and(v >= 0);
  const int any_77 = __syncthreads_or(v == 77);
  unsigned odd = 0;
  if (threadIdx.x < 64) asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; bar.red.popc.u32 %0, 1, 64, p; }" : "=r"(odd) : "r"(v & 1));
  if (threadIdx.x == 0) {
    out[blockIdx.x * 4 + 0] = above;
    out[blockIdx.x * 4 + 1] = all_positive;
    out[blockIdx.x * 4 + 2] = any_77;
    out[blockIdx.x * 4 + 3] = static_cast<int>(odd);
  }
}

#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ void mbar_init(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("{ .reg .b64 state; mbarrier.arrive.shared::cta.b64 state, [%0]; }" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(bar)))
               : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, unsigned parity) {
  asm volatile(
      "{ .reg .pred done;\n"
      "wait_%=: mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=; }" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))),
      "r"(parity)
      : "memory");
}
#endif

// Warp 0 produces, warps 1-3 consume, through mbarriers only (no __syncthreads in the loop): the
// producer writes a 96-float tile into one of two stages with plain shared stores and one lane
// arrives on full[s] (count 1); each consumer warp waits on full[s], reads its 32 floats, and one
// lane arrives on empty[s] (count 3), which the producer waits on before refilling the stage.
// out[i] = in[i] * in[i] + 1.
extern "C" __global__ void mbarrier_pipeline(const float* __restrict__ in, float* __restrict__ out, int tiles) {
#if __CUDA_ARCH__ >= 900
  constexpr int kWidth = 96;
  __shared__ float stage[2][kWidth];
  __shared__ alignas(8) uint64_t full[2], empty[2];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s) mbar_init(&full[s], 1), mbar_init(&empty[s], 3);
  }
  __syncthreads();
  const float* src = in + blockIdx.x * tiles * kWidth;
  float* dst = out + blockIdx.x * tiles * kWidth;
  if (warp == 0) {
    for (int i = 0; i < tiles; ++i) {
      const int s = i & 1;
      if (i >= 2) mbar_wait(&empty[s], ((i - 2) >> 1) & 1);
      for (int k = lane; k < kWidth; k += 32) stage[s][k] = src[i * kWidth + k];
      __syncwarp();
      if (lane == 0) mbar_arrive(&full[s]);
    }
  } else {
    const int k = (warp - 1) * 32 + lane;
    for (int i = 0; i < tiles; ++i) {
      const int s = i & 1;
      mbar_wait(&full[s], (i >> 1) & 1);
      const float v = stage[s][k];
      dst[i * kWidth + k] = v * v + 1.0f;
      __syncwarp();
      if (lane == 0) mbar_arrive(&empty[s]);
    }
  }
#endif
}
