// Single-head attention O = softmax(Q K^T / sqrt(d)) V for L queries/keys of dimension D = 64.
// naive: one kernel writes the L x L score matrix to global memory, a second normalises it row
//        by row and multiplies by V (the scores travel through DRAM twice).
// tiled: Flash-Attention-style: one warp per query keeps its running max and sum (online
//        softmax) and its output row in registers while it walks over K and V; no L x L matrix.
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
