// ptx-targets: 75 80 90 100 100a
// Quantising to FP8 and FP4 with CUDA's own types (cuda_fp8.h, cuda_fp4.h), as inference kernels
// do before an FP8/FP4 GEMM: each thread converts one float to E4M3, E5M2 and E2M1 (saturating to
// the largest finite value) and back. On sm_90 and later nvcc emits cvt's packed forms
// (cvt.rn.satfinite.e4m3x2.f32, ...; sm_100a for FP4), on older targets integer sequences.
#include <cuda_fp4.h>
#include <cuda_fp8.h>

extern "C" __global__ void fp8_convert(const float* in, unsigned char* codes, float* back, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = in[i];
  const __nv_fp8_e4m3 a(x);
  const __nv_fp8_e5m2 b(x);
  const __nv_fp4_e2m1 c(x);
  codes[3 * i] = a.__x;
  codes[3 * i + 1] = b.__x;
  codes[3 * i + 2] = c.__x;
  back[3 * i] = float(a);
  back[3 * i + 1] = float(b);
  back[3 * i + 2] = float(c);
}
