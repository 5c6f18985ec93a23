#include <cuda_fp16.h>

// Structured-sparse mma.sync (mma.sp, mma.sp::ordered_metadata): A keeps two of every four
// elements of a row (one of two for tf32; two pairs of every eight for 4-bit types) and a 32-bit
// metadata register per lane says where they were. Each kernel reads a logical A row-major with a
// pattern per chunk saying which elements it keeps (0-5: one of the six ordered index pairs; tf32:
// 0 or 1), compresses it, builds the metadata and every lane's fragments with the PTX ISA's
// formulas (warpsim's mma_sync_form.h restates them), and multiplies. The references
// (tools/kernels_make_refs.py) multiply the logical A with every element the pattern drops set to
// zero: they know nothing of fragments or metadata, so anything placed wrongly changes the result.
// Lanes that hold no metadata pass 0xffffffff, a value the ISA leaves undefined, so an MMA that
// reads the wrong lanes' metadata stops the run.

// The six ordered pairs of indices a 2:4 chunk can keep.
__device__ const unsigned char kSpFirst[6] = {0, 0, 0, 1, 1, 2}, kSpSecond[6] = {1, 2, 3, 2, 3, 3};

// A chunk's metadata nibble: the two 2-bit indices, the first in the low bits (tf32: 0b0100 keeps
// element 0, 0b1110 element 1).
__device__ unsigned sp_nibble(int pattern, int chunk) {
  if (chunk == 2) return pattern & 1 ? 0xeu : 0x4u;
  return kSpFirst[pattern % 6] | kSpSecond[pattern % 6] << 2;
}

// Where stored element s of a chunk sits in it (4-bit types keep pairs: index i names elements 2i, 2i + 1).
__device__ int sp_kept(int pattern, int s, int chunk) {
  if (chunk == 2) return pattern & 1;
  const int first = kSpFirst[pattern % 6], second = kSpSecond[pattern % 6];
  return chunk == 8 ? 2 * (s < 2 ? first : second) + (s & 1) : s == 0 ? first : second;
}

// Element `idx` of a raw array of `bytes`-byte elements, as bits.
__device__ unsigned sp_raw(const void* p, int idx, int bytes) {
  if (bytes == 1) return static_cast<const unsigned char*>(p)[idx];
  if (bytes == 2) return static_cast<const unsigned short*>(p)[idx];
  return static_cast<const unsigned*>(p)[idx];
}

// Register `reg` of a lane's compressed A fragment: the layout of a dense 16 x K/2 A with `bits`-bit
// elements, p = 32 / bits per register: element i at (g + 8 ((i / p) % 2), p t + i % p + 4p (i / 2p));
// tf32 (p = 1): (g + 8 (i % 2), t + 4 (i / 2)). A logical 16 x K, one element per `bytes`; a 4-bit
// element is the low nibble of its byte. P: 16 rows x K / chunk patterns.
__device__ unsigned sp_a_reg(const void* A, const unsigned char* P, int K, int bits, int bytes, int chunk, int lane, int reg) {
  const int g = lane >> 2, t = lane & 3, p = 32 / bits, per = chunk / 2;
  unsigned r = 0;
  for (int e = 0; e < p; ++e) {
    const int i = reg * p + e;
    const int row = p == 1 ? g + 8 * (i % 2) : g + 8 * ((i / p) % 2);
    const int col = p == 1 ? t + 4 * (i / 2) : p * t + i % p + 4 * p * (i / (2 * p));  // in the compressed A
    const int c = col / per, logical = c * chunk + sp_kept(P[row * (K / chunk) + c], col % per, chunk);
    r |= (sp_raw(A, row * K + logical, bytes) & (bits == 32 ? ~0u : (1u << bits) - 1)) << (bits * e);
  }
  return r;
}

// Register `reg` of a lane's B fragment (B K x 8 row-major): element i at (p t + i % p + 4p (i / p), g),
// tf32 at (t + 4i, g).
__device__ unsigned sp_b_reg(const void* B, int bits, int bytes, int lane, int reg) {
  const int g = lane >> 2, t = lane & 3, p = 32 / bits;
  unsigned r = 0;
  for (int e = 0; e < p; ++e) {
    const int i = reg * p + e, row = p == 1 ? t + 4 * i : p * t + i % p + 4 * p * (i / p);
    r |= (sp_raw(B, row * 8 + g, bytes) & (bits == 32 ? ~0u : (1u << bits) - 1)) << (bits * e);
  }
  return r;
}

// The metadata register: of each group of four lanes, K / chunk / 4 hold it, starting at lane
// selector x that many; contributor j holds chunks 4j..4j+3 of row g in bits 0-15 and of row g + 8
// in bits 16-31, four bits per chunk.
__device__ unsigned sp_metadata(const unsigned char* P, int K, int chunk, int selector, int lane) {
  const int g = lane >> 2, chunks = K / chunk, lanes = chunks / 4, j = (lane & 3) - selector * lanes;
  if (j < 0 || j >= lanes) return 0xffffffffu;
  unsigned m = 0;
  for (int c = 0; c < 4; ++c) m |= sp_nibble(P[g * chunks + 4 * j + c], chunk) << (4 * c) | sp_nibble(P[(g + 8) * chunks + 4 * j + c], chunk) << (16 + 4 * c);
  return m;
}

// C and D element i at (g + 8 (i / 2), 2t + i % 2).
__device__ int sp_cd(int lane, int i) { return ((lane >> 2) + 8 * (i / 2)) * 8 + 2 * (lane & 3) + i % 2; }

// D = C + A B with A 16 x 32 (m16n8k32, f32 accumulators, ::ordered_metadata, selector 1: lanes 2
// and 3 of each group hold the metadata), and E = CH + A2 B2 with A2 16 x 16 (m16n8k16, f16
// accumulators, plain .sp, selector 2: lane 2 holds it).
extern "C" __global__ void mma_sparse_f16(const __half* A, const unsigned char* P, const __half* B, const float* C, float* D,
                                          const __half* A2, const unsigned char* P2, const __half* B2, const __half* CH, __half* E) {
  const int lane = threadIdx.x & 31;
  float d[4];
  for (int i = 0; i < 4; ++i) d[i] = C[sp_cd(lane, i)];
  unsigned e[2];
  for (int i = 0; i < 2; ++i) e[i] = sp_raw(CH, sp_cd(lane, 2 * i), 2) | sp_raw(CH, sp_cd(lane, 2 * i + 1), 2) << 16;
#if __CUDA_ARCH__ >= 800
  unsigned a[4], b[4];
  for (int r = 0; r < 4; ++r) a[r] = sp_a_reg(A, P, 32, 16, 2, 4, lane, r), b[r] = sp_b_reg(B, 16, 2, lane, r);
  const unsigned m = sp_metadata(P, 32, 4, 1, lane);
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, "
               "{%0,%1,%2,%3}, %12, 1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(m));
  for (int r = 0; r < 2; ++r) a[r] = sp_a_reg(A2, P2, 16, 16, 2, 4, lane, r), b[r] = sp_b_reg(B2, 16, 2, lane, r);
  const unsigned m2 = sp_metadata(P2, 16, 4, 2, lane);
  asm volatile("mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4,%5}, {%0,%1}, %6, 2;"
               : "+r"(e[0]), "+r"(e[1]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(m2));
#endif
  for (int i = 0; i < 4; ++i) D[sp_cd(lane, i)] = d[i];
  for (int i = 0; i < 4; ++i) reinterpret_cast<unsigned short*>(E)[sp_cd(lane, i)] = static_cast<unsigned short>(e[i / 2] >> (16 * (i % 2)));
}

// TF32, one of every two elements kept: D = C + A B with A 16 x 16 (m16n8k16, selector 0: lanes 0
// and 1) and E = C + A2 B2 with A2 16 x 8 (m16n8k8, selector 3: lane 3).
extern "C" __global__ void mma_sparse_tf32(const float* A, const unsigned char* P, const float* B, const float* C, float* D,
                                           const float* A2, const unsigned char* P2, const float* B2, float* E) {
  const int lane = threadIdx.x & 31;
  float d[4], e[4];
  for (int i = 0; i < 4; ++i) d[i] = e[i] = C[sp_cd(lane, i)];
#if __CUDA_ARCH__ >= 800
  unsigned a[4], b[4];
  for (int r = 0; r < 4; ++r) a[r] = sp_a_reg(A, P, 16, 32, 4, 2, lane, r), b[r] = sp_b_reg(B, 32, 4, lane, r);
  const unsigned m = sp_metadata(P, 16, 2, 0, lane);
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, "
               "{%0,%1,%2,%3}, %12, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(m));
  for (int r = 0; r < 2; ++r) a[r] = sp_a_reg(A2, P2, 8, 32, 4, 2, lane, r), b[r] = sp_b_reg(B2, 32, 4, lane, r);
  const unsigned m2 = sp_metadata(P2, 8, 2, 3, lane);
  asm volatile("mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3}, %8, 3;"
               : "+f"(e[0]), "+f"(e[1]), "+f"(e[2]), "+f"(e[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(m2));
#endif
  for (int i = 0; i < 4; ++i) D[sp_cd(lane, i)] = d[i], E[sp_cd(lane, i)] = e[i];
}

// Integers: D = C + A B, s8 x u8 with A 16 x 64 (m16n8k64, .satfinite, selector 0: all four lanes
// of a group hold metadata) and F = C + A8 B8, s8 x s8 with A8 16 x 32 (m16n8k32,
// ::ordered_metadata, selector 1: lanes 2 and 3). C starts just below the s32 maximum: D clamps,
// F wraps.
extern "C" __global__ void mma_sparse_int(const signed char* A, const unsigned char* P, const unsigned char* B, const int* C, int* D,
                                          const signed char* A8, const unsigned char* P8, const signed char* B8, int* F) {
  const int lane = threadIdx.x & 31;
  int d[4], f[4];
  for (int i = 0; i < 4; ++i) d[i] = f[i] = C[sp_cd(lane, i)];
#if __CUDA_ARCH__ >= 800
  unsigned a[4], b[4];
  for (int r = 0; r < 4; ++r) a[r] = sp_a_reg(A, P, 64, 8, 1, 4, lane, r), b[r] = sp_b_reg(B, 8, 1, lane, r);
  unsigned m = sp_metadata(P, 64, 4, 0, lane);
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0;"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(m));
  for (int r = 0; r < 2; ++r) a[r] = sp_a_reg(A8, P8, 32, 8, 1, 4, lane, r), b[r] = sp_b_reg(B8, 8, 1, lane, r);
  m = sp_metadata(P8, 32, 4, 1, lane);
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3}, "
               "%8, 1;"
               : "+r"(f[0]), "+r"(f[1]), "+r"(f[2]), "+r"(f[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(m));
#endif
  for (int i = 0; i < 4; ++i) D[sp_cd(lane, i)] = d[i], F[sp_cd(lane, i)] = f[i];
}

// INT4: D = C + A B, s4 x u4, A 16 x 128 keeping two pairs of every eight elements (m16n8k128,
// selector 0: all four lanes), and E = C + A2 B2, u4 x s4, A2 16 x 64 (m16n8k64, selector 1: lanes
// 2 and 3). Elements one per byte, the low nibble used. No launch file: of the shipped configs only
// A100 has an INT4 rate, so tests/unit/frontend/ptx_mma_sparse_test.cpp runs it there.
extern "C" __global__ void mma_sparse_s4(const signed char* A, const unsigned char* P, const unsigned char* B, const int* C, int* D,
                                         const unsigned char* A2, const unsigned char* P2, const signed char* B2, int* E) {
  const int lane = threadIdx.x & 31;
  int d[4], e[4];
  for (int i = 0; i < 4; ++i) d[i] = e[i] = C[sp_cd(lane, i)];
#if __CUDA_ARCH__ >= 800
  unsigned a[4], b[4];
  for (int r = 0; r < 4; ++r) a[r] = sp_a_reg(A, P, 128, 4, 1, 8, lane, r), b[r] = sp_b_reg(B, 4, 1, lane, r);
  unsigned m = sp_metadata(P, 128, 8, 0, lane);
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.s32.s4.u4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, "
               "{%0,%1,%2,%3}, %12, 0;"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(m));
  for (int r = 0; r < 2; ++r) a[r] = sp_a_reg(A2, P2, 64, 4, 1, 8, lane, r), b[r] = sp_b_reg(B2, 4, 1, lane, r);
  m = sp_metadata(P2, 64, 8, 1, lane);
  asm volatile("mma.sp.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%0,%1,%2,%3}, %8, 1;"
               : "+r"(e[0]), "+r"(e[1]), "+r"(e[2]), "+r"(e[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(m));
#endif
  for (int i = 0; i < 4; ++i) D[sp_cd(lane, i)] = d[i], E[sp_cd(lane, i)] = e[i];
}

// FP8 (sm_89): D = C + A B, e4m3 x e5m2 with A 16 x 64 (m16n8k64, ::ordered_metadata, selector 0).
extern "C" __global__ void mma_sparse_e4m3(const unsigned char* A, const unsigned char* P, const unsigned char* B, const float* C, float* D) {
  const int lane = threadIdx.x & 31;
  float d[4];
  for (int i = 0; i < 4; ++i) d[i] = C[sp_cd(lane, i)];
#if __CUDA_ARCH__ >= 890
  unsigned a[4], b[4];
  // Every byte masked with 0xb7: magnitudes below 2 in e4m3 and below 2^-2 x 1.75 in e5m2, never NaN or infinity.
  for (int r = 0; r < 4; ++r) a[r] = sp_a_reg(A, P, 64, 8, 1, 4, lane, r) & 0xb7b7b7b7u, b[r] = sp_b_reg(B, 8, 1, lane, r) & 0xb7b7b7b7u;
  const unsigned m = sp_metadata(P, 64, 4, 0, lane);
  asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, "
               "{%0,%1,%2,%3}, %12, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(m));
#endif
  for (int i = 0; i < 4; ++i) D[sp_cd(lane, i)] = d[i];
}

// A 2:4 sparse HGEMM in three steps, as a sparse library runs it: prune a dense A to 2:4 and
// compress it, lay out the metadata the way the MMA reads it, multiply. M x K A (row-major), B
// given transposed (N x K), C = pruned A x B in f32; M, N multiples of 16 and 8, K of 32.

// Step 1, one thread per 4-element chunk of A: keep its two largest magnitudes (ties to the lower
// index), in order, in the compressed A (M x K/2), and the chunk's nibble (first index in the low
// bits) in nib (M x K/4 bytes).
extern "C" __global__ void prune_24(const __half* a, __half* ac, unsigned char* nib, int m, int k) {
  const int chunk = blockIdx.x * blockDim.x + threadIdx.x, chunks = m * k / 4;
  if (chunk >= chunks) return;
  const __half* v = a + 4 * chunk;
  float mag[4];
  for (int i = 0; i < 4; ++i) mag[i] = fabsf(__half2float(v[i]));
  int kept[2], n = 0;
  for (int i = 0; i < 4; ++i) {
    int above = 0;  // elements that outrank element i
    for (int j = 0; j < 4; ++j) above += mag[j] > mag[i] || (mag[j] == mag[i] && j < i);
    if (above < 2) kept[n++] = i;
  }
  ac[2 * chunk] = v[kept[0]];
  ac[2 * chunk + 1] = v[kept[1]];
  nib[chunk] = static_cast<unsigned char>(kept[0] | kept[1] << 2);
}

// Step 2, one thread per (16-row tile, 32-column step, lane): the metadata register of
// mma.sp m16n8k32 with selector 0. Lanes 0 and 1 of group g hold chunks 4j..4j+3 (j = lane % 4)
// of rows g and g + 8 of the tile (mma_sync_form.h); the other lanes' words are never read.
extern "C" __global__ void pack_metadata(const unsigned char* nib, unsigned* meta, int m, int k) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x, lane = id % 32, step = (id / 32) % (k / 32), tile = id / 32 / (k / 32);
  if (tile >= m / 16) return;
  const int g = lane / 4, j = lane % 4, chunks = k / 4;
  unsigned word = 0;
  if (j < 2) {
    for (int c = 0; c < 4; ++c) {
      const int chunk = step * 8 + 4 * j + c;
      word |= unsigned(nib[(tile * 16 + g) * chunks + chunk]) << (4 * c) | unsigned(nib[(tile * 16 + g + 8) * chunks + chunk]) << (16 + 4 * c);
    }
  }
  meta[id] = word;
}

// Step 3, one warp per 16 x 8 tile of C, K in steps of 32 (mma.sp m16n8k32): A's compressed 16 x
// 16 in the layout of a dense m16n8k16 A (rows g, g + 8; columns 2t, 2t + 1 and 2t + 8, 2t + 9),
// B's column g at rows 2t + i % 2 + 8 (i / 2), the metadata word packed for this lane.
extern "C" __global__ void hgemm_sparse(const __half* ac, const unsigned* meta, const __half* bt, float* c, int m, int n, int k) {
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  const int tm = blockIdx.y * 16, tn = blockIdx.x * 8, half_k = k / 2;
  float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
  for (int k0 = 0; k0 < k; k0 += 32) {
    const unsigned* a_lo = reinterpret_cast<const unsigned*>(ac + (tm + g) * half_k + k0 / 2 + 2 * t);
    const unsigned* a_hi = reinterpret_cast<const unsigned*>(ac + (tm + g + 8) * half_k + k0 / 2 + 2 * t);
    const unsigned* b_col = reinterpret_cast<const unsigned*>(bt + (tn + g) * k + k0 + 2 * t);
    const unsigned a0 = a_lo[0], a1 = a_hi[0], a2 = a_lo[4], a3 = a_hi[4];
    const unsigned b0 = b_col[0], b1 = b_col[4], b2 = b_col[8], b3 = b_col[12];
    const unsigned e = meta[((tm / 16) * (k / 32) + k0 / 32) * 32 + lane];
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, "
                 "{%0,%1,%2,%3}, %12, 0;"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(b2), "r"(b3), "r"(e));
#endif
  }
  c[(tm + g) * n + tn + 2 * t] = d0;
  c[(tm + g) * n + tn + 2 * t + 1] = d1;
  c[(tm + g + 8) * n + tn + 2 * t] = d2;
  c[(tm + g + 8) * n + tn + 2 * t + 1] = d3;
}
