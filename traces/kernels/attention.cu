// Single-head attention O = softmax(Q K^T / sqrt(d)) V for L queries/keys of dimension D = 64.
// naive: one kernel writes the L x L score matrix to global memory, a second normalises it row
//        by row and multiplies by V (the scores travel through DRAM twice).
// tiled: fused, with an online softmax: one warp per query keeps its running max and sum and its
//        output row in registers while it walks over K and V, one key at a time; no L x L matrix,
//        but every warp reads all of K and V from global memory and reduces each score alone.
// flash: Flash-Attention-style tiling: a block of 8 warps (8 queries) stages 32-key tiles of K
//        and V in shared memory once for all its warps; lane j scores key j of the tile, so a
//        tile needs one max and one sum reduction instead of one per key.
#define D 64
extern "C" __global__ void attention_scores(const float* q, const float* k, float* s, int L) {
  int i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= L) return;
  float dot = 0.0f;
  for (int d = 0; d < D; ++d) dot += q[i * D + d] * k[j * D + d];
  s[i * L + j] = dot * 0.125f;  // 1 / sqrt(64)
}

extern "C" __global__ void attention_softmax_pv(const float* s, const float* v, float* o, int L) {
  int i = blockIdx.x, lane = threadIdx.x;  // one warp per query row; lane owns dims lane, lane+32
  float m = -1e30f;
  for (int j = lane; j < L; j += 32) m = fmaxf(m, s[i * L + j]);
  for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  float sum = 0.0f, o0 = 0.0f, o1 = 0.0f;
  for (int j = 0; j < L; ++j) {
    float p = __expf(s[i * L + j] - m);
    sum += p;
    o0 += p * v[j * D + lane];
    o1 += p * v[j * D + lane + 32];
  }
  o[i * D + lane] = o0 / sum;
  o[i * D + lane + 32] = o1 / sum;
}

extern "C" __global__ void attention_tiled(const float* q, const float* k, const float* v, float* o, int L) {
  int i = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
  float q0 = q[i * D + lane], q1 = q[i * D + lane + 32];
  float m = -1e30f, sum = 0.0f, o0 = 0.0f, o1 = 0.0f;
  for (int j = 0; j < L; ++j) {
    float part = q0 * k[j * D + lane] + q1 * k[j * D + lane + 32];
    for (int off = 16; off > 0; off >>= 1) part += __shfl_xor_sync(0xffffffffu, part, off);
    float score = part * 0.125f;
    float m_new = fmaxf(m, score);
    float scale = __expf(m - m_new), p = __expf(score - m_new);
    sum = sum * scale + p;
    o0 = o0 * scale + p * v[j * D + lane];
    o1 = o1 * scale + p * v[j * D + lane + 32];
    m = m_new;
  }
  o[i * D + lane] = o0 / sum;
  o[i * D + lane + 32] = o1 / sum;
}

#define BC 32     // keys per tile
#define WARPS 8   // queries (warps) per block
extern "C" __global__ void attention_flash(const float* q, const float* k, const float* v, float* o, int L) {
  __shared__ float ks[BC][D + 1];  // +1: lane j reads row j, so padded rows fall in distinct banks
  __shared__ float vs[BC][D];
  const unsigned full = 0xffffffffu;
  int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  int i = blockIdx.x * WARPS + warp;
  float qr[D];
#pragma unroll
  for (int d = 0; d < D; ++d) qr[d] = q[i * D + d] * 0.125f;  // 1 / sqrt(64), exact
  float m = -1e30f, sum = 0.0f, o0 = 0.0f, o1 = 0.0f;
  for (int t = 0; t < L; t += BC) {
    __syncthreads();  // every warp is done with the previous tile
    for (int e = threadIdx.x; e < BC * D; e += blockDim.x) {
      int r = e / D, c = e % D;
      ks[r][c] = k[(t + r) * D + c];
      vs[r][c] = v[(t + r) * D + c];
    }
    __syncthreads();
    float s = 0.0f;
#pragma unroll
    for (int d = 0; d < D; ++d) s += qr[d] * ks[lane][d];
    float tile_max = s;
    for (int off = 16; off > 0; off >>= 1) tile_max = fmaxf(tile_max, __shfl_xor_sync(full, tile_max, off));
    float m_new = fmaxf(m, tile_max);
    float p = __expf(s - m_new), scale = __expf(m - m_new);
    float tile_sum = p;
    for (int off = 16; off > 0; off >>= 1) tile_sum += __shfl_xor_sync(full, tile_sum, off);
    sum = sum * scale + tile_sum;
    o0 *= scale;
    o1 *= scale;
    for (int j = 0; j < BC; ++j) {
      float pj = __shfl_sync(full, p, j);
      o0 += pj * vs[j][lane];
      o1 += pj * vs[j][lane + 32];
    }
    m = m_new;
  }
  o[i * D + lane] = o0 / sum;
  o[i * D + lane + 32] = o1 / sum;
}
