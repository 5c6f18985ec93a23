// Which tensor-memory cell each register of a tcgen05.ld/st moves (PTX ISA, "tcgen05.ld",
// "tcgen05.st" and their matrix-fragment figures). The figures are pictures; the maps below are
// as CUTLASS's SM100 TMEM copy traits (cute/atom/copy_traits_sm100.hpp, 32dp32b and
// 16dp{64,128,256,32}b) and TVM TIRx's tcgen05.ld/st page tabulate them, which agree. For thread
// l of the warp and its register r of an instruction .xN, relative to the address's lane and
// column:
//   32x32b     lane l,                   column r                              (N registers)
//   16x64b     lane l/4 + 8 (l%2),       column (l/2)%2 + 2r                   (N)
//   16x128b    lane l/4 + 8 (r%2),       column l%4 + 4 (r/2)                  (2N)
//   16x256b    lane l/4 + 8 ((r/2)%2),   column r%2 + 2 (l%4) + 8 (r/4)        (4N)
//   16x32bx2   lane l%16,                column r, plus immHalfSplitoff for l >= 16  (N)
// With .pack::16b (ld) or .unpack::16b (st), each register holds two 16-bit values, the low
// halves of two adjacent columns: column c of the map above becomes columns 2c and 2c + 1 (the
// lower one in the register's low half), counted from the half's start for 16x32bx2.
#pragma once

#include <cstdint>
#include <string_view>

namespace warpsim::ptx {

enum class TmemShape : uint8_t { kNone, k32x32b, k16x64b, k16x128b, k16x256b, k16x32bx2 };

// The shape a tcgen05.ld/st qualifier names ("32x32b", ...); kNone for any other text.
constexpr TmemShape tmem_shape_named(std::string_view qualifier) {
  return qualifier == "32x32b"     ? TmemShape::k32x32b
         : qualifier == "16x64b"   ? TmemShape::k16x64b
         : qualifier == "16x128b"  ? TmemShape::k16x128b
         : qualifier == "16x256b"  ? TmemShape::k16x256b
         : qualifier == "16x32bx2" ? TmemShape::k16x32bx2
                                   : TmemShape::kNone;
}

// Registers per thread of an instruction of this shape and .xN.
constexpr uint32_t tmem_registers(TmemShape shape, uint32_t num) {
  return shape == TmemShape::k16x128b ? 2 * num : shape == TmemShape::k16x256b ? 4 * num : num;
}

struct TmemCell {
  uint32_t lane = 0;    // from the address's lane
  uint32_t base = 0;    // the half's first column: immHalfSplitoff for 16x32bx2's upper threads, else 0
  uint32_t column = 0;  // from base, in the unpacked map's 32-bit columns
};

constexpr TmemCell tmem_fragment_cell(TmemShape shape, uint32_t thread, uint32_t reg, uint32_t split) {
  const uint32_t l = thread, r = reg;
  switch (shape) {
    case TmemShape::k16x64b: return {l / 4 + 8 * (l % 2), 0, (l / 2) % 2 + 2 * r};
    case TmemShape::k16x128b: return {l / 4 + 8 * (r % 2), 0, l % 4 + 4 * (r / 2)};
    case TmemShape::k16x256b: return {l / 4 + 8 * ((r / 2) % 2), 0, r % 2 + 2 * (l % 4) + 8 * (r / 4)};
    case TmemShape::k16x32bx2: return {l % 16, l >= 16 ? split : 0, r};
    default: return {l, 0, r};
  }
}

}  // namespace warpsim::ptx
