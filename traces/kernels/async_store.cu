// Hopper's asynchronous stores into a cluster sibling's shared memory (PTX st.async and
// red.async, through libcu++'s cuda::ptx wrappers): each store or reduction completes its bytes
// on an mbarrier in the receiving CTA, which waits for that barrier's phase instead of for a
// cluster-wide barrier. Before sm_90 the kernels are empty (the launch files require 9.0).
// ptx-targets: 90 100
#include <cooperative_groups.h>
#include <cuda/ptx>
#include <cstdint>
namespace cg = cooperative_groups;

#if __CUDA_ARCH__ >= 900
namespace {
// Initialises `bar` for one arrival and makes it visible to the cluster before anyone signals it.
__device__ void init_cluster_barrier(uint64_t* bar, cg::cluster_group& cluster) {
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(bar, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  cluster.sync();
}

__device__ void wait_phase0(uint64_t* bar) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, 0)) {
  }
}
}  // namespace
#endif

// A ring: CTA r of the cluster sends its 256 values to CTA r + 1 (wrapping), element i as
// 2 x in[i] + r, in every width st.async has: threads 0-31 send one float each (.b32), threads
// 32-63 two (.v2.b32), threads 64-95 four (.v4.b32), and threads 0-15 the last 32 as pairs packed
// in 64 bits (.b64). The receiver expects 256 x 4 bytes on its own barrier, waits for the phase,
// and copies its inbox to `out`. No cluster barrier follows: the phase says the data are there.
extern "C" __global__ void async_store_ring(const float* __restrict__ in, float* __restrict__ out) {
#if __CUDA_ARCH__ >= 900
  __shared__ float inbox[256];
  __shared__ uint64_t full;
  cg::cluster_group cluster = cg::this_cluster();
  init_cluster_barrier(&full, cluster);
  const unsigned rank = cluster.block_rank(), next = (rank + 1) % cluster.num_blocks();
  const float* src = in + blockIdx.x * 256;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full, 256 * 4);
  float* remote = cluster.map_shared_rank(inbox, next);
  uint64_t* remote_full = cluster.map_shared_rank(&full, next);
  auto value = [&](int i) { return 2.0f * src[i] + static_cast<float>(rank); };
  const int t = threadIdx.x;
  if (t < 32) {
    cuda::ptx::st_async(remote + t, value(t), remote_full);
  } else if (t < 64) {
    const int i = 32 + 2 * (t - 32);
    const float pair[2] = {value(i), value(i + 1)};
    cuda::ptx::st_async(remote + i, pair, remote_full);
  } else {
    const int i = 96 + 4 * (t - 64);
    const float quad[4] = {value(i), value(i + 1), value(i + 2), value(i + 3)};
    cuda::ptx::st_async(remote + i, quad, remote_full);
  }
  if (t < 16) {  // the last 32 floats as 64-bit stores
    const int i = 224 + 2 * t;
    const float a = value(i), b = value(i + 1);
    uint64_t bits = (uint64_t{__float_as_uint(b)} << 32) | __float_as_uint(a);
    cuda::ptx::st_async(reinterpret_cast<uint64_t*>(remote + i), bits, remote_full);
  }
  wait_phase0(&full);
  for (int i = t; i < 256; i += blockDim.x) out[blockIdx.x * 256 + i] = inbox[i];
#endif
}

// Every CTA but rank 0 reduces its 32 values into rank 0's shared accumulators with red.async
// (add, max, min, xor, inc and a 64-bit add); rank 0 expects the bytes of every reduction on its
// barrier, waits, and writes the accumulators out. Only warp 0 of each CTA sends.
extern "C" __global__ void async_reduce_to_leader(const int* __restrict__ in, uint32_t* __restrict__ out) {
#if __CUDA_ARCH__ >= 900
  __shared__ uint32_t sum[32], biggest[32], smallest[32], parity[32], wraps[32];
  __shared__ uint64_t wide[32];
  __shared__ uint64_t full;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), senders = cluster.num_blocks() - 1;
  const int t = threadIdx.x;
  if (rank == 0 && t < 32) {
    sum[t] = 0, biggest[t] = 0x80000000u, smallest[t] = 0xffffffffu, parity[t] = 0, wraps[t] = 0, wide[t] = 0;
  }
  init_cluster_barrier(&full, cluster);  // its cluster.sync also publishes the initial values
  if (rank == 0) {
    if (t == 0) {
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full, senders * 32 * (5 * 4 + 8));
    }
    wait_phase0(&full);
    if (t < 32) {
      uint32_t* o = out + (blockIdx.x / cluster.num_blocks()) * 7 * 32;
      o[t] = sum[t], o[32 + t] = biggest[t], o[64 + t] = smallest[t], o[96 + t] = parity[t], o[128 + t] = wraps[t];
      o[160 + t] = static_cast<uint32_t>(wide[t]), o[192 + t] = static_cast<uint32_t>(wide[t] >> 32);
    }
  } else if (t < 32) {
    const int v = in[blockIdx.x * 32 + t];
    uint64_t* bar = cluster.map_shared_rank(&full, 0);
    cuda::ptx::red_async(cuda::ptx::op_add, cluster.map_shared_rank(sum, 0) + t, static_cast<uint32_t>(v), bar);
    cuda::ptx::red_async(cuda::ptx::op_max, reinterpret_cast<int32_t*>(cluster.map_shared_rank(biggest, 0)) + t, v, bar);
    cuda::ptx::red_async(cuda::ptx::op_min, cluster.map_shared_rank(smallest, 0) + t, static_cast<uint32_t>(v), bar);
    cuda::ptx::red_async(cuda::ptx::op_xor_op, cluster.map_shared_rank(parity, 0) + t, static_cast<uint32_t>(v), bar);
    cuda::ptx::red_async(cuda::ptx::op_inc, cluster.map_shared_rank(wraps, 0) + t, 1u, bar);  // counts 0, 1, 0, 1, ...
    cuda::ptx::red_async(cuda::ptx::op_add, cluster.map_shared_rank(wide, 0) + t, uint64_t{0xC0000000u} * static_cast<uint32_t>(v & 0xff), bar);
  }
#endif
}
