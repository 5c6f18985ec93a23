// printf and assert inside a kernel, which the emulator runs in place of the CUDA runtime's
// vprintf and __assertfail: the kernels' text comes out before warpsim's report, as a CUDA
// program's device output appears when it synchronises after the kernel.
#include <cassert>
#include <cstdio>

// Not inlined, so the caller hands it a generic pointer to its local array (cvta.local).
__device__ __noinline__ void fill(float* values, int n, float start) {
  for (int i = 0; i < n; ++i) values[i] = start + i;
}

// Every thread sums a local array filled from its input and stores the sum; the first thread of
// each warp prints its block, warp, that sum, and one value of each printf conversion. With
// `check` set, every thread asserts that its sum is not negative.
extern "C" __global__ void print_values(const float* in, float* sums, int check) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float local[8];
  fill(local, 8, in[i]);
  float sum = 0;
  for (int k = 0; k < 8; ++k) sum += local[k];
  assert(check == 0 || sum >= 0.0f);
  sums[i] = sum;
  if (threadIdx.x % 32 == 0) {
    printf("block %d warp %2d: sum %8.3f|%-4s|%c|%#x|%lld|%5.1e\n", blockIdx.x, threadIdx.x / 32, sum, "ok", 'w', 255u,
           -5ll, 1234.5);
  }
}
