#pragma once
// warpsim's encoding of a tensor map: the 128-byte opaque CUtensorMap that
// cuTensorMapEncodeTiled fills on the host and a kernel takes as a __grid_constant__ parameter.
// Launch files describe one (`tensor_map:` arguments, docs/launch-format.md); the emulator reads
// it for cp.async.bulk.tensor. Tile mode, rank 1 to 5, no interleave, the four swizzle modes;
// out-of-bounds elements read as zero and are not written (CUDA driver API,
// cuTensorMapEncodeTiled; PTX ISA, "Tensor copy").
#include <cstdint>
#include <cstring>

namespace warpsim::ptx {

struct TensorMap {
  static constexpr uint64_t kMagic = 0x3250414d54535057ull;  // "WPSTMAP2", little-endian
  static constexpr uint32_t kMaxRank = 5;
  uint64_t magic = kMagic;
  uint64_t address = 0;        // global address of element (0, 0, ...)
  uint32_t rank = 0;
  uint32_t elem_bytes = 0;
  uint32_t dims[5] = {};       // elements per dimension, innermost first
  uint32_t box[5] = {};        // elements per dimension of the box one copy moves
  uint64_t strides[4] = {};    // bytes between consecutive indices of dimensions 1..rank-1
  uint32_t swizzle_bytes = 0;  // 0 (none), 32, 64 or 128: CU_TENSOR_MAP_SWIZZLE_*
  char elem_kind = 'u';        // 'f' float, 'h' bfloat16, 's' signed, 'u' unsigned: what a TMA reduction combines

  uint64_t box_elements() const {
    uint64_t n = 1;
    for (uint32_t d = 0; d < rank; ++d) n *= box[d];
    return n;
  }
};
static_assert(sizeof(TensorMap) <= 128, "a CUtensorMap is 128 bytes");

inline bool decode_tensor_map(const uint8_t* bytes, TensorMap& out) {
  std::memcpy(&out, bytes, sizeof out);
  const bool swizzle_ok = out.swizzle_bytes == 0 || out.swizzle_bytes == 32 || out.swizzle_bytes == 64 || out.swizzle_bytes == 128;
  return out.magic == TensorMap::kMagic && out.rank >= 1 && out.rank <= TensorMap::kMaxRank && out.elem_bytes > 0 && swizzle_ok;
}

}  // namespace warpsim::ptx
