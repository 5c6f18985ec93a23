// C = A x B with tensor cores through mma.sync.m16n8k16 with BF16 inputs and FP32 accumulators,
// one warp per 16 x 8 tile of C; the fragment layout is hgemm_mma.cu's (PTX ISA: group
// g = lane / 4, t = lane % 4). B is given transposed (bt[n][k]).
#include <cuda_bf16.h>
extern "C" __global__ void bf16_gemm(const __nv_bfloat16* a, const __nv_bfloat16* bt, float* c, int m, int n, int k) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  int tm = blockIdx.y * 16, tn = blockIdx.x * 8;
  float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
  for (int k0 = 0; k0 < k; k0 += 16) {
    const unsigned* a_lo = reinterpret_cast<const unsigned*>(a + (tm + g) * k + k0 + 2 * t);
    const unsigned* a_hi = reinterpret_cast<const unsigned*>(a + (tm + g + 8) * k + k0 + 2 * t);
    const unsigned* b_col = reinterpret_cast<const unsigned*>(bt + (tn + g) * k + k0 + 2 * t);
    unsigned a0 = a_lo[0], a1 = a_hi[0], a2 = a_lo[4], a3 = a_hi[4], b0 = b_col[0], b1 = b_col[4];
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
  }
  c[(tm + g) * n + tn + 2 * t] = d0;
  c[(tm + g) * n + tn + 2 * t + 1] = d1;
  c[(tm + g + 8) * n + tn + 2 * t] = d2;
  c[(tm + g + 8) * n + tn + 2 * t + 1] = d3;
}
