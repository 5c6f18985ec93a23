#pragma once
// Set bits of a 32-bit mask (active lanes, sectors), inline. std::popcount compiles to a call
// into libgcc's table-driven routine when the target lacks the POPCNT instruction, as the
// default x86-64 target does; the timing model counts lanes and sectors for nearly every
// instruction and memory request (2% of the simulation's instructions went to that routine).
#include <bit>
#include <cstdint>

namespace warpsim {

constexpr int bit_count(uint32_t x) {
#if defined(__POPCNT__)
  return std::popcount(x);
#else
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return static_cast<int>((x * 0x01010101u) >> 24);
#endif
}

}  // namespace warpsim
