// Grid-wide synchronisation through cooperative groups (this_grid().sync()), which needs a
// cooperative launch (cudaLaunchCooperativeKernel; `cooperative: true` in a launch file): every
// CTA is resident at once and waits at each sync until all have arrived.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Three rounds of a 1D stencil over the whole grid's array, ping-ponging between two buffers:
// b[i] = a[i - 1] + a[i] + a[i + 1] (0 beyond the ends, unsigned arithmetic wrapping). Each
// round reads its neighbours' values across CTA boundaries, so a round may start only when the
// whole grid has finished the previous one. Then CTA 0 adds up the result.
extern "C" __global__ void grid_stencil(unsigned* a, unsigned* b, unsigned* sum) {
  cg::grid_group grid = cg::this_grid();
  const unsigned n = gridDim.x * blockDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int round = 0; round < 3; ++round) {
    const unsigned* from = round % 2 == 0 ? a : b;
    unsigned* to = round % 2 == 0 ? b : a;
    to[i] = (i > 0 ? from[i - 1] : 0u) + from[i] + (i + 1 < n ? from[i + 1] : 0u);
    grid.sync();
  }
  if (blockIdx.x == 0) {
    __shared__ unsigned partial[32];
    unsigned s = 0;
    for (unsigned j = threadIdx.x; j < n; j += blockDim.x) s += b[j];  // round 2 wrote b
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned total = 0;
      for (unsigned w = 0; w < blockDim.x / 32; ++w) total += partial[w];
      *sum = total;
    }
  }
}
