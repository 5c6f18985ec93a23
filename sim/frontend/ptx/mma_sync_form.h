#pragma once
// mma.sync's forms: the shape and element types read once from the mnemonic, and where each
// element of a lane's A, B, C and D fragments sits in its matrix (PTX ISA, "Matrix Fragments for
// mma.mMnNkK"). Every shape but Volta's m8n8k4 on f16 follows one pattern, with group = lane / 4,
// t = lane % 4 and p elements per 32-bit register (8 for 4-bit types, 4 for 8-bit, 2 for 16-bit):
//   A element i:  row = group + 8 ((i / p) % 2) [M = 16],  col = p t + i % p + 4p (i / 2p) [M = 16], p t + i [M = 8]
//   B element i:  row = p t + i % p + 4p (i / p),          col = group
//   C and D:      row = group + 8 (i / 2),                 col = 2t + i % 2
// and for 32- and 64-bit types, one element per register:
//   A element i:  row = group + 8 (i % 2) [M = 16],        col = t + 4 (i / 2) [M = 16], t + 4i [M = 8]
//   B element i:  row = t + 4i,                            col = group
// Volta's m8n8k4 on f16 is four independent 8 x 8 x 4 MMAs, computation c = (lane % 16) / 4 on
// lanes 4c..4c+3 (rows 0-3) and 16+4c..16+4c+3 (rows 4-7); with r = lane % 4 + 4 [lane >= 16]:
//   A row-major (g, i) -> (r, i); column-major -> (i + 4 [lane >= 16], lane % 4)
//   B row-major -> (lane % 4, i + 4 [lane >= 16]); column-major -> (i, r)
//   C/D f16 -> (r, i); f32 -> ((lane & 1) + (i & 2) + 4 [lane >= 16], (i & 4) + (lane & 2) + (i & 1))
// placed here as blocks on the diagonal of one 32 x 4 by 4 x 32 product (computation c at rows and
// columns 8c..8c+7), so the same multiply serves every form.
// Structured-sparse forms (mma.sp, mma.sp::ordered_metadata) hold A compressed: two of every four
// elements of a row (4:8 in pairs for 4-bit types, one of two for tf32), in the fragment layout of a
// dense A of K / 2 columns. Metadata, one 32-bit register, gives each chunk's positions as a nibble
// of two 2-bit indices (low one for the first stored element; tf32's 0b0100 / 0b1110 name its
// first or second element; 4-bit types' indices name pairs). A group of four lanes (group = lane /
// 4) covers rows group and group + 8; its K / (4 x chunk) contributing lanes, chosen by the
// sparsity selector, each hold four chunks of both rows: contributor j = lane % 4 - selector x
// contributors has chunk 4j + c of row group in bits 4c..4c+3 and of row group + 8 in bits
// 16+4c..16+4c+3. (PTX ISA, "Sparse matrix storage" and its selector rules; the figures are not
// in the reference text here. The lane split is spelled out for m16n8k32 f16, after the ISA's
// figure, in the comments of LLVM's MLIR CUDA integration test of nvgpu.mma.sp.sync 16x8x32: with
// selector 0, lane j (0 or 1) of a group holds K columns 16j..16j+15 of row group in its low 16
// bits and of row group + 8 in its high 16. The other shapes follow the same four-chunks-per-lane
// pattern, which matches every selector range the ISA and ptxas give. Never compared with a GPU.)
// Checked against the ISA's figures for m16n8k16 and m16n8k32 (8-bit), m16n8k8/k16 (16-bit),
// m16n8k4/k8 (tf32), m8n8k4 and m16n8k8/k16 (f64), m8n8k16 (8-bit), m8n8k32, m16n8k32 and
// m16n8k64 (4-bit) and m8n8k4 (f16) in tests/unit/frontend/ptx_mma_sync_test.cpp.
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "common/half.h"

namespace warpsim::ptx {

enum class MmaElem : uint8_t { kNone, kF16, kBf16, kTf32, kE4m3, kE5m2, kS8, kU8, kS4, kU4, kF32, kS32, kF64 };

uint32_t mma_elem_bits(MmaElem e);
bool mma_elem_integer(MmaElem e);
double e4m3_value(uint64_t bits);
// The element's value: inputs as the PTX ISA defines them (tf32's 13 low mantissa bits unused).
// Inline: the emulator converts every fragment element of every MMA.
inline double mma_elem_value(MmaElem e, uint64_t bits) {
  switch (e) {
    case MmaElem::kF16: return half_to_float(static_cast<uint16_t>(bits));
    case MmaElem::kBf16: return std::bit_cast<float>(static_cast<uint32_t>(bits & 0xffff) << 16);
    case MmaElem::kTf32: return std::bit_cast<float>(static_cast<uint32_t>(bits) & 0xffffe000u);
    case MmaElem::kE5m2: return half_to_float(static_cast<uint16_t>((bits & 0xff) << 8));
    case MmaElem::kE4m3: return e4m3_value(bits);
    case MmaElem::kS8: return static_cast<int8_t>(bits & 0xff);
    case MmaElem::kU8: return static_cast<double>(bits & 0xff);
    case MmaElem::kS4: return static_cast<int>(bits & 0xf) - ((bits & 0x8) ? 16 : 0);
    case MmaElem::kU4: return static_cast<double>(bits & 0xf);
    case MmaElem::kF32: return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case MmaElem::kS32: return static_cast<int32_t>(static_cast<uint32_t>(bits));
    case MmaElem::kF64: return std::bit_cast<double>(bits);
    default: return 0.0;
  }
}

struct MmaSyncForm {
  uint32_t m = 0, n = 0, k = 0;
  MmaElem d = MmaElem::kNone, a = MmaElem::kNone, b = MmaElem::kNone, c = MmaElem::kNone;
  bool satfinite = false;          // integer: clamp to the s32 range instead of wrapping
  bool a_col = false, b_row = false;  // Volta's m8n8k4: A column-major, B row-major (else .row.col)
  bool sparse = false;             // mma.sp: A compressed, with metadata and a sparsity selector
  bool ordered = false;            // mma.sp::ordered_metadata: each chunk's indices increase
  bool quad_pairs() const { return m == 8 && n == 8 && k == 4 && a == MmaElem::kF16; }
  // The rows of A and C, and columns of B and C, the fragments span (32 for the four MMAs of
  // Volta's m8n8k4).
  uint32_t rows() const { return quad_pairs() ? 32 : m; }
  uint32_t cols() const { return quad_pairs() ? 32 : n; }
  // Elements per lane and registers per fragment.
  uint32_t a_cols() const { return sparse ? k / 2 : k; }  // A as the fragments hold it
  uint32_t a_elements() const { return rows() * a_cols() / 32; }
  uint32_t b_elements() const { return k * cols() / 32; }
  uint32_t c_elements() const { return quad_pairs() ? 8 : m * n / 32; }
  uint32_t a_registers() const;
  uint32_t b_registers() const;
  uint32_t c_registers() const;  // C's; D's with d
  uint32_t d_registers() const;
  // Sparse forms: logical elements one metadata nibble covers, and lanes of a group of four that
  // hold metadata (the selector picks which: 0 .. 4 / lanes - 1).
  uint32_t chunk() const { return a == MmaElem::kTf32 ? 2 : mma_elem_bits(a) == 4 ? 8 : 4; }
  uint32_t metadata_lanes() const { return k / chunk() / 4; }
};

// Where sparse A's stored element `s` (0 .. chunk / 2 - 1) of a chunk lies in the chunk, given the
// chunk's metadata nibble; -1 when the nibble is not one the ISA defines for the form (undefined
// behaviour on the GPU: equal indices, decreasing ones under ::ordered_metadata, tf32's other
// values).
int sparse_position(const MmaSyncForm& f, uint32_t nibble, uint32_t s);
// The lane holding the metadata of `row`'s chunk `chunk`, and the bit its nibble starts at.
struct MetadataPlace {
  uint32_t lane = 0, shift = 0;
};
MetadataPlace sparse_metadata_place(const MmaSyncForm& f, uint32_t selector, uint32_t row, uint32_t chunk);

// Reads mma.sync's form from the mnemonic's dotted suffixes (after "mma"). Returns "" when the
// emulator runs it, else what it runs instead (naming `opcode`).
std::string decode_mma_sync(const std::string& opcode, const std::vector<std::string>& suffixes, MmaSyncForm& form);

struct MatrixPlace {
  uint32_t row = 0, col = 0;
};
MatrixPlace mma_a_place(const MmaSyncForm& f, uint32_t lane, uint32_t i);
MatrixPlace mma_b_place(const MmaSyncForm& f, uint32_t lane, uint32_t i);
// C and D: their layout follows their own type only in Volta's m8n8k4 (f16 or f32).
MatrixPlace mma_c_place(const MmaSyncForm& f, MmaElem type, uint32_t lane, uint32_t i);

// A form with its placements for a whole warp, computed once per instruction when it is lowered
// (and kept out of line: few instructions are MMAs). Entry lane * elements + i is the element's
// index in the row-major matrix (A: rows x a_cols(), B: k x cols, C and D: rows x cols).
struct MmaLayout {
  MmaSyncForm form;
  std::vector<uint16_t> a, b, c, d;
  std::vector<uint16_t> b_t;  // b's places in B transposed (cols x k), where each column is a row
};
MmaLayout mma_layout(const MmaSyncForm& f);

}  // namespace warpsim::ptx
