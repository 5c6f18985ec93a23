// CUB's block-wide primitives, as a kernel developer would use them: each block sorts 512 random
// keys with BlockRadixSort (4 per thread), then an exclusive prefix sum of their low bytes with
// BlockScan and the largest key with BlockReduce. Library code exercises PTX hand-written
// kernels rarely do (bmsk, bfe, shuffles, match, warp-synchronous scans).
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

constexpr int kThreads = 128, kItems = 4;

extern "C" __global__ void cub_block(const unsigned* keys, unsigned* sorted, unsigned* prefix, unsigned* largest) {
  using Sort = cub::BlockRadixSort<unsigned, kThreads, kItems>;
  using Scan = cub::BlockScan<unsigned, kThreads>;
  using Reduce = cub::BlockReduce<unsigned, kThreads>;
  __shared__ union {
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } temp;
  const int base = blockIdx.x * kThreads * kItems + threadIdx.x * kItems;
  unsigned k[kItems];
  for (int i = 0; i < kItems; ++i) k[i] = keys[base + i];
  Sort(temp.sort).Sort(k);  // blocked: thread t holds ranks 4t .. 4t + 3
  __syncthreads();
  unsigned low[kItems], sums[kItems];
  for (int i = 0; i < kItems; ++i) low[i] = k[i] & 0xff;
  Scan(temp.scan).ExclusiveSum(low, sums);
  __syncthreads();
  unsigned top = k[0];
  for (int i = 1; i < kItems; ++i) top = top > k[i] ? top : k[i];
  top = Reduce(temp.reduce).Reduce(top, ::cuda::maximum<>{});
  for (int i = 0; i < kItems; ++i) {
    sorted[base + i] = k[i];
    prefix[base + i] = sums[i];
  }
  if (threadIdx.x == 0) largest[blockIdx.x] = top;
}
