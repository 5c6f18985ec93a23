// More of CUB, as a kernel developer would use it: warp-wide scans and reductions (WarpScan,
// WarpReduce with a head-segmented sum), a 64-bin byte histogram (BlockHistogram, whose sort-based
// algorithm scatters single bytes into shared memory from every thread), BlockLoad with a warp
// transpose, BlockDiscontinuity's head flags, BlockMergeSort and a transposing BlockStore.
// 512 items per block of 128 threads (4 each, blocked).
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

constexpr int kThreads = 128, kItems = 4;

struct Less {
  __device__ bool operator()(unsigned a, unsigned b) const { return a < b; }
};

extern "C" __global__ void cub_warp(const unsigned* in, unsigned* scans, unsigned* reductions, unsigned* histogram, unsigned* stored,
                                    unsigned* heads, unsigned* sorted) {
  using WarpScan = cub::WarpScan<unsigned>;
  using WarpReduce = cub::WarpReduce<unsigned>;
  using Histogram = cub::BlockHistogram<unsigned char, kThreads, kItems, 64>;
  using Load = cub::BlockLoad<unsigned, kThreads, kItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<unsigned, kThreads, kItems, cub::BLOCK_STORE_TRANSPOSE>;
  using Discontinuity = cub::BlockDiscontinuity<unsigned, kThreads>;
  using Sort = cub::BlockMergeSort<unsigned, kThreads, kItems>;
  __shared__ typename WarpScan::TempStorage scan_temp[kThreads / 32];
  __shared__ typename WarpReduce::TempStorage reduce_temp[kThreads / 32];
  __shared__ union {
    typename Histogram::TempStorage histogram;
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Discontinuity::TempStorage discontinuity;
    typename Sort::TempStorage sort;
  } temp;
  __shared__ unsigned bins[64];
  const int t = threadIdx.x, warp = t / 32, base = blockIdx.x * kThreads * kItems;
  const int thread = blockIdx.x * kThreads + t;

  // Warp level, on in[base + t]: an inclusive sum, an exclusive max-scan from 0, the warp's
  // minimum and sums over segments of 8 lanes.
  const unsigned v = in[base + t];
  unsigned inclusive, exclusive;
  WarpScan(scan_temp[warp]).InclusiveSum(v, inclusive);
  __syncwarp();
  WarpScan(scan_temp[warp]).ExclusiveScan(v, exclusive, 0u, cuda::maximum<>{});
  scans[2 * thread] = inclusive;
  scans[2 * thread + 1] = exclusive;
  const unsigned least = WarpReduce(reduce_temp[warp]).Reduce(v, cuda::minimum<>{});
  __syncwarp();
  const unsigned segment = WarpReduce(reduce_temp[warp]).HeadSegmentedSum(v, t % 8 == 0);
  if (t % 32 == 0) reductions[blockIdx.x * 4 + warp] = least;
  if (t % 8 == 0) reductions[64 + blockIdx.x * 16 + t / 8] = segment;

  // Block level, on the block's 512 items.
  unsigned items[kItems];
  Load(temp.load).Load(in + base, items);
  __syncthreads();
  unsigned char bytes[kItems];
  for (int i = 0; i < kItems; ++i) bytes[i] = static_cast<unsigned char>(items[i] % 64);
  Histogram(temp.histogram).Histogram(bytes, bins);
  __syncthreads();
  if (t < 64) histogram[blockIdx.x * 64 + t] = bins[t];
  int flags[kItems];
  Discontinuity(temp.discontinuity).FlagHeads(flags, items, cuda::std::not_equal_to<>{});
  __syncthreads();
  for (int i = 0; i < kItems; ++i) heads[base + t * kItems + i] = flags[i];
  unsigned keys[kItems];
  for (int i = 0; i < kItems; ++i) keys[i] = items[i];
  Sort(temp.sort).Sort(keys, Less());
  __syncthreads();
  for (int i = 0; i < kItems; ++i) sorted[base + t * kItems + i] = keys[i];
  __syncthreads();
  Store(temp.store).Store(stored + base, items);
}
