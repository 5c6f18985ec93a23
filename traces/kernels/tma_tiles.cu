// Hopper's tensor memory accelerator in three dimensions, swizzled, both ways: each CTA loads a
// 32 x 8 x 2 box of a float tensor (128-byte rows) through a tensor map with the 128-byte swizzle,
// so the box lands in shared memory with its 16-byte chunks permuted (chunk c of row r at chunk
// c ^ (r % 8)); the threads read it through the same permutation, write 2x + 1 into a plain tile,
// and one thread stores that tile through a second, unswizzled tensor map with a TMA tensor store
// (cp.async.bulk.tensor.3d.global.shared::cta.bulk_group). Boxes past the tensor's edge load
// zeros there and store nothing there. Before sm_90 the kernel is empty (the launch file requires 9.0).
#include <cuda.h>
#include <cuda/barrier>
#include <cuda/ptx>
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

extern "C" __global__ void tma_scale_3d(const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map) {
#if __CUDA_ARCH__ >= 900
  // 1024-byte alignment: the swizzle pattern follows shared-memory address bits 4-9.
  __shared__ alignas(1024) float in_tile[2 * 8 * 32];
  __shared__ alignas(128) float out_tile[2 * 8 * 32];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  }
  __syncthreads();
  const int coords[3] = {int(blockIdx.x * 32), int(blockIdx.y * 8), int(blockIdx.z * 2)};
  block_barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, in_tile, &in_map, coords,
                                    cuda::device::barrier_native_handle(bar));
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(in_tile));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int i = threadIdx.x; i < 2 * 8 * 32; i += blockDim.x) {
    const unsigned byte = i * 4u, swizzled = byte ^ (((byte >> 7) & 7u) << 4);
    out_tile[i] = 2.0f * in_tile[swizzled / 4] + 1.0f;
  }
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // the threads' stores are seen by the copy engine
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, &out_map, coords, out_tile);
    cuda::ptx::cp_async_bulk_commit_group();
    cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());  // the shared tile must outlive the copy
  }
#endif
}
