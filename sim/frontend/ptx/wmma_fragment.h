#pragma once
// WMMA fragments as the emulator keeps them. PTX leaves the distribution of a wmma fragment over
// the warp's lanes unspecified (PTX ISA, "Matrix Fragments for WMMA"): code may only load, store,
// fill, scale element-wise and multiply fragments, and all of that is independent of the layout.
// So the emulator picks the simplest one: slot s = (lane * R + r) * E + h of a fragment with R
// registers of E elements each holds matrix element s mod (rows * cols), row-major. When the
// registers have more slots than the matrix has elements (f16 A and B fragments), the matrix is
// repeated across the lanes.
#include <cstdint>
#include <string>
#include <vector>

namespace warpsim::ptx {

// Element kinds: 'h' f16, 'b' bf16, 't' tf32, 's' s8, 'u' u8, 'd' f64, 'f' f32, 'i' s32.
struct WmmaInfo {
  uint32_t m = 0, n = 0, k = 0;
  char a = 'h', b = 'h', c = 'f', d = 'f';
  bool satfinite = false;  // integer MMA: clamp to the s32 range instead of wrapping
};

uint32_t wmma_element_bytes(char kind);
inline uint32_t wmma_elements_per_register(char kind) {
  const uint32_t bytes = wmma_element_bytes(kind);
  return bytes < 4 ? 4 / bytes : 1;
}

struct FragmentShape {
  uint32_t rows = 0, cols = 0;
  char kind = 'h';
};
// The matrix a fragment of `matrix` ('a', 'b', 'c' or 'd') holds: A is m x k, B k x n, C and D m x n.
FragmentShape fragment_shape(const WmmaInfo& info, char matrix);

// Reads the shape and element types of a wmma.load, wmma.store (`matrix` 'a' to 'd') or wmma.mma
// (`matrix` 0) from the mnemonic's dotted `suffixes`. Returns what is not supported (naming
// `opcode`), or "" when the emulator runs it.
std::string decode_wmma(const std::string& opcode, const std::vector<std::string>& suffixes, char matrix, WmmaInfo& info);
// "" when `registers` registers hold a `matrix` fragment exactly (once or repeated), else why not.
std::string check_fragment_registers(const WmmaInfo& info, char matrix, uint32_t registers);

}  // namespace warpsim::ptx
