// One m16n8k8 TF32 tensor-core MMA per warp through inline PTX (FP32 registers carrying TF32
// operands, FP32 accumulate): lane l passes a[4l .. 4l+3] as its A fragment and b[2l, 2l+1] as
// its B fragment, so where each value lands in the matrices is decided by the PTX ISA's layout.
extern "C" __global__ void mma_tf32(const unsigned* a, const unsigned* b, float* c) {
  int lane = threadIdx.x & 31;
  unsigned a0 = a[lane * 4], a1 = a[lane * 4 + 1], a2 = a[lane * 4 + 2], a3 = a[lane * 4 + 3];
  unsigned b0 = b[lane * 2], b1 = b[lane * 2 + 1];
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
#if __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
  c[lane * 4] = d0; c[lane * 4 + 1] = d1; c[lane * 4 + 2] = d2; c[lane * 4 + 3] = d3;
}
