// Thread-block clusters with distributed shared memory (Hopper+), through cooperative groups as
// CUDA programs write them. Before sm_90 the kernels are empty (the launch files require 9.0).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#if __CUDA_ARCH__ >= 900
#define CLUSTER_OF_4 __cluster_dims__(4, 1, 1)
#else
#define CLUSTER_OF_4
#endif

// A histogram whose bins are spread over the shared memory of the cluster's CTAs: CTA r owns
// bins [r * per, (r + 1) * per). Every thread adds its values straight into the owning CTA's
// shared memory with an atomic; after cluster.sync() each CTA adds its slice into the output.
extern "C" __global__ void CLUSTER_OF_4 cluster_histogram(const int* __restrict__ in, unsigned* __restrict__ bins, int n, int nbins) {
#if __CUDA_ARCH__ >= 900
  extern __shared__ unsigned slice[];
  cg::cluster_group cluster = cg::this_cluster();
  const int per = nbins / static_cast<int>(cluster.num_blocks());
  for (int i = threadIdx.x; i < per; i += blockDim.x) slice[i] = 0;
  cluster.sync();  // every slice is zeroed before anyone adds to it
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int b = in[i] % nbins;
    unsigned* owner = cluster.map_shared_rank(slice, b / per);
    atomicAdd(owner + b % per, 1u);
  }
  cluster.sync();  // every add has landed, and no CTA exits while others may still add to it
  for (int i = threadIdx.x; i < per; i += blockDim.x) atomicAdd(&bins[cluster.block_rank() * per + i], slice[i]);
#endif
}

// Each CTA stages a tile of `in` in shared memory, then reads its neighbour's tile (rank + 1 in
// the cluster, wrapping) over the SM-to-SM network: out = own + 10 x neighbour's, element by
// element. The cluster shape comes from the launch.
extern "C" __global__ void cluster_exchange(const float* __restrict__ in, float* __restrict__ out) {
#if __CUDA_ARCH__ >= 900
  extern __shared__ float tile[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i];
  cluster.sync();
  const unsigned next = (cluster.block_rank() + 1) % cluster.num_blocks();
  const float* neighbour = cluster.map_shared_rank(tile, next);
  out[i] = tile[threadIdx.x] + 10.0f * neighbour[threadIdx.x];
  cluster.sync();  // keep this tile alive until the neighbour has read it
#endif
}
