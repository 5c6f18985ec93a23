// In-kernel malloc and free (the device heap, CUDA C++ Programming Guide "Dynamic Global Memory
// Allocation and Operations"): blocks allocated per thread and freed in the same kernel, blocks
// that outlive their kernel and are freed by the next one, and a request too big for the heap,
// which returns NULL.
#include <cstdint>

// Each thread allocates (t % 8) + 1 ints, fills them with k x t, sums them and frees them; thread
// 0 of each block also keeps a block of 16 ints (100 b + j) for the next kernel, and tries to
// allocate 1 GiB, more than the heap (8 MB by default) holds.
extern "C" __global__ void malloc_lists(unsigned* sums, int** kept, unsigned* null_seen) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, n = t % 8 + 1;
  unsigned* list = static_cast<unsigned*>(malloc(n * sizeof(unsigned)));
  unsigned s = 0;
  if (list) {
    for (unsigned k = 0; k < n; ++k) list[k] = k * t;
    for (unsigned k = 0; k < n; ++k) s += list[k];
    free(list);
  }
  sums[t] = s;
  if (threadIdx.x == 0) {
    int* keep = static_cast<int*>(malloc(16 * sizeof(int)));
    for (int j = 0; j < 16; ++j) keep[j] = 100 * static_cast<int>(blockIdx.x) + j;
    kept[blockIdx.x] = keep;
    null_seen[blockIdx.x] = malloc(size_t{1} << 30) == nullptr ? 1u : 0u;
  }
}

// Reads the blocks the previous kernel kept, then frees them.
extern "C" __global__ void malloc_reuse(int** kept, int* out) {
  const int* keep = kept[blockIdx.x];
  if (threadIdx.x < 16) out[blockIdx.x * 16 + threadIdx.x] = keep[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) free(kept[blockIdx.x]);
}
