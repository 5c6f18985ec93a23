// CUDA's SIMD intrinsics on packed bytes and halves (__vabsdiffu4, __vaddss2, __vsadu4, ...):
// nvcc turns most into integer sequences and some into PTX's SIMD video instructions
// (vabsdiff2/4) or packed 16-bit integer arithmetic (max.s16x2). Thread t applies 52 of them to
// words t and t + 1; each result row is checked against Python implementations of their
// documented per-element meaning.
extern "C" __global__ void simd_intrinsics(const unsigned* in, unsigned* out) {
  const int t = threadIdx.x;
  const unsigned x = in[t], y = in[t + 1];
  int k = 0;
  out[k++ * 256 + t] = __vabs2(x);
  out[k++ * 256 + t] = __vabs4(x);
  out[k++ * 256 + t] = __vabsss2(x);
  out[k++ * 256 + t] = __vabsss4(x);
  out[k++ * 256 + t] = __vneg2(x);
  out[k++ * 256 + t] = __vneg4(x);
  out[k++ * 256 + t] = __vnegss2(x);
  out[k++ * 256 + t] = __vnegss4(x);
  out[k++ * 256 + t] = __vabsdiffs2(x, y);
  out[k++ * 256 + t] = __vabsdiffs4(x, y);
  out[k++ * 256 + t] = __vabsdiffu2(x, y);
  out[k++ * 256 + t] = __vabsdiffu4(x, y);
  out[k++ * 256 + t] = __vadd2(x, y);
  out[k++ * 256 + t] = __vadd4(x, y);
  out[k++ * 256 + t] = __vaddss2(x, y);
  out[k++ * 256 + t] = __vaddss4(x, y);
  out[k++ * 256 + t] = __vaddus2(x, y);
  out[k++ * 256 + t] = __vaddus4(x, y);
  out[k++ * 256 + t] = __vavgs2(x, y);
  out[k++ * 256 + t] = __vavgs4(x, y);
  out[k++ * 256 + t] = __vavgu2(x, y);
  out[k++ * 256 + t] = __vavgu4(x, y);
  out[k++ * 256 + t] = __vcmpeq2(x, y);
  out[k++ * 256 + t] = __vcmpeq4(x, y);
  out[k++ * 256 + t] = __vcmpges2(x, y);
  out[k++ * 256 + t] = __vcmpgeu4(x, y);
  out[k++ * 256 + t] = __vcmpgts2(x, y);
  out[k++ * 256 + t] = __vcmpltu4(x, y);
  out[k++ * 256 + t] = __vhaddu2(x, y);
  out[k++ * 256 + t] = __vhaddu4(x, y);
  out[k++ * 256 + t] = __vmaxs2(x, y);
  out[k++ * 256 + t] = __vmaxs4(x, y);
  out[k++ * 256 + t] = __vmaxu2(x, y);
  out[k++ * 256 + t] = __vmaxu4(x, y);
  out[k++ * 256 + t] = __vmins2(x, y);
  out[k++ * 256 + t] = __vmins4(x, y);
  out[k++ * 256 + t] = __vminu2(x, y);
  out[k++ * 256 + t] = __vminu4(x, y);
  out[k++ * 256 + t] = __vsads2(x, y);
  out[k++ * 256 + t] = __vsads4(x, y);
  out[k++ * 256 + t] = __vsadu2(x, y);
  out[k++ * 256 + t] = __vsadu4(x, y);
  out[k++ * 256 + t] = __vseteq2(x, y);
  out[k++ * 256 + t] = __vseteq4(x, y);
  out[k++ * 256 + t] = __vsetgts2(x, y);
  out[k++ * 256 + t] = __vsetltu4(x, y);
  out[k++ * 256 + t] = __vsub2(x, y);
  out[k++ * 256 + t] = __vsub4(x, y);
  out[k++ * 256 + t] = __vsubss2(x, y);
  out[k++ * 256 + t] = __vsubss4(x, y);
  out[k++ * 256 + t] = __vsubus2(x, y);
  out[k++ * 256 + t] = __vsubus4(x, y);
}
