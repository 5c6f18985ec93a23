#include "sm/shared_banks.h"

#include <algorithm>
#include <array>

namespace warpsim {

uint32_t shared_wavefronts(const WarpInst& inst, uint32_t banks, uint32_t bank_bytes) {
  // At most 32 lanes x 4 words = 128 distinct words; a flat list beats a hash map at this size.
  std::array<uint64_t, 128> words;
  size_t count = 0;
  const uint32_t words_per_lane = std::max<uint32_t>(1, (inst.op->access_bytes + bank_bytes - 1) / bank_bytes);
  inst.for_each_address([&](int, uint64_t a) {
    for (uint32_t j = 0; j < words_per_lane; ++j) {
      uint64_t word = a / bank_bytes + j;
      if (std::find(words.begin(), words.begin() + static_cast<long>(count), word) == words.begin() + static_cast<long>(count))
        words[count++] = word;
    }
  });
  if (count == 0) return 1;
  std::array<uint32_t, 256> per_bank{};
  uint32_t worst = 1;
  for (size_t i = 0; i < count; ++i) {
    uint32_t b = static_cast<uint32_t>(words[i] % banks) & 255u;
    worst = std::max(worst, ++per_bank[b]);
  }
  return worst;
}

uint32_t distinct_addresses(const WarpInst& inst) {
  std::array<uint64_t, 32> seen;
  size_t count = 0;
  inst.for_each_address([&](int, uint64_t a) {
    if (std::find(seen.begin(), seen.begin() + static_cast<long>(count), a) == seen.begin() + static_cast<long>(count))
      seen[count++] = a;
  });
  return count ? static_cast<uint32_t>(count) : 1;
}

}  // namespace warpsim
