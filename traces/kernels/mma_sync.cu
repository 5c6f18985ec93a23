// One m16n8k16 tensor-core MMA per warp through inline PTX (FP16 in, FP32 accumulate), the
// instruction CUTLASS-style kernels use from Ampere on; and an FP64 atomic. mma_sync_f16 does
// the same MMA with FP16 accumulators, two to a register.
#include <cuda_fp16.h>
extern "C" __global__ void mma_sync(const unsigned* a, const unsigned* b, float* c, double* total) {
  int lane = threadIdx.x & 31;
  unsigned a0 = a[lane * 4], a1 = a[lane * 4 + 1], a2 = a[lane * 4 + 2], a3 = a[lane * 4 + 3];
  unsigned b0 = b[lane * 2], b1 = b[lane * 2 + 1];
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
#if __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
  c[lane * 4] = d0; c[lane * 4 + 1] = d1; c[lane * 4 + 2] = d2; c[lane * 4 + 3] = d3;
  atomicAdd(total, (double)(d0 + d1 + d2 + d3));
}

extern "C" __global__ void mma_sync_f16(const unsigned* a, const unsigned* b, unsigned* c) {
  int lane = threadIdx.x & 31;
  unsigned a0 = a[lane * 4], a1 = a[lane * 4 + 1], a2 = a[lane * 4 + 2], a3 = a[lane * 4 + 3];
  unsigned b0 = b[lane * 2], b1 = b[lane * 2 + 1];
  unsigned d0 = 0x3C003C00u, d1 = 0x3C003C00u;  // C = 1.0 everywhere
#if __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
               : "+r"(d0), "+r"(d1)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
  c[lane * 2] = d0; c[lane * 2 + 1] = d1;
}
