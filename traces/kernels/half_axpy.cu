// y = a * x + y on packed half2 (FP16 arithmetic, two values per register) and on bf16,
// converting the bf16 result through float: the non-tensor half-precision path.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
extern "C" __global__ void half_axpy(int n2, __half2 a, const __half2* x, __half2* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) y[i] = __hfma2(a, x[i], y[i]);
}

extern "C" __global__ void bf16_axpy(int n, float a, const __nv_bfloat16* x, __nv_bfloat16* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2bfloat16(a * __bfloat162float(x[i]) + __bfloat162float(y[i]));
}
