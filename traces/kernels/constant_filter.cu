// A 9-tap 1-D filter whose weights live in __constant__ memory: every thread of a warp reads the
// same weight at the same time, the access pattern the constant cache broadcasts. The weights are
// the binomial coefficients C(8, k) / 256, so the filter is a discrete Gaussian.
__constant__ float taps[9] = {1.0f / 256, 8.0f / 256, 28.0f / 256, 56.0f / 256, 70.0f / 256,
                              56.0f / 256, 28.0f / 256, 8.0f / 256, 1.0f / 256};
__constant__ int radius = 4;

extern "C" __global__ void constant_filter(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = -radius; k <= radius; ++k) {
    int j = min(max(i + k, 0), n - 1);  // clamp at the edges
    acc += taps[k + radius] * in[j];
  }
  out[i] = acc;
}
