// One m16n8k32 tensor-core MMA per warp with 8-bit inputs through inline PTX: INT8 (s8 x s8 into
// s32, from Ampere) and FP8 (e4m3 x e4m3 into f32, from Ada/Hopper). Lane l passes the bytes
// a[16l .. 16l+15] as its A fragment and b[8l .. 8l+7] as its B fragment, so where each value
// lands in the matrices is decided by the PTX ISA's layout.
extern "C" __global__ void mma_s8(const unsigned* a, const unsigned* b, int* c) {
  int lane = threadIdx.x & 31;
  int d0 = 0, d1 = 0, d2 = 0, d3 = 0;
#if __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+r"(d0), "+r"(d1), "+r"(d2), "+r"(d3)
               : "r"(a[lane * 4]), "r"(a[lane * 4 + 1]), "r"(a[lane * 4 + 2]), "r"(a[lane * 4 + 3]),
                 "r"(b[lane * 2]), "r"(b[lane * 2 + 1]));
#endif
  c[lane * 4] = d0; c[lane * 4 + 1] = d1; c[lane * 4 + 2] = d2; c[lane * 4 + 3] = d3;
}

// The mask clears each byte's top exponent bit: e4m3 values of magnitude below 2, never NaN.
extern "C" __global__ void mma_e4m3(const unsigned* a, const unsigned* b, float* c) {
  int lane = threadIdx.x & 31;
  const unsigned mask = 0xB7B7B7B7u;
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
#if __CUDA_ARCH__ >= 890
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "r"(a[lane * 4] & mask), "r"(a[lane * 4 + 1] & mask), "r"(a[lane * 4 + 2] & mask),
                 "r"(a[lane * 4 + 3] & mask), "r"(b[lane * 2] & mask), "r"(b[lane * 2 + 1] & mask));
#endif
  c[lane * 4] = d0; c[lane * 4 + 1] = d1; c[lane * 4 + 2] = d2; c[lane * 4 + 3] = d3;
}
