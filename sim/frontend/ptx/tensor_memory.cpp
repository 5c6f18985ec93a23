// Blackwell's tensor memory and tcgen05 instructions, functionally (PTX ISA, "TensorCore 5th
// Generation Family Instructions"), for one CTA (cta_group::1) or a CTA pair (cta_group::2,
// below):
//   alloc [dst], ncols     a power of two from 32 to 512 columns, aligned to its size; the
//                          address (lane 0, first column) is written to shared memory at dst
//   dealloc taddr, ncols   frees them
//   mma [d], a-desc | [a-tmem], b-desc, idesc, enable-input-d
//                          D (M x N, f32, in tensor memory: row i in lane d.lane + i, column j
//                          in column d.column + j) = A B (+ D), A and B (K- or MN-major) in shared memory
//                          through descriptors (wgmma_layout.h), or A (K-major) in tensor memory
//                          (tmem_operand below), shape and types from the
//                          instruction descriptor: bits 4-5 D format (1: f32), 7-9 and 10-12 A
//                          and B formats, 13-14 negate A/B, 15-16 MN-major ("transposed") A/B
//                          (wgmma_layout.h), 17-22 N / 8,
//                          24-28 M / 16. M = 128 (row i in lane i) or 64 (rows 16 to a warp's
//                          quarter of the lanes, in its first 16: the PTX ISA's layout F).
//   mma.kind::mxf8f6f4/mxf4/mxf4nvf4.block_scale [d], a, b, idesc, [scale-a], [scale-b], enable-input-d
//                          the same with each block of 32 (or 16) K elements of a row of A and
//                          of B times its scale factor from tensor memory (tcgen05_block_scale.cpp)
//   cp [taddr], s-desc     shared memory into tensor memory (tcgen05_block_scale.cpp)
//   commit [mbar]          one arrival on the mbarrier once the thread's MMAs and copies are done
//                          (.multicast::cluster: on the mbarrier at that offset in each CTA of a mask)
// A CTA pair (.cta_group::2, the two CTAs of a cluster whose ranks differ in bit 0): each CTA's
// alloc and dealloc act on its own tensor memory (both run the same sequence, as the PTX ISA
// requires one .cta_group for all of a kernel's tcgen05 instructions, so they agree); a pair's
// mma (M = 256) reads A and B from both CTAs' shared memory and writes D into both CTAs' tensor
// memory (tcgen05_mma below).
//   ld / st .shape.xN      warp q of a warpgroup reaches lanes 32q..32q+31; which cell each
//                          register moves, per shape and with 16-bit packing: tmem_fragment.h
// MMAs are computed when issued (the results may be read only after a commit's mbarrier phase),
// through the GPU's block FMA (mma_block_sum.h); block-scaled kinds, and configs without one, sum
// each product in k order with fmaf into a float.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/format.h"
#include "common/half.h"
#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/value_bits.h"
#include "frontend/ptx/wgmma_layout.h"

namespace warpsim::ptx {
namespace {

constexpr uint32_t kTmemLanes = 128, kTmemColumns = 512;

}  // namespace

uint32_t& CtaEmulator::tmem_at(uint32_t lane, uint32_t column, const WarpState& w, uint32_t thread, const EmuInst& in, CtaEmulator* owner) {
  CtaEmulator& o = owner ? *owner : *this;
  if (lane >= kTmemLanes || column >= kTmemColumns) {
    fault(in, w, thread, "tensor memory lane " + std::to_string(lane) + ", column " + std::to_string(column) + " is outside its 128 x 512");
  }
  if (!(o.tmem_allocated_ >> (column / 32) & 1)) {
    fault(in, w, thread, "tensor memory column " + std::to_string(column) + " is not allocated (tcgen05.alloc)" +
                             (&o == this ? "" : " in the pair's CTA of rank " + std::to_string(o.rank_)));
  }
  if (o.tmem_.empty()) o.tmem_.assign(kTmemLanes * kTmemColumns, 0);
  return o.tmem_[lane * kTmemColumns + column];
}

// .cta_group::2: the CTA pair is two CTAs of a cluster whose ranks differ in bit 0 only (PTX
// ISA, "CTA pair"); the even one holds rows 0-127 of the MMA, the odd one rows 128-255.
std::array<CtaEmulator*, 2> CtaEmulator::cta_pair(const WarpState& w, uint32_t lane, const EmuInst& in) {
  const size_t ctas = cluster_ ? cluster_->ctas.size() : 1;
  const uint32_t even = rank_ & ~1u;
  if (even + 1 >= ctas) {
    fault(in, w, lane, ".cta_group::2 spans a pair of CTAs of one cluster (ranks 2i and 2i + 1); the CTA of rank " + std::to_string(rank_) +
                           " has no peer in its cluster of " + std::to_string(ctas));
  }
  std::array<CtaEmulator*, 2> pair{cluster_->ctas[even], cluster_->ctas[even + 1]};
  for (uint32_t h = 0; h < 2; ++h)
    if (!pair[h]) fault(in, w, lane, "the pair's CTA of rank " + std::to_string(even + h) + " has exited");
  return pair;
}

void CtaEmulator::tcgen05_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  const auto& ops = in.operands;
  if (exec == 0) return;
  const uint32_t first = static_cast<uint32_t>(std::countr_zero(exec));
  switch (in.tcgen05) {
    case Tcgen05Op::kAlloc:
    case Tcgen05Op::kDealloc: {
      // Warp-wide (.sync.aligned): done once for the warp.
      const bool alloc = in.tcgen05 == Tcgen05Op::kAlloc;
      const auto columns = static_cast<uint32_t>(read(w, ops.at(1), first));
      if (columns < 32 || columns > kTmemColumns || !std::has_single_bit(columns)) {
        fault(in, w, first, std::to_string(columns) + " columns; tensor memory is allocated in powers of two from 32 to 512");
      }
      const uint32_t chunks = columns / 32, mask = (1u << chunks) - 1;
      if (alloc) {
        uint32_t at = 0;
        while (at < 16 && (tmem_allocated_ >> at & mask)) at += chunks;
        if (at >= 16) fault(in, w, first, "no " + std::to_string(columns) + " free columns of tensor memory (the hardware would wait)");
        tmem_allocated_ = static_cast<uint16_t>(tmem_allocated_ | (mask << at));
        const uint32_t taddr = at * 32;  // lane 0
        const uint64_t dst = address(w, ops.at(0), first);
        std::memcpy(memory_at(MemSpace::kShared, dst, 4, w, first, in), &taddr, 4);
        check_shared(w, first, dst, 4, true, false, in);  // a write, for the checkers
      } else {
        const auto taddr = static_cast<uint32_t>(read(w, ops.at(0), first));
        const uint32_t at = (taddr & 0xffff) / 32;
        if ((taddr & 0xffff) % 32 || (tmem_allocated_ >> at & mask) != mask) {
          fault(in, w, first, "tcgen05.dealloc of columns not allocated together (address " + hex(taddr) + ")");
        }
        tmem_allocated_ = static_cast<uint16_t>(tmem_allocated_ & ~(mask << at));
      }
      return;
    }
    case Tcgen05Op::kMma:
      for_lanes(exec, [&](uint32_t l) { tcgen05_mma(w, in, l, out); });
      return;
    case Tcgen05Op::kCp:
      for_lanes(exec, [&](uint32_t l) { tcgen05_copy(w, in, l); });
      return;
    case Tcgen05Op::kCommit: {
      // .multicast::cluster: one arrival on the mbarrier at the same offset in each CTA of the
      // 16-bit mask (operand 1), as a pair's MMA completes in both CTAs.
      MbarrierUse& use = out.inst.mbar;
      const bool multicast = in.has("multicast::cluster");
      for_lanes(exec, [&](uint32_t l) {
        const uint64_t a = address(w, ops.at(0), l);
        auto arrive = [&](uint64_t target) {
          Mbarrier& b = mbarrier_at(target, w, l, in);
          if (b.pending == 0) fault(in, w, l, "tcgen05.commit arrives on the mbarrier at shared " + hex(target) + " with no arrival pending");
          --b.pending;
          const uint64_t rank_plus_one = target >> kClusterRankShift;
          if (clocks_.enabled() && (rank_plus_one == 0 || rank_plus_one == rank_ + 1)) clocks_.release(w.index, b.clock);
          complete_phase_if_done(b);
        };
        const auto mask = multicast ? static_cast<uint16_t>(read(w, ops.at(1), l)) : uint16_t{0};
        if (multicast && mask == 0) fault(in, w, l, "tcgen05.commit with .multicast::cluster and an empty CTA mask");
        if (!multicast) arrive(a);
        for (uint32_t r = 0; mask >> r; ++r)
          if (mask >> r & 1) arrive(uint64_t{r + 1} << kClusterRankShift | (a & kClusterOffsetMask));
        use.address = static_cast<uint32_t>(multicast ? a & kClusterOffsetMask : a);
        use.multicast = mask;
        ++use.arrivals;
      });
      return;
    }
    case Tcgen05Op::kLd:
    case Tcgen05Op::kSt: {
      // Warp q of a warpgroup reaches lanes 32q..32q+31; each register moves the cell (or, packed,
      // the low halves of the two cells) tmem_fragment.h maps it to.
      const bool load = in.tcgen05 == Tcgen05Op::kLd;
      const bool split = in.tmem_shape == TmemShape::k16x32bx2;
      const size_t regs_at = load ? 0 : split ? 2 : 1;
      const auto& regs = ops.at(regs_at).regs;
      const EmuOperand& addr = ops.at(load ? 1 : 0);
      const auto half_split = split ? static_cast<uint32_t>(ops.at(load ? 2 : 1).bits) : 0;
      const uint32_t quarter = w.index % 4;
      for_lanes(exec, [&](uint32_t l) {
        const auto taddr = static_cast<uint32_t>(address(w, addr, l));
        for (uint32_t r = 0; r < regs.size(); ++r) {
          const TmemCell at = tmem_fragment_cell(in.tmem_shape, l, r, half_split);
          const uint32_t lane = (taddr >> 16) + at.lane;
          if (lane / 32 != quarter) {
            fault(in, w, l, "warp " + std::to_string(w.index) + " may reach tensor memory lanes " + std::to_string(32 * quarter) + "-" +
                                std::to_string(32 * quarter + 31) + " only, not lane " + std::to_string(lane));
          }
          const uint32_t column = (taddr & 0xffff) + at.base + (in.tmem_packed ? 2 * at.column : at.column);
          if (!in.tmem_packed) {
            uint32_t& cell = tmem_at(lane, column, w, l, in);
            if (load) {
              write(w, regs[r], l, cell);
            } else {
              cell = static_cast<uint32_t>(regs[r] >= 0 ? w.regs.get(regs[r], l) : 0);
            }
            continue;
          }
          // Two 16-bit halves; a store leaves the cells' upper halves zero (assumed: the PTX ISA
          // does not say what they hold).
          uint32_t &low = tmem_at(lane, column, w, l, in), &high = tmem_at(lane, column + 1, w, l, in);
          if (load) {
            write(w, regs[r], l, (low & 0xffff) | (high << 16));
          } else {
            const auto v = static_cast<uint32_t>(regs[r] >= 0 ? w.regs.get(regs[r], l) : 0);
            low = v & 0xffff;
            high = v >> 16;
          }
        }
      });
      return;
    }
    default:
      return;
  }
}

// A in tensor memory: row r in lane a.lane + r, its K elements packed along the columns from
// a.column, 32 / bits of them per 32-bit cell, the lowest-numbered in the low bits (assumed: the
// PTX ISA shows this layout in a figure; a third-party probe of kind::tf32 found row m, element k
// in lane m, column k, which this gives; the GPU suite's tcgen05_gemm checks 16-bit packing).
std::vector<float> CtaEmulator::tmem_operand(uint32_t taddr, const std::string& type, uint32_t rows, uint32_t k, double scale,
                                             const WarpState& w, uint32_t lane, const EmuInst& in, CtaEmulator* owner) {
  const uint32_t bits = matrix_element_bytes(type) * 8, per_cell = 32 / bits;
  const uint32_t lane0 = taddr >> 16, column0 = taddr & 0xffff;
  std::vector<float> out(size_t{rows} * k);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < k; ++c) {
      const uint32_t cell = tmem_at(lane0 + r, column0 + c / per_cell, w, lane, in, owner);
      const uint64_t v = bits == 32 ? cell : (cell >> (bits * (c % per_cell))) & ((1u << bits) - 1);
      out[size_t{r} * k + c] = static_cast<float>(scale * matrix_element_value(type, v));
    }
  return out;
}

void CtaEmulator::tcgen05_mma(WarpState& w, const EmuInst& in, uint32_t l, Record& out) {
  const auto& ops = in.operands;
  const auto d_addr = static_cast<uint32_t>(address(w, ops.at(0), l));
  // A from shared memory (a descriptor) or, written [a-tmem], from tensor memory.
  const bool a_in_tmem = ops.at(1).kind == EmuOperand::Kind::kAddr;
  const uint64_t desc_a = a_in_tmem ? 0 : read(w, ops.at(1), l), desc_b = read(w, ops.at(2), l);
  const auto idesc = static_cast<uint32_t>(read(w, ops.at(3), l));
  const bool scaled = in.has("block_scale");  // operands 4 and 5 are the scale factors' addresses
  const bool accumulate = (read(w, ops.at(scaled ? 6 : 4), l) & 1) != 0;
  const uint32_t a_format = (idesc >> 7) & 7, b_format = (idesc >> 10) & 7;
  const uint32_t n = ((idesc >> 17) & 0x3f) << 3, m = ((idesc >> 24) & 0x1f) << 4;
  const bool kind_f16 = in.has("kind::f16"), kind_tf32 = in.has("kind::tf32"), kind_fp4 = in.has("kind::mxf4") || in.has("kind::mxf4nvf4");
  const bool kind_i8 = in.has("kind::i8");
  auto type_of = [&](uint32_t f) -> std::string {
    if (kind_f16) return f == 0 ? "f16" : f == 1 ? "bf16" : "";
    if (kind_tf32) return f == 2 ? "tf32" : "";
    if (kind_fp4) return f == 1 ? "e2m1" : "";  // FP4 packed two to a byte
    if (kind_i8) return f == 0 ? "u8" : f == 1 ? "s8" : "";
    return f == 0 ? "e4m3" : f == 1 ? "e5m2" : f == 3 ? "e2m3" : f == 4 ? "e3m2" : f == 5 ? "e2m1" : "";  // (mx)f8f6f4
  };
  const std::string ta = type_of(a_format), tb = type_of(b_format);
  if (ta.empty() || tb.empty()) {
    fault(in, w, l, "instruction descriptor " + hex(idesc) + ": A/B formats " + std::to_string(a_format) + "/" + std::to_string(b_format) +
                        " are not formats of this kind");
  }
  // Unscaled kinds: bits 4-5 the D format (1: f32). Block-scaled kinds accumulate into f32 and
  // spend those bits, 23 and 29-31 on their scale factors (tcgen05_block_scale.cpp).
  // kind::i8 accumulates in s32 (D format 2), the others here in f32 (1).
  if (!scaled && ((idesc >> 4) & 3) != (kind_i8 ? 2u : 1u)) {
    fault(in, w, l, "instruction descriptor " + hex(idesc) + (kind_i8 ? ": kind::i8 accumulates in s32 (D format 2)" : ": only f32 accumulators (D format 1) are modelled"));
  }
  if (kind_i8 && ((idesc >> 3) & 1)) fault(in, w, l, "instruction descriptor " + hex(idesc) + ": the saturating s32 accumulation (bit 3) is not modelled");
  if (kind_i8 && ((idesc >> 13) & 3)) fault(in, w, l, "instruction descriptor " + hex(idesc) + ": kind::i8 has no negation (bits 13-14)");
  const bool pair = in.has("cta_group::2");
  if (pair && m == 128) fault(in, w, l, "M = 128 over a CTA pair (64 rows in each CTA's tensor memory) is not modelled; M = 256 is");
  if (pair && (m != 256 || n == 0 || n > 256 || n % 16)) {
    fault(in, w, l, "M = " + std::to_string(m) + ", N = " + std::to_string(n) + "; a CTA pair's MMA has M = 128 or 256, N a multiple of 16 up to 256");
  }
  if (!pair && ((m != 128 && m != 64) || n == 0 || n > 256 || n % (m == 64 ? 8 : 16))) {
    fault(in, w, l, "M = " + std::to_string(m) + ", N = " + std::to_string(n) + "; one CTA's MMA has M = 64 (N a multiple of 8) or 128 (of 16), N up to 256");
  }
  if (pair && scaled) fault(in, w, l, "block-scaled MMAs over a CTA pair are not modelled");
  if (pair && a_in_tmem) fault(in, w, l, "A from tensor memory over a CTA pair is not modelled");
  bool ok_a = true, ok_b = false;
  const MatrixDescriptor da = a_in_tmem ? MatrixDescriptor{} : decode_tcgen05_descriptor(desc_a, ok_a);
  const MatrixDescriptor db = decode_tcgen05_descriptor(desc_b, ok_b);
  if (!ok_a || !ok_b) fault(in, w, l, "a shared-memory descriptor with a base offset, the absolute LBO mode or 32-byte-atom swizzling is not modelled");
  const uint32_t k = kind_fp4 ? 64 : 32 / matrix_element_bytes(ta);
  const double neg_a = (idesc >> 13) & 1 ? -1.0 : 1.0, neg_b = (idesc >> 14) & 1 ? -1.0 : 1.0;
  const bool a_mn_major = (idesc >> 15) & 1, b_mn_major = (idesc >> 16) & 1;  // "transpose A/B"
  if (a_in_tmem && m == 64) fault(in, w, l, "A from tensor memory with M = 64 is not modelled");
  if (scaled && m == 64) fault(in, w, l, "block-scaled MMAs with M = 64 are not modelled (their scale factors' lanes)");
  if (a_in_tmem && a_mn_major) fault(in, w, l, "instruction descriptor " + hex(idesc) + ": A from tensor memory is K-major only");
  if (a_in_tmem && matrix_element_bits(ta) < 8) fault(in, w, l, "FP4/FP6 A in tensor memory (8-bit containers) is not modelled");
  if ((a_mn_major && ta == "tf32") || (b_mn_major && tb == "tf32")) {
    fault(in, w, l, "MN-major tf32 operands need the 128-byte swizzle with 32-byte atoms, which is not modelled");
  }
  // A pair splits A by rows and B by columns: each CTA holds its 128 rows of A and its N / 2
  // columns of B at the descriptors' addresses in its own shared memory, and receives its 128 rows
  // of D (all N columns) in its own tensor memory at the same address. The split is the one
  // NVIDIA's tilus documentation gives for tcgen05.mma with cta_group=2 and CUTLASS's 2-SM kernels
  // load; the PTX ISA's figure for it was not read here.
  const std::array<CtaEmulator*, 2> halves = pair ? cta_pair(w, l, in) : std::array<CtaEmulator*, 2>{this, nullptr};
  const uint32_t parts = pair ? 2 : 1, rows = m / parts;
  auto cta_of = [&](uint32_t h) -> uint64_t { return pair ? halves[h]->rank_ + 1 : 0; };
  std::vector<float> b;
  for (uint32_t h = 0; h < parts; ++h) {
    const std::vector<float> part = smem_operand(db, b_mn_major, tb, 0, n / parts, k, neg_b, w, l, in, kind_fp4, cta_of(h));
    b.insert(b.end(), part.begin(), part.end());
  }
  // Row r of D: lane r for M = 128; for M = 64, rows 16 to a warp's quarter, in its first 16 lanes
  // (PTX ISA, "Data path layout organization", layout F).
  const uint32_t lane0 = d_addr >> 16, column0 = d_addr & 0xffff;
  auto lane_of = [&](uint32_t r) { return lane0 + (m == 64 ? 32 * (r / 16) + r % 16 : r); };
  for (uint32_t h = 0; h < parts; ++h) {
    CtaEmulator* owner = halves[h];
    std::vector<float> a = a_in_tmem ? tmem_operand(static_cast<uint32_t>(address(w, ops[1], l)), ta, rows, k, neg_a, w, l, in, owner)
                                     : smem_operand(da, a_mn_major, ta, 0, rows, k, neg_a, w, l, in, kind_fp4, cta_of(h));
    if (scaled) apply_block_scales(w, in, l, idesc, m, n, k, a, b);
    if (kind_i8) {
      // Integer products summed exactly (each element's value is exact in a float), the s32
      // accumulator wrapping as two's complement.
      for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t c = 0; c < n; ++c) {
          uint32_t& cell = tmem_at(lane_of(r), column0 + c, w, l, in, owner);
          int64_t acc = accumulate ? static_cast<int32_t>(cell) : 0;
          for (uint32_t kk = 0; kk < k; ++kk) acc += static_cast<int64_t>(a[r * k + kk]) * static_cast<int64_t>(b[c * k + kk]);
          cell = static_cast<uint32_t>(acc);
        }
      continue;
    }
    // Block-scaled kinds keep IEEE arithmetic: the block-FMA measurements did not cover them.
    const MmaBlockSum sum = scaled ? MmaBlockSum({}, 0, 0, false) : mma_block_sum(launch_.mma_sums, ta.c_str(), tb.c_str(), false);
    const MmaBlockSum::Operand a_terms = sum.split(a.data(), a.size(), true), b_terms = sum.split(b.data(), b.size(), false);
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t c = 0; c < n; ++c) {
        uint32_t& cell = tmem_at(lane_of(r), column0 + c, w, l, in, owner);
        float acc = accumulate ? std::bit_cast<float>(cell) : 0.0f;
        acc = sum.dot(a_terms, r * k, b_terms, c * k, k, acc);
        cell = std::bit_cast<uint32_t>(acc);
      }
    }
  }
  // The timing model's record names the shape and types, which PTX keeps in the descriptor, and
  // whether A comes from tensor memory (then the MMA reads only B from shared memory).
  const std::string mnemonic = in.opcode + (a_in_tmem ? ".a_tmem" : "") + ".m" + std::to_string(m) + "n" + std::to_string(n) + "k" +
                               std::to_string(k) + (kind_i8 ? ".s32." : ".f32.") + ta + "." + tb;
  auto& cache = *launch_.run_time_ops;
  auto it = cache.find(mnemonic);
  if (it == cache.end()) {
    OpInfo op;
    std::string error;
    if (!decode_mnemonic(mnemonic, op, error)) fault(in, w, l, error);
    it = cache.emplace(mnemonic, std::move(op)).first;
  }
  out.inst.op = &it->second;
}

}  // namespace warpsim::ptx
