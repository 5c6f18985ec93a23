// A single-pass inclusive prefix sum with decoupled look-back (Merrill and Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", NVIDIA technical report NVR-2016-002): the scan
// CUB's DeviceScan, Thrust and PyTorch's cumsum use. Each CTA scans a tile of 1024 integers,
// publishes its tile's sum at once, then looks back over its predecessors' published values
// until it meets one that carries the whole prefix before it; it then publishes its own prefix
// and writes its outputs. CTAs wait for each other through global memory, with no grid barrier:
// tiles are numbered in the order CTAs start (an atomic counter), so every tile a CTA waits for
// belongs to a CTA that is already running.
//
// Each tile's state is one 64-bit word, so that a status and its value are read together: the
// status in the high half (0: nothing yet, 1: the tile's own sum, 2: the inclusive prefix up to
// and including the tile), the value in the low half.
#include <stdint.h>

constexpr int kScanThreads = 256, kScanItems = 4, kScanTile = kScanThreads * kScanItems, kScanWarps = kScanThreads / 32;
constexpr unsigned long long kTileAggregate = 1ull << 32, kTilePrefix = 2ull << 32;

__device__ unsigned scan_warp_inclusive_sum(unsigned x, unsigned lane) {
  for (int d = 1; d < 32; d <<= 1) {
    const unsigned y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x += y;
  }
  return x;
}

__device__ unsigned long long scan_read_state(const unsigned long long* state) {
  return *reinterpret_cast<const volatile unsigned long long*>(state);
}

// Warp 0: the sum of every tile before `tile`, 32 predecessors at a time. Lane l looks at tile
// window_end - l; a window is used once every tile in it has published something; its nearest
// tile with a prefix ends the look-back, and the sums of the tiles after that one are added.
__device__ unsigned scan_look_back(const unsigned long long* tile_state, int tile, unsigned lane) {
  unsigned exclusive = 0;
  for (int window_end = tile - 1;; window_end -= 32) {
    const int t = window_end - static_cast<int>(lane);
    unsigned long long s;
    do {
      s = t >= 0 ? scan_read_state(&tile_state[t]) : kTilePrefix;  // before tile 0: a prefix of 0
    } while (__any_sync(0xffffffffu, (s >> 32) == 0));
    const unsigned prefixes = __ballot_sync(0xffffffffu, (s >> 32) == 2);
    const unsigned nearest = prefixes ? __ffs(prefixes) - 1 : 32;
    unsigned part = lane <= nearest ? static_cast<unsigned>(s) : 0u;
    for (int d = 16; d > 0; d >>= 1) part += __shfl_xor_sync(0xffffffffu, part, d);
    exclusive += part;
    if (prefixes) return exclusive;
  }
}

extern "C" __global__ void scan_lookback(const unsigned* in, unsigned* out, unsigned long long* tile_state, unsigned* tile_counter, int n) {
  __shared__ unsigned tile_s, exclusive_s, warp_sums[kScanWarps];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) tile_s = atomicAdd(tile_counter, 1u);
  __syncthreads();
  const int tile = static_cast<int>(tile_s);
  const int base = tile * kScanTile + static_cast<int>(threadIdx.x) * kScanItems;

  // The tile's scan: each thread's four items, then the threads' totals within each warp, then
  // the warps' totals.
  unsigned v[kScanItems], total = 0;
  for (int i = 0; i < kScanItems; ++i) {
    total += base + i < n ? in[base + i] : 0u;
    v[i] = total;
  }
  const unsigned in_warp = scan_warp_inclusive_sum(total, lane);
  if (lane == 31) warp_sums[warp] = in_warp;
  __syncthreads();
  if (warp == 0) {
    const unsigned w = scan_warp_inclusive_sum(lane < kScanWarps ? warp_sums[lane] : 0u, lane);
    if (lane < kScanWarps) warp_sums[lane] = w;
  }
  __syncthreads();
  const unsigned before_thread = in_warp - total + (warp > 0 ? warp_sums[warp - 1] : 0u);
  const unsigned aggregate = warp_sums[kScanWarps - 1];

  if (warp == 0) {
    unsigned exclusive = 0;
    if (tile == 0) {
      if (lane == 0) atomicExch(&tile_state[0], kTilePrefix | aggregate);
    } else {
      if (lane == 0) atomicExch(&tile_state[tile], kTileAggregate | aggregate);  // successors may use it now
      exclusive = scan_look_back(tile_state, tile, lane);
      if (lane == 0) atomicExch(&tile_state[tile], kTilePrefix | (exclusive + aggregate));
    }
    if (lane == 0) exclusive_s = exclusive;
  }
  __syncthreads();
  const unsigned offset = exclusive_s + before_thread;
  for (int i = 0; i < kScanItems; ++i)
    if (base + i < n) out[base + i] = offset + v[i];
}
