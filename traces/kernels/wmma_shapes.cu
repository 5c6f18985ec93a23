// The WMMA shapes and types beyond wmma_gemm.cu's m16n16k16 FP16 -> FP32: one warp, one tile,
// D = A B + C, each kernel a different shape, element type or layout. The fragment layout across
// lanes is unspecified by CUDA, so only loads, stores, element-wise updates and mma_sync are used.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// m16n16k16, FP16 accumulators: A row-major, B column-major, C and D FP16 row-major.
extern "C" __global__ void wmma_f16_acc(const half* a, const half* b, const half* c, half* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

// m32n8k16, FP16 -> FP32: A and B row-major, C and D column-major (leading dimension 32).
extern "C" __global__ void wmma_m32n8k16(const half* a, const half* b, const float* c, float* d) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, float> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 8);
  wmma::load_matrix_sync(fc, c, 32, wmma::mem_col_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 32, wmma::mem_col_major);
}

// m32n8k16 / m16n16k16 with 8-bit integers (Turing and later): A unsigned row-major, B unsigned
// column-major, C from memory, saturating to the int32 range (satf).
extern "C" __global__ void wmma_u8_satfinite(const unsigned char* a, const unsigned char* b, const int* c, int* d) {
#if __CUDA_ARCH__ >= 720
  wmma::fragment<wmma::matrix_a, 32, 8, 16, unsigned char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, unsigned char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, int> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc, true);
  wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
#endif
}

extern "C" __global__ void wmma_s8(const signed char* a, const signed char* b, int* d) {
#if __CUDA_ARCH__ >= 720
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::fill_fragment(fc, 1000);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
#endif
}

// m8n32k16, BF16 -> FP32 (Ampere and later): A column-major, B row-major, C zero.
extern "C" __global__ void wmma_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* d) {
#if __CUDA_ARCH__ >= 800
  wmma::fragment<wmma::matrix_a, 8, 32, 16, __nv_bfloat16, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 8, 32, 16, float> fc;
  wmma::load_matrix_sync(fa, a, 8);
  wmma::load_matrix_sync(fb, b, 32);
  wmma::fill_fragment(fc, 0.0f);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 32, wmma::mem_row_major);
#endif
}

// m16n16k8, TF32 -> FP32 (Ampere and later): both inputs rounded to TF32 with __float_to_tf32,
// as the CUDA guide asks, then scaled by two (exact) to show element-wise fragment updates.
extern "C" __global__ void wmma_tf32(const float* a, const float* b, float* d) {
#if __CUDA_ARCH__ >= 800
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::load_matrix_sync(fa, a, 8);
  wmma::load_matrix_sync(fb, b, 16);
  for (int i = 0; i < fa.num_elements; i++) fa.x[i] = 2.0f * wmma::__float_to_tf32(fa.x[i]);
  for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  wmma::fill_fragment(fc, 0.0f);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
#endif
}

// m8n8k4, FP64 (Ampere and later): A row-major, B column-major, C and D row-major.
extern "C" __global__ void wmma_f64(const double* a, const double* b, const double* c, double* d) {
#if __CUDA_ARCH__ >= 800
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
  wmma::load_matrix_sync(fa, a, 4);
  wmma::load_matrix_sync(fb, b, 4);
  wmma::load_matrix_sync(fc, c, 8, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
#endif
}
