#pragma once
#include <cstdint>
#include <string>

namespace warpsim {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
  bool operator==(const Dim3&) const = default;
  std::string str() const {
    return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
  }
};

// Linear index of `id` inside `extent`, x fastest (CUDA's order).
inline uint64_t linear_index(const Dim3& id, const Dim3& extent) {
  return (uint64_t{id.z} * extent.y + id.y) * extent.x + id.x;
}

}  // namespace warpsim
