// TMA multicast in a thread-block cluster of 2 (Hopper+), with the producer/consumer handshake of
// Hopper GEMM mainloops: for each of `tiles` 32 x 32 float tiles of a matrix, CTA r loads the
// tile's half r (16 rows) once and multicasts it into both CTAs' shared memory, completing its
// bytes on each CTA's "full" mbarrier. Every thread sums its column of the whole tile (scaled by
// its CTA's rank + 1); then each CTA arrives on both CTAs' "empty" mbarriers, one of them in the
// other CTA's shared memory, and a CTA reloads its half only when both have read the previous
// tile. out[cta][column] holds the scaled column sums over all tiles.
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda/ptx>
namespace cg = cooperative_groups;

#if __CUDA_ARCH__ >= 900
#define CLUSTER_OF_2 __cluster_dims__(2, 1, 1)
#else
#define CLUSTER_OF_2
#endif

// The multicast form of cp.async.bulk.tensor, spelled out: libcu++ offers it only for sm_90a,
// while the PTX ISA has it from sm_90 on.
__device__ inline void multicast_half(float* dst, const CUtensorMap* map, const int (&coords)[2], uint64_t* bar, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;"
      :
      : "r"(static_cast<unsigned>(__cvta_generic_to_shared(dst))), "l"(map), "r"(coords[0]), "r"(coords[1]),
        "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))), "h"(cta_mask)
      : "memory");
}

extern "C" __global__ void CLUSTER_OF_2 tma_multicast(const __grid_constant__ CUtensorMap map, float* __restrict__ out, int tiles) {
#if __CUDA_ARCH__ >= 900
  __shared__ alignas(128) float tile[32 * 32];
  __shared__ alignas(8) uint64_t full, empty;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&full, 1);   // this CTA's thread 0 arrives, with the tile's bytes
    cuda::ptx::mbarrier_init(&empty, 2);  // one arrival from each CTA of the cluster
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  cluster.sync();  // both CTAs' barriers are initialised before anyone multicasts into them
  float sum = 0.0f;
  for (int k = 0; k < tiles; ++k) {
    if (threadIdx.x == 0) {
      // Wait until both CTAs have read tile k - 1 (phase k - 1 of this CTA's empty barrier).
      if (k > 0)
        while (!cuda::ptx::mbarrier_try_wait_parity(&empty, (k - 1) & 1)) {
        }
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full, sizeof(tile));
      const int coords[2] = {0, int(k * 32 + rank * 16)};
      multicast_half(tile + rank * 16 * 32, &map, coords, &full, 0b11);
    }
    while (!cuda::ptx::mbarrier_try_wait_parity(&full, k & 1)) {
    }
    for (int r = 0; r < 32; ++r) sum += tile[r * 32 + threadIdx.x % 32];
    __syncthreads();  // every thread of this CTA has read the tile
    if (threadIdx.x == 0) {
      for (unsigned c = 0; c < 2; ++c) {
        uint64_t* remote = cluster.map_shared_rank(&empty, c);
        cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cluster, cuda::ptx::space_cluster, remote);
      }
    }
  }
  if (threadIdx.x < 32) out[rank * 32 + threadIdx.x] = sum * float(rank + 1);
  cluster.sync();  // no CTA exits while the other may still arrive on its barrier
#endif
}
