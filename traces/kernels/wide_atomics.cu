// Hopper's wider atomics, as CUDA 12.x exposes them: atomicAdd on float2 and float4 (PTX
// atom.global.add.v2.f32 / .v4.f32, one atomic per element) and atomicCAS / atomicExch on a
// 16-byte struct (atom.cas.b128 / atom.exch.b128 on .b128 registers). Each block has its own
// slots: eight float2 and float4 sums, a 128-bit counter bumped by a CAS loop across the carry
// from the low word into the high one, a CAS-loop maximum of (value, thread) pairs, and an
// exchange chain whose returned values, summed with what is left in the slot, are order-free.
// Before sm_90 the kernel is empty (the launch file requires 9.0).
// ptx-targets: 90 100

struct alignas(16) Pair {
  unsigned long long lo, hi;
};

extern "C" __global__ void wide_atomics(const unsigned* in, float2* sums2, float4* sums4, Pair* counter, Pair* best, Pair* slot,
                                        unsigned long long* totals) {
#if __CUDA_ARCH__ >= 900
  const unsigned b = blockIdx.x, t = threadIdx.x, v = in[b * blockDim.x + t];
  const float f = static_cast<float>(v);
  atomicAdd(&sums2[b * 8 + t % 8], make_float2(f, -2.0f * f));
  atomicAdd(&sums4[b * 8 + t % 8], make_float4(f, 1.0f, -f, 0.5f));

  Pair seen = counter[b];  // possibly stale: the CAS checks it
  for (;;) {
    const Pair next{seen.lo + 1, seen.hi + (seen.lo == ~0ull ? 1 : 0)};
    const Pair old = atomicCAS(&counter[b], seen, next);
    if (old.lo == seen.lo && old.hi == seen.hi) break;
    seen = old;
  }

  const Pair mine{v, t};
  Pair cur = best[b];
  while (cur.lo < mine.lo || (cur.lo == mine.lo && cur.hi < mine.hi)) {
    const Pair old = atomicCAS(&best[b], cur, mine);
    if (old.lo == cur.lo && old.hi == cur.hi) break;
    cur = old;
  }

  const Pair old = atomicExch(&slot[b], mine);
  atomicAdd(&totals[2 * b], old.lo);
  atomicAdd(&totals[2 * b + 1], old.hi);
  __syncthreads();
  if (t == 0) {
    totals[2 * b] += slot[b].lo;
    totals[2 * b + 1] += slot[b].hi;
  }
#endif
}
