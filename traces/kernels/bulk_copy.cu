// Hopper's bulk asynchronous copy (TMA, cp.async.bulk) completing on an mbarrier, through
// libcu++ (cuda::memcpy_async with cuda::barrier, as CUDA programs write it): each CTA streams
// `tiles` tiles of 1024 floats through two shared-memory buffers, copying tile t + 1 while it
// scales tile t. Before sm_90 the kernel is empty (the launch file requires 9.0).
#include <cuda/barrier>
#include <cuda/ptx>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

extern "C" __global__ void bulk_scale(const float* __restrict__ in, float* __restrict__ out, float s, int tiles) {
#if __CUDA_ARCH__ >= 900
  constexpr int kTile = 1024;
  __shared__ alignas(128) float buf[2][kTile];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bars[2];
  if (threadIdx.x == 0) {
    init(&bars[0], blockDim.x);
    init(&bars[1], blockDim.x);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // make the initialised barriers visible to the copy engine
  }
  __syncthreads();
  const float* src = in + size_t(blockIdx.x) * tiles * kTile;
  float* dst = out + size_t(blockIdx.x) * tiles * kTile;
  if (threadIdx.x == 0)
    cuda::memcpy_async(buf[0], src, cuda::aligned_size_t<16>(sizeof(float) * kTile), bars[0]);
  for (int t = 0; t < tiles; ++t) {
    const int b = t & 1;
    if (threadIdx.x == 0 && t + 1 < tiles)
      cuda::memcpy_async(buf[b ^ 1], src + (t + 1) * kTile, cuda::aligned_size_t<16>(sizeof(float) * kTile), bars[b ^ 1]);
    bars[b].arrive_and_wait();
    for (int i = threadIdx.x; i < kTile; i += blockDim.x) dst[t * kTile + i] = s * buf[b][i];
    __syncthreads();  // buffer b is refilled at iteration t + 1
  }
#endif
}
