// Hopper's bulk asynchronous store (TMA, cp.async.bulk shared -> global in a bulk group), through
// libcu++'s cuda::ptx wrappers: each CTA fills a 1 KiB tile in shared memory, and one thread
// writes it to global memory with one bulk copy, then waits for the group. Before sm_90 the
// kernel is empty (the launch file requires 9.0).
#include <cuda/ptx>

extern "C" __global__ void bulk_store(float* __restrict__ out) {
#if __CUDA_ARCH__ >= 900
  __shared__ alignas(128) float tile[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) tile[i] = (blockIdx.x * 256 + i) * 0.5f;
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // the threads' stores are seen by the copy engine
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, out + blockIdx.x * 256, tile, 1024);
    cuda::ptx::cp_async_bulk_commit_group();
    cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>());  // the shared tile must outlive the copy
  }
#endif
}
