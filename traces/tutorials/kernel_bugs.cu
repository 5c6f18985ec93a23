// ptx-targets: 90
// Four classic kernel bugs for docs/tutorials/kernel-bugs.md, each with a switch that fixes it. The
// checkers find each without a GPU: a shared-memory race, a read of memory nothing wrote, a wait
// that can never end, and a warp shuffle from lanes that do not exist.

// Sums each block's 256 values in shared memory, halving the active threads each step. The steps
// must be separated by __syncthreads(): a thread reads partial[t + s], which another warp wrote in
// the step before. With sync == 0 the barrier inside the loop is skipped: a race.
extern "C" __global__ void block_sum(const float* in, float* out, int sync) {
  __shared__ float partial[256];
  const unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned s = 128; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    if (sync) __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// Counts values into 64 bins with atomics. The bins must start at zero (cudaMemset on the host);
// a launch file that declares them `init: none` shows what happens when they do not.
extern "C" __global__ void histogram(const unsigned* in, unsigned* bins, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&bins[in[i] % 64], 1u);
}

// A hand-rolled grid-wide barrier: thread 0 of each block counts itself in, then waits until
// `expected` blocks have. Right only when expected == gridDim.x and every block is resident at
// once; then each block writes how many it saw.
extern "C" __global__ void grid_barrier(unsigned* count, unsigned* seen, unsigned expected) {
  if (threadIdx.x == 0) {
    atomicAdd(count, 1u);
    while (*(volatile unsigned*)count < expected) {
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) seen[blockIdx.x] = *(volatile unsigned*)count;
}

// Sums each warp's values with shuffles, assuming whole warps: with the full mask, a warp of a
// block whose size is not a multiple of 32 shuffles from lanes that do not exist. Right when
// blockDim.x is a multiple of 32 (threads past n adding zero).
extern "C" __global__ void warp_sums(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) out[i / 32] = v;
}
