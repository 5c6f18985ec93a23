// Single-head attention O = softmax(Q K^T / sqrt(d)) V on tensor cores, FlashAttention-2 style:
// the attention of attention.cu (d = 64) with Q, K and V in FP16 and FP32 accumulation.
// - Each warp owns 16 query rows; a block of W warps shares 64-key tiles of K and V that cp.async
//   stages into shared memory two at a time (the next tile loads while this one is used).
// - S = Q K^T with mma.sync.m16n8k16: Q's A fragments stay in registers for the whole kernel; K's
//   B fragments come from shared memory through ldmatrix (rows of K are columns of K^T).
// - The online softmax runs on the accumulator fragments: lane g*4+t holds rows g and g+8, so a
//   row's max is two shuffles among four lanes, and each lane keeps a partial row sum that is
//   reduced once at the end.
// - P V reuses the accumulators as A fragments (m16n8k16's C layout for two adjacent 8-key
//   tiles is its A layout for 16 keys) after rounding P to FP16; V's B fragments need V's
//   columns, which ldmatrix.trans reads from V's rows.
// The grid's y dimension counts heads: head h's Q, K, V and O follow head h-1's.
// Rows are padded by 8 halves (16 bytes) so the eight 16-byte rows an ldmatrix phase reads fall
// in distinct banks.
#include <cuda_fp16.h>

// Named apart from attention.cu's macros: the validation harness compiles both in one unit.
constexpr int kHeadDim = 64;              // d
constexpr int kTileKeys = 64;             // keys per tile
constexpr int kRowPad = kHeadDim + 8;     // padded row length in halves

__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<unsigned*>(&h);
}

extern "C" __global__ void attention_mma(const __half* q, const __half* k, const __half* v, float* o, int n) {
  __shared__ __align__(16) __half ks[2][kTileKeys][kRowPad];
  __shared__ __align__(16) __half vs[2][kTileKeys][kRowPad];
  const unsigned full = 0xffffffffu;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int row0 = (blockIdx.x * (blockDim.x / 32) + warp) * 16;
  const size_t head = size_t(blockIdx.y) * n * kHeadDim;  // grid.y heads, each n x d in turn
  q += head;
  k += head;
  v += head;
  o += head;
  const float scale = 0.125f * 1.44269504088896341f;  // 1 / sqrt(64) and log2(e): exp2 of scaled scores
#if __CUDA_ARCH__ >= 800
  // Q's A fragments for the four 16-wide chunks of d: rows g and g+8, columns 2t and 2t+8.
  unsigned qa[4][4];
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    const unsigned* lo = reinterpret_cast<const unsigned*>(q + (row0 + g) * kHeadDim + c * 16 + 2 * t);
    const unsigned* hi = reinterpret_cast<const unsigned*>(q + (row0 + g + 8) * kHeadDim + c * 16 + 2 * t);
    qa[c][0] = lo[0];
    qa[c][1] = hi[0];
    qa[c][2] = lo[4];
    qa[c][3] = hi[4];
  }
  auto load_tile = [&](int stage, int key0) {
    for (int i = threadIdx.x; i < kTileKeys * kHeadDim / 8; i += blockDim.x) {  // 16-byte pieces, 8 per row
      int r = i / 8, c = (i % 8) * 8;
      unsigned kd = static_cast<unsigned>(__cvta_generic_to_shared(&ks[stage][r][c]));
      unsigned vd = static_cast<unsigned>(__cvta_generic_to_shared(&vs[stage][r][c]));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(kd), "l"(k + (key0 + r) * kHeadDim + c));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(vd), "l"(v + (key0 + r) * kHeadDim + c));
    }
    asm volatile("cp.async.commit_group;");
  };
  float m_lo = -1e30f, m_hi = -1e30f, l_lo = 0.0f, l_hi = 0.0f;  // running max and partial sum of rows g, g+8
  float acc[8][4];  // O's 16 x 64 block: eight 8-wide tiles of d
#pragma unroll
  for (int j = 0; j < 8; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;
  const int tiles = n / kTileKeys;
  load_tile(0, 0);
  for (int tile = 0; tile < tiles; ++tile) {
    const int stage = tile & 1;
    if (tile + 1 < tiles) {
      load_tile(stage ^ 1, (tile + 1) * kTileKeys);
      asm volatile("cp.async.wait_group 1;");  // this tile's group is done, the next may be in flight
    } else {
      asm volatile("cp.async.wait_group 0;");
    }
    __syncthreads();  // every thread's pieces of this tile have landed
    // S = Q K^T: eight 8-key tiles; ldmatrix.x4 gives the B fragments of two 16-wide chunks of d.
    float s[8][4];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
#pragma unroll
      for (int cp = 0; cp < 2; ++cp) {
        unsigned b[4];
        unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&ks[stage][j * 8 + lane % 8][cp * 32 + (lane / 8) * 8]));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3]) : "r"(addr));
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const unsigned* a = qa[cp * 2 + h];
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                       : "+f"(s[j][0]), "+f"(s[j][1]), "+f"(s[j][2]), "+f"(s[j][3])
                       : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[2 * h]), "r"(b[2 * h + 1]));
        }
      }
    }
    // Online softmax on the fragments: the new row maxima over this tile, shared by the quad.
    float mx_lo = m_lo, mx_hi = m_hi;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) s[j][e] *= scale;
      mx_lo = fmaxf(mx_lo, fmaxf(s[j][0], s[j][1]));
      mx_hi = fmaxf(mx_hi, fmaxf(s[j][2], s[j][3]));
    }
#pragma unroll
    for (int off = 1; off < 4; off <<= 1) {
      mx_lo = fmaxf(mx_lo, __shfl_xor_sync(full, mx_lo, off));
      mx_hi = fmaxf(mx_hi, __shfl_xor_sync(full, mx_hi, off));
    }
    const float corr_lo = exp2f(m_lo - mx_lo), corr_hi = exp2f(m_hi - mx_hi);
    m_lo = mx_lo;
    m_hi = mx_hi;
    l_lo *= corr_lo;
    l_hi *= corr_hi;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      s[j][0] = exp2f(s[j][0] - mx_lo);
      s[j][1] = exp2f(s[j][1] - mx_lo);
      s[j][2] = exp2f(s[j][2] - mx_hi);
      s[j][3] = exp2f(s[j][3] - mx_hi);
      l_lo += s[j][0] + s[j][1];
      l_hi += s[j][2] + s[j][3];
      acc[j][0] *= corr_lo;
      acc[j][1] *= corr_lo;
      acc[j][2] *= corr_hi;
      acc[j][3] *= corr_hi;
    }
    // O += P V: P's 16 keys per chunk as an A fragment, V's B fragments of two d tiles per ldmatrix.
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      unsigned pa0 = pack_half2(s[2 * c][0], s[2 * c][1]), pa1 = pack_half2(s[2 * c][2], s[2 * c][3]);
      unsigned pa2 = pack_half2(s[2 * c + 1][0], s[2 * c + 1][1]), pa3 = pack_half2(s[2 * c + 1][2], s[2 * c + 1][3]);
#pragma unroll
      for (int dp = 0; dp < 4; ++dp) {
        unsigned b[4];
        // Matrices: keys 16c..16c+7 and 16c+8..16c+15 of d tile 2dp, then the same of tile 2dp+1.
        unsigned addr = static_cast<unsigned>(
            __cvta_generic_to_shared(&vs[stage][c * 16 + ((lane / 8) & 1) * 8 + lane % 8][(dp * 2 + lane / 16) * 8]));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3]) : "r"(addr));
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          float* d = acc[dp * 2 + h];
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                       : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                       : "r"(pa0), "r"(pa1), "r"(pa2), "r"(pa3), "r"(b[2 * h]), "r"(b[2 * h + 1]));
        }
      }
    }
    __syncthreads();  // every warp is done with this stage before the load two tiles on refills it
  }
#pragma unroll
  for (int off = 1; off < 4; off <<= 1) {
    l_lo += __shfl_xor_sync(full, l_lo, off);
    l_hi += __shfl_xor_sync(full, l_hi, off);
  }
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    float2 lo = make_float2(acc[j][0] / l_lo, acc[j][1] / l_lo), hi = make_float2(acc[j][2] / l_hi, acc[j][3] / l_hi);
    *reinterpret_cast<float2*>(o + (row0 + g) * kHeadDim + j * 8 + 2 * t) = lo;
    *reinterpret_cast<float2*>(o + (row0 + g + 8) * kHeadDim + j * 8 + 2 * t) = hi;
  }
#endif
}
