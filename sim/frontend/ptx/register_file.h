#pragma once
// A warp's emulated registers. Storage registers of 32 bits or fewer take 4 bytes per lane and
// 64-bit ones 8, lane-major per register: with most registers 32-bit, this halves the bytes an
// instruction touches, and emulating a big grid is bound by those cache misses
// (docs/performance.md).
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace warpsim::ptx {


class RegisterFile {
 public:
  void reset(const uint32_t* slots, uint32_t words) {
    slots_ = slots;
    words_.assign(words, 0);
  }
  uint64_t get(int32_t r, uint32_t lane) const {
    const uint32_t s = slots_[r];
    if (s & 1) {
      uint64_t v;
      std::memcpy(&v, &words_[(s >> 1) + 2 * lane], 8);
      return v;
    }
    return words_[(s >> 1) + lane];
  }
  // `v` already fits the register's width (CtaEmulator::write masks it).
  void set(int32_t r, uint32_t lane, uint64_t v) {
    const uint32_t s = slots_[r];
    if (s & 1) {
      std::memcpy(&words_[(s >> 1) + 2 * lane], &v, 8);
    } else {
      words_[(s >> 1) + lane] = static_cast<uint32_t>(v);
    }
  }
  std::span<const uint32_t> words() const { return words_; }
  // Where register r lives: its first word << 1, | 1 when it is 64-bit (32 or 64 words in all).
  uint32_t slot(int32_t r) const { return slots_[r]; }
  // A register's lanes, for loops that know the width: one word per lane for 32 bits, a pair for 64.
  uint32_t* lanes32(int32_t r) { return &words_[slots_[r] >> 1]; }
  const uint32_t* lanes32(int32_t r) const { return &words_[slots_[r] >> 1]; }

 private:
  const uint32_t* slots_ = nullptr;
  std::vector<uint32_t> words_;
};

// Where each storage register lives: word offset << 1 | 1 when it is 64-bit; `words` gets the total.
inline std::vector<uint32_t> register_slots(const std::vector<uint32_t>& storage_bits, uint32_t& words) {
  std::vector<uint32_t> slots(storage_bits.size());
  words = 0;
  for (size_t r = 0; r < storage_bits.size(); ++r) {
    const bool wide = storage_bits[r] > 32;
    slots[r] = words << 1 | (wide ? 1u : 0u);
    words += wide ? 64 : 32;
  }
  return slots;
}

}  // namespace warpsim::ptx
