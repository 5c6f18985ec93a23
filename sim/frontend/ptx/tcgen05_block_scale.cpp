// Blackwell's block-scaled MMAs and the copy that feeds their scale factors, functionally (PTX ISA,
// "tcgen05.mma" block scaling and "tcgen05.cp"; instruction descriptor fields as CUTLASS's
// UMMA::InstrDescriptorBlockScaled names them).
//
// Block scaling: A (M x K) and B (N x K) each come with one scale factor per row per block of K
// elements; the MMA multiplies every element by its block's factor before the products are
// summed. The kind and the scale vector fix the blocks:
//   kind::mxf8f6f4, scale_vec::1X (.block32):  K = 32, one UE8M0 factor per row
//   kind::mxf4 (default 2X), kind::mxf4nvf4 with scale_vec::2X (.block32):  K = 64, two UE8M0
//   kind::mxf4nvf4 with scale_vec::4X (.block16):  K = 64, four factors, UE8M0 or UE4M3 (NVFP4)
// Instruction descriptor: bits 4-5 the B factors' ID, 23 the factors' type (1 UE8M0, 0 UE4M3),
// 29-30 the A factors' ID, 31 the K size (0; K = 96 is not modelled).
//
// Where the factors sit in tensor memory: row r's factors are bytes ID, ID + 1, ... (1X: one,
// 2X: two, 4X: all four, ID 0) of the 32-bit cell in lane r mod 128, column c + r / 32, for the
// [scale] address's column c. So 128 rows take four columns, each lane group of 32 holding the
// same 32 rows' factors in every column: the placement tcgen05.cp.32x128b.warpx4 writes from a
// 512-byte shared-memory tile of 32 rows of 16 bytes (row r's factors in bytes
// 16 (r mod 32) + 4 (r / 32)), which CUTLASS and ThunderKittens use. The PTX ISA draws this layout
// in figures; the reading here is that copy's inverse, not checked on a GPU (assumed).
//
// tcgen05.cp [taddr], s-desc: rows x bits of shared memory (K-major through the descriptor, row r
// byte b at wgmma_layout.h's matrix_element_address) into lanes taddr.lane + r, columns
// taddr.column + word; .warpx4 repeats 32 rows into each of the four lane groups, .warpx2::02_13
// the first 32 of 64 rows into groups 0 and 2 and the next into 1 and 3, .warpx2::01_23 into 0-1
// and 2-3. The copy is done when issued (like the MMAs: a program reads its result only after a
// tcgen05.commit's mbarrier phase).
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/format.h"
#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/value_bits.h"
#include "frontend/ptx/wgmma_layout.h"

namespace warpsim::ptx {
namespace {

double scale_factor_value(uint32_t byte, bool ue4m3) {
  if (ue4m3) return matrix_element_value("e4m3", byte & 0x7f);  // unsigned E4M3: the sign bit is not used
  return byte == 0xff ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, static_cast<int>(byte) - 127);  // UE8M0
}

}  // namespace

std::vector<double> CtaEmulator::tmem_scale_factors(uint32_t taddr, uint32_t rows, uint32_t blocks, uint32_t first_byte, bool ue4m3,
                                                    const WarpState& w, uint32_t lane, const EmuInst& in) {
  const uint32_t lane0 = taddr >> 16, column0 = taddr & 0xffff;
  std::vector<double> out(size_t{rows} * blocks);
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t cell = tmem_at(lane0 + r % 128, column0 + r / 32, w, lane, in);
    for (uint32_t b = 0; b < blocks; ++b) out[size_t{r} * blocks + b] = scale_factor_value((cell >> (8 * (first_byte + b))) & 0xff, ue4m3);
  }
  return out;
}

void CtaEmulator::apply_block_scales(const WarpState& w, const EmuInst& in, uint32_t l, uint32_t idesc, uint32_t m, uint32_t n, uint32_t k,
                                     std::vector<float>& a, std::vector<float>& b) {
  const bool four = in.has("scale_vec::4X") || in.has("block16");
  const uint32_t blocks = in.has("kind::mxf8f6f4") ? 1 : four ? 4 : 2, block = k / blocks;
  const bool ue4m3 = ((idesc >> 23) & 1) == 0;
  const uint32_t id_a = (idesc >> 29) & 3, id_b = (idesc >> 4) & 3;
  if (idesc >> 31) fault(in, w, l, "instruction descriptor " + hex(idesc) + ": K = 96 (bit 31) is not modelled");
  if (ue4m3 && !four) fault(in, w, l, "instruction descriptor " + hex(idesc) + ": UE4M3 scale factors (bit 23 clear) go with .scale_vec::4X only");
  for (uint32_t id : {id_a, id_b})
    if (id % blocks != 0) {
      fault(in, w, l, "instruction descriptor " + hex(idesc) + ": scale factor ID " + std::to_string(id) + " is not a multiple of the " +
                          std::to_string(blocks) + " factors per row this scale vector reads");
    }
  const auto& ops = in.operands;
  const std::vector<double> sa = tmem_scale_factors(static_cast<uint32_t>(address(w, ops.at(4), l)), m, blocks, id_a, ue4m3, w, l, in);
  const std::vector<double> sb = tmem_scale_factors(static_cast<uint32_t>(address(w, ops.at(5), l)), n, blocks, id_b, ue4m3, w, l, in);
  // An element times a power of two (UE8M0) or a 4-bit significand (UE4M3) is exact in float
  // unless it leaves float's range.
  for (uint32_t r = 0; r < m; ++r)
    for (uint32_t kk = 0; kk < k; ++kk) a[size_t{r} * k + kk] = static_cast<float>(a[size_t{r} * k + kk] * sa[size_t{r} * blocks + kk / block]);
  for (uint32_t r = 0; r < n; ++r)
    for (uint32_t kk = 0; kk < k; ++kk) b[size_t{r} * k + kk] = static_cast<float>(b[size_t{r} * k + kk] * sb[size_t{r} * blocks + kk / block]);
}

void CtaEmulator::tcgen05_copy(WarpState& w, const EmuInst& in, uint32_t l) {
  const auto taddr = static_cast<uint32_t>(address(w, in.operands.at(0), l));
  bool ok = false;
  const MatrixDescriptor d = decode_tcgen05_descriptor(read(w, in.operands.at(1), l), ok);
  if (!ok) fault(in, w, l, "a shared-memory descriptor with a base offset, the absolute LBO mode or 32-byte-atom swizzling is not modelled");
  const uint32_t rows = in.has("128x256b") || in.has("128x128b") ? 128 : in.has("64x128b") ? 64 : 32;
  const uint32_t words = in.has("128x256b") ? 8 : 4;
  const uint32_t lane0 = taddr >> 16, column0 = taddr & 0xffff;
  // The lane groups (of 32) each source row lands in.
  auto groups = [&](uint32_t r) -> std::vector<uint32_t> {
    if (in.has("warpx4")) return {0, 1, 2, 3};
    if (in.has("warpx2::02_13")) return {r / 32, r / 32 + 2};
    if (in.has("warpx2::01_23")) return {2 * (r / 32), 2 * (r / 32) + 1};
    return {r / 32};
  };
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < words; ++c) {
      const uint64_t at = matrix_element_address(d, r, 4 * c);
      uint32_t v = 0;
      std::memcpy(&v, memory_at(MemSpace::kShared, at, 4, w, l, in), 4);
      check_shared(w, l, at, 4, false, false, in);  // a read, for the checkers
      for (uint32_t g : groups(r)) tmem_at(lane0 + 32 * g + r % 32, column0 + c, w, l, in) = v;
    }
}

}  // namespace warpsim::ptx
