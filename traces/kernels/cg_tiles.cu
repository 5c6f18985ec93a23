// Cooperative groups' thread-block tiles: tiled_partition<16> and <8> split each warp into tiles
// whose collectives (reduce, any, all, ballot, shfl_down) see only their own lanes. nvcc gives
// each tile its own membermask in one instruction the whole warp runs (redux.sync, vote.sync
// and shfl.sync with a per-tile mask; shuffles instead of redux before sm_80).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void tile_collectives(const unsigned* in, unsigned* out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile16 = cg::tiled_partition<16>(block);
  auto tile8 = cg::tiled_partition<8>(block);
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned v = in[i];
  unsigned* o = out + 8 * i;
  o[0] = cg::reduce(tile16, v, cg::plus<unsigned>());
  o[1] = cg::reduce(tile8, v, cg::greater<unsigned>());
  o[2] = tile16.any(v % 7 == 0);
  o[3] = tile8.all(v % 2 == 0);
  o[4] = tile16.ballot(v & 1);
  o[5] = tile8.shfl_down(v, 3);
  o[6] = tile16.thread_rank() + 100 * tile16.meta_group_rank();
  o[7] = cg::reduce(tile16, v, cg::bit_xor<unsigned>());
}
