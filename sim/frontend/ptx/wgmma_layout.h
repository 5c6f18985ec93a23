#pragma once
// wgmma's shared-memory matrix descriptors (PTX ISA, "Matrix Descriptor Format") and where a
// K-major operand's elements sit under each swizzle mode (wgmma.cpp explains the layouts).
#include <cstdint>

#include "frontend/ptx/swizzle.h"

namespace warpsim::ptx {

struct MatrixDescriptor {
  uint64_t start = 0, lbo = 0, sbo = 0;  // bytes
  uint32_t base_offset = 0;
  uint32_t swizzle_bytes = 0;            // 0 (none), 32, 64 or 128
};

inline MatrixDescriptor decode_matrix_descriptor(uint64_t desc) {
  static constexpr uint32_t kSwizzle[4] = {0, 128, 64, 32};
  return MatrixDescriptor{(desc & 0x3fff) << 4, ((desc >> 16) & 0x3fff) << 4, ((desc >> 32) & 0x3fff) << 4,
                          static_cast<uint32_t>((desc >> 49) & 7), kSwizzle[desc >> 62]};
}

// Blackwell's tcgen05 shared-memory descriptor: the same fields, plus a version (bits 46-47), a
// leading-byte-offset mode (bit 52) and a 3-bit layout (bits 61-63: 0 none, 2 128-byte, 4
// 64-byte, 6 32-byte, 1 128-byte with 32-byte atoms). `ok` is false for what is not modelled
// (the 32-byte-atom layout, the absolute LBO mode, a base offset).
inline MatrixDescriptor decode_tcgen05_descriptor(uint64_t desc, bool& ok) {
  MatrixDescriptor d = decode_matrix_descriptor(desc);
  const uint32_t layout = static_cast<uint32_t>(desc >> 61);
  d.swizzle_bytes = layout == 0 ? 0 : layout == 2 ? 128 : layout == 4 ? 64 : layout == 6 ? 32 : 1;
  ok = d.swizzle_bytes != 1 && ((desc >> 52) & 1) == 0 && d.base_offset == 0;
  return d;
}

// Shared-memory address of element (row, byte `byte` along K) of a K-major operand.
inline uint64_t matrix_element_address(const MatrixDescriptor& d, uint32_t row, uint32_t byte) {
  if (d.swizzle_bytes == 0) return d.start + (row / 8) * d.sbo + (byte / 16) * d.lbo + (row % 8) * 16 + byte % 16;
  const uint64_t a = d.start + (row / 8) * d.sbo + (row % 8) * d.swizzle_bytes + byte;
  return swizzled(a, d.swizzle_bytes);
}

// Shared-memory address of element (index `mn` along M or N, `k` along K) of an MN-major operand
// of `elem_bytes`-byte elements: T = 16 / elem_bytes consecutive elements of M/N share a 16-byte
// chunk; unswizzled, chunks step by SBO along M/N and core matrices of 8 K-rows by LBO along K;
// swizzled, W / 16 chunks make one W-byte row, rows of consecutive K are W apart, groups of 8
// K-rows SBO apart, and the next W bytes of M/N sit LBO further.
inline uint64_t mn_major_element_address(const MatrixDescriptor& d, uint32_t mn, uint32_t k, uint32_t elem_bytes) {
  const uint32_t per_chunk = 16 / elem_bytes;
  const uint64_t in_chunk = uint64_t{mn % per_chunk} * elem_bytes;
  if (d.swizzle_bytes == 0) return d.start + in_chunk + (mn / per_chunk) * d.sbo + (k % 8) * 16 + (k / 8) * d.lbo;
  const uint32_t chunks = d.swizzle_bytes / 16;
  const uint64_t a = d.start + in_chunk + ((mn / per_chunk) % chunks) * 16 + (mn / (per_chunk * chunks)) * d.lbo +
                     uint64_t{k % 8} * d.swizzle_bytes + (k / 8) * d.sbo;
  return swizzled(a, d.swizzle_bytes);
}

}  // namespace warpsim::ptx
