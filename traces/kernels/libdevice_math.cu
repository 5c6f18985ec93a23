// CUDA's math library in float and double: each thread evaluates 24 functions of its input,
// one output row per function. libdevice implements them with instruction sequences (fma
// chains, bit manipulation, carry arithmetic, table lookups in constant memory) that exercise
// much of what the emulator runs; the references are Python's math module.
#include <cmath>

template <class T>
__device__ void evaluate(T x, T* out, int n, int i) {
  const T y = x * T(3) + T(0.5);  // a second argument in (0.5, 3.5)
  const T results[24] = {sin(x),  cos(x),   tan(x),   exp(x),   exp2(x),   log(y),    log2(y),   log10(y),
                         log1p(x), expm1(x), pow(y, x), sqrt(y),  rsqrt(y),  cbrt(y),   tanh(x),   erf(x),
                         erfc(x), atan2(x, y), asin(x), acos(x), atan(y), sinh(x), lgamma(y), hypot(x, y)};
  for (int f = 0; f < 24; ++f) out[f * n + i] = results[f];
}

extern "C" __global__ void math_f32(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) evaluate(in[i], out, n, i);
}

extern "C" __global__ void math_f64(const double* in, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) evaluate(in[i], out, n, i);
}
