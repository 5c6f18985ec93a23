#pragma once
// Forward progress for a warp whose lanes have their own PCs (independent thread scheduling, PTX
// or SASS): the warp runs its lowest-PC group, but after 64 steps with other groups waiting, or
// after a spin-wait iteration (which sets run_length to 63), the next group after the PC run last
// gets the warp until its next branch (`following`, ~0u until the caller knows that group).
#include <cstdint>

namespace warpsim::ptx {

struct TurnTaking {
  uint32_t& following;   // the lanes handed the warp (0: none)
  uint32_t& run_length;  // steps since the last hand-over
  uint32_t turn;         // the PC run last
};

// The index of the group (of `n`, sorted by PC, pc_of(k) the k-th's) the search for a group to
// run starts at. `find_followed(lanes)`: the index of the group still holding all of `lanes`, or
// n if they have parted.
template <class PcOf, class FindFollowed>
uint32_t first_group_to_try(TurnTaking t, uint32_t live, uint32_t n, PcOf pc_of, FindFollowed find_followed) {
  const uint32_t followed = t.following & live;
  if (followed && n > 1) {
    const uint32_t k = find_followed(followed);
    if (k < n) return k;
    t.following = 0;
    return 0;
  }
  if (n > 1 && ++t.run_length >= 64) {
    t.run_length = 0;
    uint32_t start = 0;
    while (start < n && pc_of(start) <= t.turn) ++start;
    t.following = ~0u;  // the caller sets it to the group it chooses
    return start == n ? 0 : start;
  }
  t.following = 0;
  return 0;
}

}  // namespace warpsim::ptx
