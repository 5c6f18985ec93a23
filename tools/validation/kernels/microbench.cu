// Microbenchmarks for validation against real GPUs (tools/validation/README.md): each kernel is
// compiled once for the GPU run and once to PTX for warpsim, with the same launch shape
// (tools/validation/suite.py). Results go to a buffer so the compiler keeps the work and the
// harness can check it against a reference first. Per-thread results go to out[threadIdx.x]:
// every block writes the same values, so the output (and its reference) stays one block long.

// Latency ladder: one thread follows next[] `steps` times (next[i] = i + stride, wrapping at n),
// so every load depends on the one before. The ring's size decides where it lives: L1, L2, DRAM.
extern "C" __global__ void chase(const unsigned* next, unsigned n, unsigned steps, unsigned* out) {
  unsigned j = 0;
  for (unsigned s = 0; s < steps; ++s) {
    j = next[j];
    if (j >= n) j -= n;
  }
  out[0] = j;
}

// The same chase through shared memory: one thread copies a ring of n <= 1024 next indices
// (wrapped here) into shared memory, then follows it `steps` times: the shared-memory latency,
// whose published figures are of low confidence (A100, H100).
extern "C" __global__ void chase_shared(const unsigned* next, unsigned n, unsigned steps, unsigned* out) {
  __shared__ unsigned ring[1024];
  for (unsigned i = 0; i < n; ++i) ring[i] = next[i] >= n ? next[i] - n : next[i];
  unsigned j = 0;
  for (unsigned s = 0; s < steps; ++s) j = ring[j];
  out[0] = j;
}

// Bandwidth: grid-stride loops over float4, enough blocks to fill the GPU.
extern "C" __global__ void bw_read(const float4* a, unsigned n4, float* out) {
  float acc = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 v = a[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == -1.0f) out[0] = acc;  // never true for the inputs used; keeps the loads
}

// Reads the same n4 float4 elements `laps` times past L1 (ld.global.cg): after the first lap
// (from DRAM) the set comes from L2, from the requester's own partition while it fits in one and
// from the other partition beyond (A100, H100, H200), which is what the far-partition bandwidth
// penalty is measured by.
extern "C" __global__ void bw_reread(const float4* a, unsigned n4, unsigned laps, float* out) {
  float acc = 0.0f;
  for (unsigned lap = 0; lap < laps; ++lap) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
      float4 v = __ldcg(a + i);
      acc += v.x + v.y + v.z + v.w;
    }
  }
  if (acc == -1.0f) out[0] = acc;  // never true for the inputs used; keeps the loads
}

// Random sector reads: lane t's i-th load reads the 4-byte word at a hash of (t, i) in an n-word
// buffer (n a power of two, far beyond L2): nearly every load is a sector of its own in a row no
// other load has open, so the DRAM's activation rate (tRRD, tFAW, tRC per bank), not its bus,
// bounds the rate. The hash is a fixed integer mix, so warpsim reads the same addresses.
extern "C" __global__ void bw_random(const unsigned* a, unsigned n, unsigned loads, unsigned* out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (unsigned i = 0; i < loads; ++i) {
    unsigned h = (t * loads + i + 1u) * 0x9E3779B1u;
    h ^= h >> 15;
    h *= 0x85EBCA77u;
    h ^= h >> 13;
    acc += a[h & (n - 1u)];
  }
  if (acc == 1u) out[0] = acc;  // never true: the buffer is zeros; keeps the loads
}

extern "C" __global__ void bw_write(float4* a, unsigned n4) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float f = 4.0f * i;
    a[i] = make_float4(f, f + 1.0f, f + 2.0f, f + 3.0f);
  }
}

extern "C" __global__ void bw_copy(const float4* a, float4* b, unsigned n4) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) b[i] = a[i];
}

extern "C" __global__ void bw_triad(float4* a, const float4* b, const float4* c, float s, unsigned n4) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 x = b[i], y = c[i];
    a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w);
  }
}

// Arithmetic: a dependent chain in one thread (latency) or eight independent chains per thread
// in many warps (throughput). x = x * a + b with a = 1, b = 1 stays an exact integer.
extern "C" __global__ void fma_chain(float a, float b, unsigned n, float* out) {
  float x = threadIdx.x;
  for (unsigned i = 0; i < n; ++i) x = fmaf(x, a, b);
  out[threadIdx.x] = x;
}

extern "C" __global__ void fma_streams(float a, float b, unsigned n, float* out) {
  float x0 = 0, x1 = 1, x2 = 2, x3 = 3, x4 = 4, x5 = 5, x6 = 6, x7 = 7;
  for (unsigned i = 0; i < n; ++i) {
    x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
    x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
  }
  out[threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

extern "C" __global__ void dfma_streams(double a, double b, unsigned n, double* out) {
  double x0 = 0, x1 = 1, x2 = 2, x3 = 3;
  for (unsigned i = 0; i < n; ++i) {
    x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);
  }
  out[threadIdx.x] = x0 + x1 + x2 + x3;
}

// Special functions (MUFU): four independent ex2.approx chains per thread on small values.
extern "C" __global__ void sfu_streams(unsigned n, float* out) {
  float x0 = 0.125f, x1 = 0.25f, x2 = 0.375f, x3 = 0.5f;
  for (unsigned i = 0; i < n; ++i) {
    x0 = exp2f(x0) - 1.0f; x1 = exp2f(x1) - 1.0f; x2 = exp2f(x2) - 1.0f; x3 = exp2f(x3) - 1.0f;
  }
  out[threadIdx.x] = x0 + x1 + x2 + x3;
}

// Shared-memory bank conflicts: lane l reads word (l * stride) % 1024 + k, so `stride` lanes
// share a bank (stride 1: none, 32: all 32 lanes in one bank).
extern "C" __global__ void shared_stride(unsigned stride, unsigned n, unsigned* out) {
  __shared__ unsigned s[2048];
  for (unsigned i = threadIdx.x; i < 2048; i += blockDim.x) s[i] = i;
  __syncthreads();
  unsigned lane = threadIdx.x & 31, acc = 0;
  for (unsigned k = 0; k < n; ++k) acc += s[(lane * stride) % 1024 + (k & 1023)];
  out[threadIdx.x] = acc;
}

// Divergence: the lanes of a warp split into `paths` groups (lane % paths), each running its own
// copy of a 16-FMA body, so a warp issues the body `paths` times.
extern "C" __global__ void diverge_paths(unsigned paths, unsigned n, float* out) {
  unsigned lane = threadIdx.x & 31, p = lane % paths;
  float x = lane;
  for (unsigned k = 0; k < n; ++k) {
    for (unsigned q = 0; q < 32; ++q) {
      if (q == p) {
#pragma unroll
        for (int i = 0; i < 16; ++i) x = fmaf(x, 1.0f, 1.0f);
      }
    }
  }
  out[threadIdx.x] = x;
}

// Loops whose trip count depends on the lane: lane l runs base + l * step iterations.
extern "C" __global__ void lane_trips(unsigned base, unsigned step, float* out) {
  unsigned lane = threadIdx.x & 31;
  float x = 0.0f;
  for (unsigned k = 0; k < base + lane * step; ++k) x = fmaf(x, 1.0f, 1.0f);
  out[threadIdx.x] = x;
}

// Atomics under contention: every thread adds 1 to counters[tid % slots] `n` times.
extern "C" __global__ void atomic_slots(unsigned slots, unsigned n, unsigned* counters) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned k = 0; k < n; ++k) atomicAdd(&counters[t % slots], 1u);
}

// The launch cost alone, to subtract from every measured time.
extern "C" __global__ void empty_kernel() {}
