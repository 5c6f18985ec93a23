// Tensor-core issue in the timing model. A warp's MMA (mma.sync, wmma, a wgmma warp's share)
// occupies its sub-partition's tensor pipe for flops / rate (a sparse MMA's performed FLOPs, half
// its shape's: OpInfo::sparse; a warp-level MMA's rate is the warpgroup one times
// tensor.warp_mma_fraction_of_peak). Blackwell's tcgen05.mma: one thread
// issues an MMA of the whole M x N x K shape, which runs on all four sub-partitions' tensor cores
// together (the SM's full rate) and writes tensor memory, not registers; tcgen05.cp copies shared
// memory into tensor memory in order with those MMAs. The issuing warp goes on at once;
// tcgen05.commit arrives on its mbarrier when the warp's last MMA or copy is done
// (Sm::issue_mbarrier).
#include <algorithm>
#include <cmath>
#include <string>

#include "common/error.h"
#include "sm/sm.h"

namespace warpsim {
namespace {

// The bytes an MMA reads from shared memory for `a_rows` rows of A and `b_rows` of B: K spans 32
// bytes of a row in every dense kind and type (16 f16 or bf16, 8 tf32, 32 FP8 or INT8 or 8-bit
// FP6/FP4 containers, 64 packed FP4); a 2:4 sparse MMA's K is twice that, of which A holds half,
// so its B rows are 64 bytes.
double mma_operand_bytes(const OpInfo& op, double a_rows, double b_rows) { return a_rows * 32 + b_rows * (op.sparse ? 64 : 32); }

// Clocks to read `bytes` of shared memory at its banks' rate (banks x bank_bytes per clock), as
// the tensor cores read their operands and tcgen05.cp its data.
Cycle shared_read_cycles(const GpuSpec& spec, double bytes) {
  return static_cast<Cycle>(std::ceil(bytes / std::max(1.0, double(spec.memory.shared.banks) * spec.memory.shared.bank_bytes)));
}

}  // namespace

void Sm::issue_tensor(SubPartition& sp, Warp& w, const WarpInst& in, Cycle now) {
  const OpInfo& op = *in.op;
  // tcgen05 (whole_sm) is Blackwell's, sm_100; some mma.sync forms need more (OpInfo).
  const uint32_t needs = std::max<uint32_t>(op.min_compute_capability, op.whole_sm ? 100 : 0);
  if (spec_.compute_capability < needs) {
    auto cc = [](uint32_t c) { return std::to_string(c / 10) + "." + std::to_string(c % 10); };
    throw InputError(SourceLocation{issuing_kernel_->source_file, in.line, 1},
                     "'" + op.mnemonic + "' needs compute capability " + cc(needs) + " or later (" +
                         (op.whole_sm      ? "tcgen05 is Blackwell's"
                          : needs == 90    ? "f64 mma.sync with M = 16 is Hopper's; A100 has m8n8k4"
                                           : "mma.sync with a .kind, FP6/FP4 or block-scaled inputs, is GeForce Blackwell's; B200 runs "
                                             "them through tcgen05.mma") +
                         "); " + spec_.name + " has " + cc(spec_.compute_capability));
  }
  // wgmma exists only on sm_90a (PTX ISA: "requires sm_90a"); Blackwell's tensor cores take
  // tcgen05.mma instead. (A SASS trace's HGMMA replays anywhere: its timing is the question.)
  if (op.warpgroup() && !op.from_sass && spec_.compute_capability / 10 != 9) {
    throw InputError(SourceLocation{issuing_kernel_->source_file, in.line, 1},
                     "'" + op.mnemonic + "' is Hopper's warpgroup MMA (sm_90a only); " + spec_.name + " has compute capability " +
                         std::to_string(spec_.compute_capability / 10) + "." + std::to_string(spec_.compute_capability % 10) +
                         (spec_.compute_capability >= 100 ? ": Blackwell's tensor cores take tcgen05.mma" : ""));
  }
  if (op.tensor_copy_bytes != 0) return issue_tensor_copy(w, in, now);
  uint32_t per_sm = spec_.tensor.flops_per_clk_per_sm[static_cast<int>(op.tensor)];
  if (per_sm == 0) {
    throw InputError(SourceLocation{issuing_kernel_->source_file, in.line, 1},
                     "'" + op.mnemonic + "' uses " + std::string(tensor_precision_name(op.tensor)) + " tensor cores, which " +
                         spec_.name + " does not have (its config lists no tensor.dense_flops_per_clk_per_sm." +
                         std::string(tensor_precision_name(op.tensor)) + ")");
  }
  if (op.sparse && !spec_.tensor.structured_sparsity) {
    throw InputError(SourceLocation{issuing_kernel_->source_file, in.line, 1},
                     "'" + op.mnemonic + "' is a structured-sparse MMA, which " + spec_.name +
                         "'s tensor cores do not run (sparse tensor cores came with Ampere; its config has no "
                         "tensor.structured_sparsity: true)");
  }
  if (!op.from_sass && !spec_.tensor.supports_shape(op.m, op.n, op.k)) {
    throw InputError(SourceLocation{issuing_kernel_->source_file, in.line, 1},
                     "'" + op.mnemonic + "': shape m" + std::to_string(op.m) + "n" + std::to_string(op.n) + "k" +
                         std::to_string(op.k) + " is not one " + spec_.name + "'s tensor cores execute (tensor.mma_shapes)");
  }
  if (op.whole_sm) return issue_whole_sm_mma(w, in, per_sm, now);
  // Warp-level MMAs reach only TensorSpec::warp_mma_fraction of the dense rate (Hopper: wgmma
  // is needed for the full rate); warpgroup MMAs reach all of it, and so do FP64 MMAs, which
  // have no warpgroup form (PTX ISA: wgmma takes no f64), so the FP64 tensor peak is mma.sync's.
  const bool full_rate = op.warpgroup() || op.tensor == TensorPrecision::kFp64;
  const double per_sub = std::max(1.0, double(per_sm / subs_.size()) * (full_rate ? 1.0 : spec_.tensor.warp_mma_fraction));
  const uint64_t flops = FlopCounts::tensor_flops_of(op, in.active_mask);  // op.tensor_flops(): one warp-level MMA
  // Tensor cores run at the clock NVIDIA's tensor peaks assume (clocks.tensor_peak_mhz, or the
  // precision's tensor.clock_mhz: the GPU does not hold its boost clock under FP16/FP8 tensor
  // load), while the model counts boost-clock
  // cycles: an MMA occupies its pipe flops / rate x boost / tensor_peak cycles, the fraction
  // carried from one MMA to the next so that a stream of them keeps the exact rate.
  const uint64_t fp = static_cast<uint64_t>(std::llround(double(flops) * 65536.0 * spec_.clocks.boost_mhz /
                                                         (per_sub * spec_.tensor_clock_mhz(op.tensor)))) + sp.tensor_carry;
  Cycle interval = std::max<Cycle>(1, fp >> 16);
  sp.tensor_carry = fp >> 16 ? static_cast<uint32_t>(fp & 0xffff) : 0;
  if (op.warpgroup() && !op.from_sass) {
    // A wgmma's operands are read under tcgen05.mma's rule (issue_whole_sm_mma): A (unless in
    // registers) and B once for the warpgroup. The four warps' quarters run on the four
    // sub-partitions at once, each with a quarter of the port, so each takes the whole MMA's read
    // time. Assumed for Hopper (no measurement in the reference): an SS wgmma with N < 64 is bound
    // by its reads, an RS one is not. A SASS HGMMA does not say where its A is: FLOPs only.
    const Cycle reads = shared_read_cycles(spec_, mma_operand_bytes(op, op.a_in_registers ? 0.0 : op.m, op.n));
    if (reads > interval) {
      stats_.tensor_smem_bound_cycles += reads - interval;
      interval = reads;
      sp.tensor_carry = 0;
    }
  }
  sp.pipe_free[static_cast<int>(Pipe::kTensor)] = now + interval;
  stats_.flops.tensor_flops += flops;
  stats_.tensor_busy_cycles += interval;
  for (int i = 0; i < in.num_dst; ++i) w.scoreboard.set(in.dst(i), now + spec_.tensor.latency + interval, Producer::kTensor);
}

// A whole-SM tcgen05 operation: it starts when every sub-partition's tensor pipe is free (their
// queue is in issue order) and holds them all for `interval`; returns its start.
Cycle Sm::occupy_all_tensor_pipes(Cycle now, Cycle interval) {
  const Cycle start = tensor_pipes_free(now);
  hold_tensor_pipes(start, interval);
  return start;
}

Cycle Sm::tensor_pipes_free(Cycle now) const {
  Cycle start = now;
  for (const auto& sp : subs_) start = std::max(start, sp.pipe_free[static_cast<int>(Pipe::kTensor)]);
  return start;
}

void Sm::hold_tensor_pipes(Cycle start, Cycle interval) {
  for (auto& sp : subs_) sp.pipe_free[static_cast<int>(Pipe::kTensor)] = start + interval;
}

Cycle Sm::hold_tensor_for_peer(Cycle earliest, Cycle interval) {
  const Cycle start = occupy_all_tensor_pipes(earliest, interval);
  stats_.tensor_busy_cycles += interval * subs_.size();
  return start;
}

void Sm::issue_whole_sm_mma(Warp& w, const WarpInst& in, uint64_t flops_per_clk, Cycle now) {
  const OpInfo& op = *in.op;
  if (in.active_mask == 0) return;
  // Each issuing lane starts one MMA (normally one elected thread issues it).
  const uint64_t flops = FlopCounts::tensor_flops_of(op, in.active_mask);  // op.tensor_flops() per lane
  // At the clock the precision's tensor peak assumes (GpuSpec::tensor_clock_mhz), as for the other
  // MMAs. A pair MMA (cta_group::2) computes each CTA's half of the rows on that CTA's SM: both
  // SMs' tensor cores are held for the same interval, from when both are free (the peer's through
  // the cluster; with no resident peer, as in a trace of one CTA, only this SM's). The FLOPs are
  // counted whole here, on the issuing SM.
  const double share = op.cta_pair ? 0.5 : 1.0;
  const auto compute = std::max<Cycle>(1, static_cast<Cycle>(std::llround(share * double(flops) * spec_.clocks.boost_mhz /
                                                                           (double(flops_per_clk) * spec_.tensor_clock_mhz(op.tensor)))));
  // The tensor cores read their operands from shared memory at its banks' rate (banks x
  // bank_bytes per clock): a row of K for each row of A (unless A is in tensor memory) and of B
  // (mma_operand_bytes), a pair's SM its half of each. With both in shared memory, an
  // f16 M = 128 MMA with N < 128 is bound by these reads, not its FLOPs (SemiAnalysis,
  // "Dissecting Nvidia Blackwell", 2026: SS MMAs with N < 128 are SMEM-bandwidth bound at about
  // 128 B/cycle; with A in tensor memory they reach peak).
  const Cycle reads = shared_read_cycles(spec_, share * mma_operand_bytes(op, op.a_in_tmem ? 0.0 : op.m, op.n) * in.active_lanes());
  Cycle interval = std::max(compute, reads);
  Cycle start = tensor_pipes_free(now);
  if (op.cta_pair) {
    const CtaSlot& cta = ctas_[w.cta_slot];
    const uint32_t peer = cta.rank ^ 1u;
    if (clusters_.sm_of(cta.cluster, peer) == id_) {
      interval *= 2;  // both CTAs of the pair on this SM: its tensor cores compute both halves
    } else {
      clusters_.hold_tensor(cta.cluster, peer, start, interval, start);
    }
  }
  hold_tensor_pipes(start, interval);
  if (reads > compute) stats_.tensor_smem_bound_cycles += (reads - compute) * subs_.size();
  stats_.flops.tensor_flops += flops;
  stats_.tensor_busy_cycles += interval * subs_.size();
  w.tensor_done = std::max(w.tensor_done, start + interval + spec_.tensor.latency);
}

// tcgen05.cp: the tensor cores' queue takes it in order with the thread's MMAs; it reads shared
// memory at the banks' rate (banks x bank_bytes per clock, assumed: the copy's own bandwidth is
// not published) and is done for tcgen05.commit when its bytes are in.
void Sm::issue_tensor_copy(Warp& w, const WarpInst& in, Cycle now) {
  if (in.active_mask == 0) return;
  const uint64_t bytes = uint64_t{in.op->tensor_copy_bytes} * static_cast<uint64_t>(in.active_lanes());
  const Cycle interval = std::max<Cycle>(1, shared_read_cycles(spec_, double(bytes)));
  const Cycle start = occupy_all_tensor_pipes(now, interval);
  w.tensor_done = std::max(w.tensor_done, start + interval + spec_.memory.shared.latency);
}

}  // namespace warpsim
