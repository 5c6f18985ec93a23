// ptx-targets: 90 100
// One warp computes a 16 x 8 tile of C = A B with K = `k` (A 16 x k row-major, B given as its
// transpose, 8 x k, both e4m3 bytes) by mma.sync.m16n8k32 into f32 accumulators: the inner loop
// of an FP8 GEMM. Each byte is masked with 0xBF (magnitudes below 2, never NaN).
//
// `promote_every` = 0: all of K is summed in the MMA's accumulators. Hopper's FP8 tensor cores
// keep about 14 bits of that sum (DeepSeek-V3's report; docs/tensor-numerics.md), so a long K
// loses precision. `promote_every` = n: after every n MMAs the partial sum is added to separate
// f32 registers with ordinary FP32 adds and the MMA accumulators restart from zero, the fix
// DeepSeek-V3 describes (n = 4, 128 elements of K) and CUTLASS's FP8 GEMMs offer.
//
// Fragments (PTX ISA, m16n8k32 with 8-bit inputs; g = lane / 4, t = lane % 4): A registers 0-3
// hold row g, g + 8, g, g + 8 at columns 4t..4t+3 (+16 for registers 2 and 3); B registers 0-1
// hold column g at rows 4t..4t+3 (+16); accumulator i is row g + 8 (i / 2), column 2t + i % 2.
extern "C" __global__ void fp8_accumulate(const unsigned char* a, const unsigned char* bt, float* c, int k, int promote_every) {
  const int lane = threadIdx.x & 31, g = lane / 4, t = lane % 4;
  const unsigned mask = 0xBFBFBFBFu;
  float d[4] = {0, 0, 0, 0}, sum[4] = {0, 0, 0, 0};
  auto word = [&](const unsigned char* p) { return *reinterpret_cast<const unsigned*>(p) & mask; };
  for (int k0 = 0, n = 0; k0 < k; k0 += 32) {
    const unsigned a0 = word(a + g * k + k0 + 4 * t), a1 = word(a + (g + 8) * k + k0 + 4 * t);
    const unsigned a2 = word(a + g * k + k0 + 16 + 4 * t), a3 = word(a + (g + 8) * k + k0 + 16 + 4 * t);
    const unsigned b0 = word(bt + g * k + k0 + 4 * t), b1 = word(bt + g * k + k0 + 16 + 4 * t);
#if __CUDA_ARCH__ >= 890
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#endif
    if (promote_every > 0 && ++n == promote_every) {
      for (int i = 0; i < 4; ++i) sum[i] += d[i], d[i] = 0;
      n = 0;
    }
  }
  for (int i = 0; i < 4; ++i) {
    sum[i] += d[i];
    c[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = sum[i];
  }
}
