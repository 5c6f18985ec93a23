// Divergence showcase: an if/else on the lane's parity, a loop whose trip count is the lane
// index, and a non-inlined device function (a PTX .func and call).
__device__ __noinline__ float polish(float x, int n) {
  for (int k = 0; k < n; ++k) x = x * 0.5f + 1.0f;
  return x;
}

extern "C" __global__ void divergence(float* out) {
  int lane = threadIdx.x & 31;
  float v = threadIdx.x;
  if (lane & 1) {
    v = v * 3.0f + 1.0f;
  } else {
    v = __fsqrt_rn(v) + 2.0f;
  }
  for (int k = 0; k < lane; ++k) v += 0.25f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = polish(v, lane & 3);
}
