// Block sum: a shared-memory tree down to one warp, then warp shuffles; one atomic per block.
extern "C" __global__ void reduce_sum(const float* in, float* out, int n) {
  extern __shared__ float partial[];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x * 2 + tid;
  float v = 0.0f;
  if (i < n) v = in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  partial[tid] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s >= 32; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    v = partial[tid];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (tid == 0) atomicAdd(out, v);
  }
}
