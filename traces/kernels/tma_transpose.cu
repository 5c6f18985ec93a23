// Hopper's tensor memory accelerator (TMA): cp.async.bulk.tensor.2d copies a 32 x 32 box of a
// row-major float matrix (described by a CUtensorMap, passed as a __grid_constant__ parameter)
// into shared memory, completing on an mbarrier; the CTA then writes the tile transposed. Boxes
// past the matrix's edge read zeros there (not stored). Before sm_90 the kernel is empty (the
// launch file requires 9.0).
#include <cuda.h>
#include <cuda/barrier>
#include <cuda/ptx>
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

extern "C" __global__ void tma_transpose(const __grid_constant__ CUtensorMap in_map, float* __restrict__ out, int width, int height) {
#if __CUDA_ARCH__ >= 900
  __shared__ alignas(128) float tile[32][32];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  }
  __syncthreads();
  block_barrier::arrival_token token;
  if (threadIdx.x == 0) {
    int coords[2] = {int(blockIdx.x * 32), int(blockIdx.y * 32)};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, &tile, &in_map, coords,
                                    cuda::device::barrier_native_handle(bar));
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) {
    int r = i / 32, c = i % 32;
    int x = blockIdx.y * 32 + r, y = blockIdx.x * 32 + c;
    if (x < height && y < width) out[size_t(y) * height + x] = tile[r][c];
  }
#endif
}
