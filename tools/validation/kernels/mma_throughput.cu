// Tensor-core throughput through warp-level MMAs: every warp keeps four independent mma.sync
// chains (D += A x B with A = B = ones) so that the tensor pipes, not the chains' latency, bound
// the kernel. On A100 this reaches the dense peak; on Hopper it measures the share of the peak
// that mma.sync reaches without wgmma (tensor.warp_mma_fraction_of_peak in configs/h100.yaml).
// Each f16 MMA adds k = 16 to every accumulator element, each s8 one 32: the sums stay exact.
#include <cuda_fp16.h>

extern "C" __global__ void mma_streams_f16(unsigned n, float* out) {
  const unsigned one = 0x3c003c00u;  // two f16 ones
  float d[4][4] = {};
  for (unsigned i = 0; i < n; ++i) {
#pragma unroll
    for (int c = 0; c < 4; ++c) {
#if __CUDA_ARCH__ >= 800
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%4,%4}, {%0,%1,%2,%3};"
                   : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
                   : "r"(one));
#endif
    }
  }
  float s = 0;
  for (int c = 0; c < 4; ++c) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
  out[threadIdx.x] = s;
}

extern "C" __global__ void mma_streams_s8(unsigned n, int* out) {
  const unsigned one = 0x01010101u;  // four s8 ones
  int d[4][4] = {};
  for (unsigned i = 0; i < n; ++i) {
#pragma unroll
    for (int c = 0; c < 4; ++c) {
#if __CUDA_ARCH__ >= 800
      asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%4,%4}, {%0,%1,%2,%3};"
                   : "+r"(d[c][0]), "+r"(d[c][1]), "+r"(d[c][2]), "+r"(d[c][3])
                   : "r"(one));
#endif
    }
  }
  int s = 0;
  for (int c = 0; c < 4; ++c) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
  out[threadIdx.x] = s;
}
