// One warp per 16x16 output tile with the WMMA API (FP16 inputs, FP32 accumulate).
#include <mma.h>
using namespace nvcuda;
extern "C" __global__ void wmma_gemm(const half* a, const half* b, float* c, int m, int n, int k) {
  int tile_m = blockIdx.y, tile_n = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  for (int kk = 0; kk < k; kk += 16) {
    wmma::load_matrix_sync(fa, a + tile_m * 16 * k + kk, k);
    wmma::load_matrix_sync(fb, b + tile_n * 16 * k + kk, k);
    wmma::mma_sync(fc, fa, fb, fc);
  }
  wmma::store_matrix_sync(c + tile_m * 16 * n + tile_n * 16, fc, n, wmma::mem_row_major);
}
