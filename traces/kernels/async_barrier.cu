// Ampere's asynchronous barrier, as the CUDA programming guide writes it: cuda::memcpy_async of
// a block's tile into shared memory completing on a cuda::barrier (cp.async and
// cp.async.mbarrier.arrive, then mbarrier.arrive and test_wait, from sm_80; before, libcu++'s
// barrier of atomics and a spin on its phase). out[i] = 3 * in[block's tile reversed].
#include <cooperative_groups.h>
#include <cuda/barrier>

namespace cg = cooperative_groups;

extern "C" __global__ void async_barrier(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ alignas(16) float tile[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * 256, sizeof(float) * 256, bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x] * 3.0f;
}
