#include <cuda_fp16.h>

// mma.sync beyond the common m16n8k16: Volta's m8n8k4 on f16, FP64 tensor cores (A100's m8n8k4, Hopper's m16n8k4/k8/k16),
// TF32 m16n8k4, INT8 m16n8k16 and m8n8k16 (with and without .satfinite), and FP8 m16n8k16 with
// f16 accumulators. Every kernel reads its matrices row-major from global memory and builds each
// lane's fragments with the PTX ISA's formulas ("Matrix Fragments for mma.mMnNkK"; g = lane / 4,
// t = lane % 4), so the reference is a plain matrix product: it knows nothing of the layouts, and a
// fragment placed wrongly anywhere changes the result.

// C = A B, n x n doubles (n a multiple of 8), one 8 x 8 tile per warp, k in steps of 4 (m8n8k4):
// A's element (g, t), B's (t, g), C's (g, 2t) and (g, 2t + 1).
extern "C" __global__ void dgemm_mma(const double* A, const double* B, double* C, int n) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  const int g = lane >> 2, t = lane & 3, tiles = n / 8;
  const int m0 = (warp / tiles) * 8, n0 = (warp % tiles) * 8;
  if (m0 >= n) return;
  double d0 = 0, d1 = 0;
#if __CUDA_ARCH__ >= 800
  for (int k0 = 0; k0 < n; k0 += 4) {
    const double a = A[(m0 + g) * n + k0 + t], b = B[(k0 + t) * n + n0 + g];
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
  }
#endif
  C[(m0 + g) * n + n0 + 2 * t] = d0;
  C[(m0 + g) * n + n0 + 2 * t + 1] = d1;
}

// D = C + A B for one 16 x 8 tile with K = 28 = 4 + 8 + 16 (A 16 x 28, B 28 x 8): Hopper's three
// f64 shapes in turn. A element i at (g + 8 (i % 2), t + 4 (i / 2)), B element i at (t + 4i, g),
// C and D element i at (g + 8 (i / 2), 2t + i % 2).
extern "C" __global__ void dmma_m16(const double* A, const double* B, const double* C, double* D) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  double d[4];
  for (int i = 0; i < 4; ++i) d[i] = C[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
#if __CUDA_ARCH__ >= 900
  double a[8], b[4];
  auto load = [&](int k0, int k) {
    for (int i = 0; i < k / 2; ++i) a[i] = A[(g + 8 * (i % 2)) * 28 + k0 + t + 4 * (i / 2)];
    for (int i = 0; i < k / 4; ++i) b[i] = B[(k0 + t + 4 * i) * 8 + g];
  };
  load(0, 4);
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a[0]), "d"(a[1]), "d"(b[0]));
  load(4, 8);
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  load(12, 16);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, "
               "{%0,%1,%2,%3};"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]),
                 "d"(b[3]));
#endif
  for (int i = 0; i < 4; ++i) D[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
}

// D = C + A B, A 16 x 4 and B 4 x 8 in TF32 (m16n8k4): A element i at (g + 8i, t), B's at (t, g).
extern "C" __global__ void mma_tf32_k4(const float* A, const float* B, const float* C, float* D) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  float d[4];
  for (int i = 0; i < 4; ++i) d[i] = C[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
#if __CUDA_ARCH__ >= 800
  const unsigned a0 = __float_as_uint(A[g * 4 + t]), a1 = __float_as_uint(A[(g + 8) * 4 + t]), b0 = __float_as_uint(B[t * 8 + g]);
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a0), "r"(a1), "r"(b0));
#endif
  for (int i = 0; i < 4; ++i) D[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
}

// Four bytes of a K x 8 matrix of bytes, rows 4t .. 4t + 3 of column g, as an 8-bit B fragment
// register (the lowest-numbered element in the low byte).
__device__ unsigned b_bytes(const unsigned char* B, int row0, int g) {
  return B[row0 * 8 + g] | B[(row0 + 1) * 8 + g] << 8 | B[(row0 + 2) * 8 + g] << 16 | unsigned(B[(row0 + 3) * 8 + g]) << 24;
}

// INT8, K = 16: D = C + A B (m16n8k16, s8 x u8, .satfinite: clamped to the s32 range) and
// E = C[0:8] + A[0:8] S (m8n8k16, s8 x s8, wrapping), A 16 x 16, B and S 16 x 8 bytes. A's 8-bit
// element i sits at (g + 8 (i / 4), 4t + i % 4): four consecutive bytes of a row per register.
extern "C" __global__ void mma_s8_k16(const int* A, const unsigned char* B, const unsigned char* S, const int* C, int* D, int* E) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  int d[4], e[2];
  for (int i = 0; i < 4; ++i) d[i] = C[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
  for (int i = 0; i < 2; ++i) e[i] = C[g * 8 + 2 * t + i];
#if __CUDA_ARCH__ >= 800
  const int a0 = A[(g * 16 + 4 * t) / 4], a1 = A[((g + 8) * 16 + 4 * t) / 4];
  const unsigned b0 = b_bytes(B, 4 * t, g), s0 = b_bytes(S, 4 * t, g);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "r"(a0), "r"(a1), "r"(b0));
  asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+r"(e[0]), "+r"(e[1]) : "r"(a0), "r"(s0));
#endif
  for (int i = 0; i < 4; ++i) D[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = d[i];
  for (int i = 0; i < 2; ++i) E[g * 8 + 2 * t + i] = e[i];
}

// FP8 E4M3 with f16 accumulators, K = 16 (m16n8k16, sm_89 and later): D = C + A B, A 16 x 16 and B
// 16 x 8 bytes; C and D f16, two to a register ((g, 2t) and (g, 2t + 1) in the first, row g + 8 in
// the second). The mask keeps the bytes' magnitudes below 2 and never NaN.
extern "C" __global__ void mma_e4m3_f16(const unsigned* A, const unsigned char* B, const unsigned* C, unsigned* D) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const unsigned mask = 0xB7B7B7B7u;
  unsigned d0 = C[(g * 8 + 2 * t) / 2], d1 = C[((g + 8) * 8 + 2 * t) / 2];
#if __CUDA_ARCH__ >= 890
  const unsigned a0 = A[(g * 16 + 4 * t) / 4] & mask, a1 = A[((g + 8) * 16 + 4 * t) / 4] & mask, b0 = b_bytes(B, 4 * t, g) & mask;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f16 {%0,%1}, {%2,%3}, {%4}, {%0,%1};" : "+r"(d0), "+r"(d1) : "r"(a0), "r"(a1), "r"(b0));
#endif
  D[(g * 8 + 2 * t) / 2] = d0;
  D[((g + 8) * 8 + 2 * t) / 2] = d1;
}

// Volta's m8n8k4 on f16: four independent 8 x 8 x 4 MMAs per warp, the c-th on lanes 4c..4c+3 and
// 16+4c..16+4c+3 (c = (lane % 16) / 4; hi = 4 on the upper lanes). A, B, C and the results hold
// the four computations' matrices one after another, each row-major (A 8 x 4, B 4 x 8, C 8 x 8).
// D = C + A B twice: .row.col into f32 from f32 (A row (lane % 4 + hi) of the lane's MMA, B column
// lane % 4 + hi; C element i at row (lane & 1) + (i & 2) + hi, column (i & 4) + (lane & 2) + (i & 1)),
// and .col.row into f16 from f16 (A column lane % 4, rows hi..hi+3; B row lane % 4, columns
// hi..hi+3; C element i at row lane % 4 + hi, column i).
extern "C" __global__ void mma_volta(const __half* A, const __half* B, const float* C, const __half* Ch, float* D, __half* Dh) {
  const int lane = threadIdx.x & 31, c = (lane % 16) / 4, hi = lane < 16 ? 0 : 4;
  const __half *a = A + 32 * c, *b = B + 32 * c;
  float d[8];
  __half2 dh[4];
  for (int i = 0; i < 8; ++i) d[i] = C[64 * c + ((lane & 1) + (i & 2) + hi) * 8 + (i & 4) + (lane & 2) + (i & 1)];
  for (int i = 0; i < 4; ++i) dh[i] = __halves2half2(Ch[64 * c + (lane % 4 + hi) * 8 + 2 * i], Ch[64 * c + (lane % 4 + hi) * 8 + 2 * i + 1]);
#if __CUDA_ARCH__ >= 700
  __half2 ar[2], bc[2], ac[2], br[2];
  for (int j = 0; j < 2; ++j) {
    ar[j] = __halves2half2(a[(lane % 4 + hi) * 4 + 2 * j], a[(lane % 4 + hi) * 4 + 2 * j + 1]);  // row-major A: row lane % 4 + hi
    bc[j] = __halves2half2(b[(2 * j) * 8 + lane % 4 + hi], b[(2 * j + 1) * 8 + lane % 4 + hi]);  // column-major B: column lane % 4 + hi
    ac[j] = __halves2half2(a[(2 * j + hi) * 4 + lane % 4], a[(2 * j + 1 + hi) * 4 + lane % 4]);  // column-major A: column lane % 4
    br[j] = __halves2half2(b[(lane % 4) * 8 + 2 * j + hi], b[(lane % 4) * 8 + 2 * j + 1 + hi]);  // row-major B: row lane % 4
  }
  const unsigned* u = reinterpret_cast<const unsigned*>(ar);
  const unsigned* v = reinterpret_cast<const unsigned*>(bc);
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, {%0,%1,%2,%3,%4,%5,%6,%7};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "r"(u[0]), "r"(u[1]), "r"(v[0]), "r"(v[1]));
  unsigned* h = reinterpret_cast<unsigned*>(dh);
  const unsigned* x = reinterpret_cast<const unsigned*>(ac);
  const unsigned* y = reinterpret_cast<const unsigned*>(br);
  asm volatile("mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3};"
               : "+r"(h[0]), "+r"(h[1]), "+r"(h[2]), "+r"(h[3]) : "r"(x[0]), "r"(x[1]), "r"(y[0]), "r"(y[1]));
#endif
  for (int i = 0; i < 8; ++i) D[64 * c + ((lane & 1) + (i & 2) + hi) * 8 + (i & 4) + (lane & 2) + (i & 1)] = d[i];
  for (int i = 0; i < 4; ++i) {
    Dh[64 * c + (lane % 4 + hi) * 8 + 2 * i] = __low2half(dh[i]);
    Dh[64 * c + (lane % 4 + hi) * 8 + 2 * i + 1] = __high2half(dh[i]);
  }
}
