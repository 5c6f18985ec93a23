#include "sm/shared_banks.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace warpsim {

SharedPasses shared_passes(const WarpInst& inst, uint32_t banks, uint32_t bank_bytes) {
  const auto at_best = [banks](uint64_t distinct_words) { return static_cast<uint32_t>(std::max<uint64_t>(1, (distinct_words + banks - 1) / banks)); };
  const uint32_t words_per_lane = std::max<uint32_t>(1, (inst.op->access_bytes + bank_bytes - 1) / bank_bytes);
  uint64_t base = 0;
  int64_t signed_stride = 0;
  const bool strided = inst.strided_form(base, signed_stride);
  const uint64_t stride = static_cast<uint64_t>(signed_stride < 0 ? -signed_stride : signed_stride);
  // Every lane on the same word(s): one pass, the data broadcast.
  if (strided && stride == 0 && words_per_lane <= banks) return {1, 1};
  const bool disjoint_words =
      strided && stride >= uint64_t{words_per_lane} * bank_bytes && base % bank_bytes == 0 && stride % bank_bytes == 0;
  // A full warp of one-word accesses, `s` words apart, puts gcd(s, banks) x 32 / banks lanes in
  // each bank it touches (banks dividing 32, as on every GPU here).
  if (disjoint_words && inst.active_mask == 0xffffffffu && words_per_lane == 1 && 32 % banks == 0)
    return {std::max<uint32_t>(1, static_cast<uint32_t>(std::gcd(stride / bank_bytes, uint64_t{banks}) * 32 / banks)), at_best(32)};
  std::array<uint32_t, 256> per_bank;
  const size_t used = std::min<size_t>(banks, per_bank.size());
  std::fill(per_bank.begin(), per_bank.begin() + static_cast<long>(used), 0u);
  uint32_t worst = 1;
  if (disjoint_words) {
    // A partial warp or wider accesses, still on disjoint words: the passes are the most words any
    // bank holds.
    uint64_t words = 0;
    inst.for_each_address([&](int, uint64_t a) {
      for (uint32_t j = 0; j < words_per_lane; ++j) {
        uint32_t b = static_cast<uint32_t>((a / bank_bytes + j) % banks) & 255u;
        worst = std::max(worst, ++per_bank[b]);
      }
      words += words_per_lane;
    });
    return {worst, at_best(words)};
  }
  // General case: count distinct words per bank; lanes reading the same word share one pass.
  // Each bank chains the distinct words seen in it (one or two in practice: a row broadcast to
  // half a warp), so a lane looks among its own bank's words only, not all the warp's.
  constexpr size_t kMaxWords = 128;  // 32 lanes x 16 bytes in 4-byte banks
  std::array<int16_t, 256> chain_head;
  std::fill(chain_head.begin(), chain_head.begin() + static_cast<long>(used), int16_t{-1});
  std::array<uint64_t, kMaxWords> words;
  std::array<int16_t, kMaxWords> chain_next;
  int16_t count = 0;
  inst.for_each_address([&](int, uint64_t a) {
    for (uint32_t j = 0; j < words_per_lane; ++j) {
      const uint64_t word = a / bank_bytes + j;
      const uint32_t b = static_cast<uint32_t>(word % banks) & 255u;
      int16_t i = chain_head[b];
      while (i >= 0 && words[static_cast<size_t>(i)] != word) i = chain_next[static_cast<size_t>(i)];
      if (i >= 0) continue;
      if (static_cast<size_t>(count) == kMaxWords) break;
      words[static_cast<size_t>(count)] = word, chain_next[static_cast<size_t>(count)] = chain_head[b], chain_head[b] = count++;
      worst = std::max(worst, ++per_bank[b]);
    }
  });
  return {worst, std::min(worst, at_best(static_cast<uint64_t>(count)))};
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
