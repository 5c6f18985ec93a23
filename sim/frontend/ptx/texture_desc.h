#pragma once
// warpsim's texture and surface objects: what cudaCreateTextureObject and
// cudaCreateSurfaceObject make on the host and a kernel takes as a 64-bit handle
// (cudaTextureObject_t, cudaSurfaceObject_t). Launch files describe them (`texture:` and
// `surface:` arguments, docs/launch-format.md); each is kept in emulated global memory and its
// handle is that address, so the emulator's tex, tld4, txq, suld and sust read it like any
// other descriptor (texture_ops.cpp). The texels stay in their buffer, row-major with a row
// pitch (CUDA's linear and pitch-linear resources); a CUDA array's block-linear layout is the
// driver's secret, so arrays are laid out the same way here.
#include <cstdint>
#include <cstring>

namespace warpsim::ptx {

// Address modes (cudaTextureAddressMode): what a coordinate outside the texture reads.
enum class TexAddressMode : uint8_t { kClamp, kBorder, kWrap, kMirror };

struct TextureDesc {
  static constexpr uint64_t kMagic = 0x3158455453505057ull;  // "WPPSTEX1", little-endian
  uint64_t magic = kMagic;
  uint64_t address = 0;      // global address of texel (0, 0, 0)
  uint64_t pitch = 0;        // bytes from one row to the next
  uint64_t slice = 0;        // bytes from one 2D slice to the next (3D)
  uint32_t dims[3] = {1, 1, 1};  // texels along x, y, z
  uint32_t layers = 0;       // a layered texture's layers (cudaArrayLayered), `slice` bytes apart; 0: not layered
  uint8_t rank = 1;          // 1, 2 or 3
  uint8_t channels = 1;      // 1, 2 or 4 (CUDA has no 3-channel formats)
  uint8_t channel_bytes = 4; // 1, 2 or 4
  char channel_kind = 'f';   // 'f' float (f32, f16), 's' signed, 'u' unsigned
  bool surface = false;      // a surface object (suld, sust): no sampler state
  bool linear_resource = false;  // cudaResourceTypeLinear: tex1Dfetch only, no filtering or address modes
  bool linear_filter = false;    // cudaFilterModeLinear
  bool normalized_coords = false;
  bool normalized_read = false;  // cudaReadModeNormalizedFloat: 8- and 16-bit integers read as floats
  TexAddressMode address_mode[3] = {TexAddressMode::kClamp, TexAddressMode::kClamp, TexAddressMode::kClamp};

  uint32_t texel_bytes() const { return uint32_t{channels} * channel_bytes; }
  // Whether a fetch returns floats (f32 registers) rather than integers.
  bool returns_float() const { return channel_kind == 'f' || normalized_read; }
  uint64_t texel_address(uint64_t x, uint64_t y, uint64_t z) const { return address + z * slice + y * pitch + x * texel_bytes(); }
};
static_assert(sizeof(TextureDesc) <= 128, "the descriptor's buffer holds 128 bytes");

inline bool decode_texture(const uint8_t* bytes, TextureDesc& out) {
  std::memcpy(&out, bytes, sizeof out);
  return out.magic == TextureDesc::kMagic && out.rank >= 1 && out.rank <= 3 &&
         (out.channels == 1 || out.channels == 2 || out.channels == 4) &&
         (out.channel_bytes == 1 || out.channel_bytes == 2 || out.channel_bytes == 4);
}

}  // namespace warpsim::ptx
