#pragma once
// Shared-memory swizzling, one definition for the tensor memory accelerator (which writes boxes
// swizzled) and the matrix descriptors of wgmma and tcgen05 (which read operands so).
#include <cstdint>

namespace warpsim::ptx {

// Where the 16-byte chunk holding shared address `a` sits under a swizzle mode of 32, 64 or 128
// bytes: the chunk index within each span (address bits 4..6) is XORed with the span's row within
// the 8-row pattern (bits 7..9), as TMA writes a box and wgmma/tcgen05 descriptors read one
// (CUTLASS names these Swizzle<1,4,3>, <2,4,3>, <3,4,3>). The pattern follows the shared-memory
// address, so it repeats every 256/512/1024 bytes from an address aligned to that much.
inline uint64_t swizzled(uint64_t a, uint32_t swizzle_bytes) {
  if (swizzle_bytes == 0) return a;
  const uint64_t rows_in_pattern = swizzle_bytes / 16 - 1;  // 1, 3 or 7: the row bits XORed into the chunk
  return a ^ (((a >> 7) & rows_in_pattern) << 4);
}

}  // namespace warpsim::ptx
