// Matrix transpose two ways. The naive kernel writes with a stride of the matrix width (every
// lane in its own 32-byte sector); the tiled one stages a 32x32 tile in shared memory (padded
// to 33 columns against bank conflicts) so both the reads and the writes are coalesced.
#define TILE 32
extern "C" __global__ void transpose_naive(const float* in, float* out, int width, int height) {
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += blockDim.y)
    if (x < width && y + j < height) out[x * height + y + j] = in[(y + j) * width + x];
}

extern "C" __global__ void transpose_tiled(const float* in, float* out, int width, int height) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += blockDim.y)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += blockDim.y)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
