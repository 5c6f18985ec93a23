#include "sm/shared_banks.h"

#include <algorithm>
#include <array>

namespace warpsim {

uint32_t shared_wavefronts(const WarpInst& inst, uint32_t banks, uint32_t bank_bytes) {
  const uint32_t words_per_lane = std::max<uint32_t>(1, (inst.op->access_bytes + bank_bytes - 1) / bank_bytes);
  std::array<uint32_t, 256> per_bank{};
  const uint64_t stride = static_cast<uint64_t>(inst.addr.stride < 0 ? -inst.addr.stride : inst.addr.stride);
  uint32_t worst = 1;
  if (!inst.addr.list && stride >= uint64_t{words_per_lane} * bank_bytes && inst.addr.base % bank_bytes == 0 &&
      stride % bank_bytes == 0) {
    // Fast path: a strided access whose lanes touch disjoint words; every word is distinct, so
    // the passes are simply the most words any bank holds.
    inst.for_each_address([&](int, uint64_t a) {
      for (uint32_t j = 0; j < words_per_lane; ++j) {
        uint32_t b = static_cast<uint32_t>((a / bank_bytes + j) % banks) & 255u;
        worst = std::max(worst, ++per_bank[b]);
      }
    });
    return worst;
  }
  // General case: count distinct words per bank; lanes reading the same word share one pass.
  std::array<uint64_t, 128> words;
  size_t count = 0;
  inst.for_each_address([&](int, uint64_t a) {
    for (uint32_t j = 0; j < words_per_lane && count < words.size(); ++j) words[count++] = a / bank_bytes + j;
  });
  if (count == 0) return 1;
  std::sort(words.begin(), words.begin() + static_cast<long>(count));
  uint64_t previous = UINT64_MAX;
  for (size_t i = 0; i < count; ++i) {
    if (words[i] == previous) continue;
    previous = words[i];
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
