// Sources: [NCU] Nsight Compute's Kernel Profiling Guide, the "Pipelines" table of its metrics
// reference: alu runs bit manipulation, logic and integer instructions except IMAD and IMUL (and on
// Ampere on, fast FP32-to-FP16 conversion); fma runs FP32 FADD/FMUL/FFMA and IMAD/IMUL and integer
// dot products; fp16 paired half arithmetic; fp64 double precision; xu transcendentals and
// int-to-float / float-to-int conversions; lsu loads, stores, atomics and reductions to global,
// local and shared memory, and also special-register reads (S2R), shuffles and CTA-level barriers;
// uniform the uniform datapath; adu and cbu branches, constant loads and convergence barriers
// (warpsim's "branch" pipe stands for both); tensor the MMAs.
// [H200] where the guide names no opcode, the H200's per-pipe counts of the validation suite
// (NVIDIA_H200-20261204-1333.ncu.csv) say which pipe counted it; each such entry names the kernel.
#include "frontend/sass/sass_pipes.h"

#include <array>
#include <string>

namespace warpsim::sass {
namespace {

bool has_modifier(std::string_view opcode, std::string_view m) {
  for (size_t at = opcode.find('.'); at != std::string_view::npos; at = opcode.find('.', at + 1)) {
    const size_t end = opcode.find('.', at + 1);
    if (opcode.substr(at + 1, end == std::string_view::npos ? std::string_view::npos : end - at - 1) == m) return true;
  }
  return false;
}

struct Entry {
  std::string_view base;
  Pipe pipe;
};

constexpr std::array kTable{
    // [NCU] fma
    Entry{"FFMA", Pipe::kFma}, Entry{"FADD", Pipe::kFma}, Entry{"FMUL", Pipe::kFma}, Entry{"FFMA32I", Pipe::kFma},
    Entry{"FADD32I", Pipe::kFma}, Entry{"FMUL32I", Pipe::kFma}, Entry{"IMAD", Pipe::kFma}, Entry{"IMAD32I", Pipe::kFma},
    Entry{"IMUL", Pipe::kFma}, Entry{"IMUL32I", Pipe::kFma}, Entry{"IDP", Pipe::kFma}, Entry{"IDP4A", Pipe::kFma},
    // [H200] VIADD (Hopper's integer add): shared_stride's 441,408 VIADDs count on the FMA pipe.
    Entry{"VIADD", Pipe::kFma},
    // [NCU] alu
    Entry{"IADD3", Pipe::kAlu}, Entry{"LOP3", Pipe::kAlu}, Entry{"LOP", Pipe::kAlu}, Entry{"SHF", Pipe::kAlu},
    Entry{"SHL", Pipe::kAlu}, Entry{"SHR", Pipe::kAlu}, Entry{"LEA", Pipe::kAlu}, Entry{"ISETP", Pipe::kAlu},
    Entry{"IMNMX", Pipe::kAlu}, Entry{"VIMNMX", Pipe::kAlu}, Entry{"IABS", Pipe::kAlu}, Entry{"SEL", Pipe::kAlu},
    Entry{"PRMT", Pipe::kAlu}, Entry{"MOV", Pipe::kAlu}, Entry{"MOV32I", Pipe::kAlu}, Entry{"PLOP3", Pipe::kAlu},
    Entry{"P2R", Pipe::kAlu}, Entry{"R2P", Pipe::kAlu}, Entry{"SGXT", Pipe::kAlu}, Entry{"BMSK", Pipe::kAlu},
    Entry{"BFE", Pipe::kAlu}, Entry{"BFI", Pipe::kAlu}, Entry{"FSETP", Pipe::kAlu}, Entry{"FSET", Pipe::kAlu},
    Entry{"FMNMX", Pipe::kAlu}, Entry{"FSEL", Pipe::kAlu}, Entry{"F2FP", Pipe::kAlu},
    Entry{"CS2R", Pipe::kAlu}, Entry{"I2FP", Pipe::kAlu}, Entry{"VOTE", Pipe::kAlu},
    // [NCU] fp16
    Entry{"HFMA2", Pipe::kFp16}, Entry{"HADD2", Pipe::kFp16}, Entry{"HMUL2", Pipe::kFp16}, Entry{"HSETP2", Pipe::kFp16},
    Entry{"HSET2", Pipe::kFp16}, Entry{"HMNMX2", Pipe::kFp16},
    // [NCU] fp64
    Entry{"DFMA", Pipe::kFp64}, Entry{"DADD", Pipe::kFp64}, Entry{"DMUL", Pipe::kFp64}, Entry{"DSETP", Pipe::kFp64},
    Entry{"DMNMX", Pipe::kFp64},
    // [NCU] xu
    Entry{"MUFU", Pipe::kXu}, Entry{"F2F", Pipe::kXu}, Entry{"F2I", Pipe::kXu}, Entry{"I2F", Pipe::kXu},
    Entry{"FRND", Pipe::kXu}, Entry{"F2IP", Pipe::kXu},
    // [H200] FLO, BREV and POPC count on the XU: scan_lookback's only XU-capable opcodes are its
    // BREV and FLO (1,316 on the XU, none elsewhere of that kind), grid_stencil's its FLO and
    // POPC (144).
    Entry{"FLO", Pipe::kXu}, Entry{"BREV", Pipe::kXu}, Entry{"POPC", Pipe::kXu},
    // [H200] FCHK (the range check before a division): softmax's 512 count on the XU.
    Entry{"FCHK", Pipe::kXu},
    // [NCU] lsu
    Entry{"LDG", Pipe::kLsu}, Entry{"STG", Pipe::kLsu}, Entry{"LD", Pipe::kLsu}, Entry{"ST", Pipe::kLsu},
    Entry{"LDL", Pipe::kLsu}, Entry{"STL", Pipe::kLsu}, Entry{"LDS", Pipe::kLsu}, Entry{"STS", Pipe::kLsu},
    Entry{"LDSM", Pipe::kLsu}, Entry{"STSM", Pipe::kLsu}, Entry{"ATOM", Pipe::kLsu}, Entry{"ATOMG", Pipe::kLsu},
    Entry{"ATOMS", Pipe::kLsu}, Entry{"RED", Pipe::kLsu}, Entry{"REDG", Pipe::kLsu}, Entry{"LDGSTS", Pipe::kLsu},
    Entry{"SHFL", Pipe::kLsu}, Entry{"MATCH", Pipe::kLsu}, Entry{"REDUX", Pipe::kLsu},
    Entry{"MEMBAR", Pipe::kLsu},
    // [H200] LDGDEPBAR (cp.async.commit_group) counts on the LSU: attention_mma's LSU count is its
    // memory instructions, per-thread S2Rs and its 64 LDGDEPBARs.
    Entry{"LDGDEPBAR", Pipe::kLsu},
    // [NCU] adu and cbu: warpsim's branch pipe
    Entry{"BRA", Pipe::kBranch}, Entry{"BRX", Pipe::kBranch}, Entry{"JMP", Pipe::kBranch}, Entry{"LDC", Pipe::kBranch},
    Entry{"BSSY", Pipe::kBranch}, Entry{"BSYNC", Pipe::kBranch}, Entry{"WARPSYNC", Pipe::kBranch},
    Entry{"BREAK", Pipe::kBranch}, Entry{"CALL", Pipe::kBranch}, Entry{"RET", Pipe::kBranch}, Entry{"EXIT", Pipe::kBranch},
    // The guide names CTA-level barriers under both the LSU and the ADU; [H200] BAR.SYNC counts on
    // no pipe the suite measures (reduce_sum: the LSU count is its loads, stores, shuffles and
    // per-thread S2Rs, without its 16,384 BAR.SYNCs), so the ADU.
    Entry{"BAR", Pipe::kBranch},
    // [NCU] tensor
    Entry{"HMMA", Pipe::kTensor}, Entry{"IMMA", Pipe::kTensor}, Entry{"DMMA", Pipe::kTensor}, Entry{"BMMA", Pipe::kTensor},
    Entry{"HGMMA", Pipe::kTensor}, Entry{"IGMMA", Pipe::kTensor}, Entry{"QGMMA", Pipe::kTensor},
    // Nothing counted.
    Entry{"NOP", Pipe::kNone},
};

}  // namespace

Pipe counted_pipe(const SassInstruction& in, uint32_t compute_capability) {
  const std::string_view opcode = in.opcode;
  const std::string_view base = opcode.substr(0, opcode.find('.'));
  // [NCU] names the FP16 pipe for paired half arithmetic on Volta, Turing and GA100 only; [H200]
  // on Hopper it counts on the FMA pipe (prune_24: its 128 HADD2.F32 in the FMA count, none on
  // FP16).
  if (compute_capability >= 90 && (base == "HADD2" || base == "HMUL2" || base == "HFMA2") && !has_modifier(opcode, "MMA")) return Pipe::kFma;
  // [H200] S2R of a per-thread register (SR_TID.*, SR_LANEID, ...) counts on the LSU, one of a
  // CTA-wide one (SR_CTAID.*, SR_CgaCtaId) on none of the pipes the suite measures: bw_read and
  // shared_stride read one of each and the GPU counts one S2R per warp on the LSU; dfma_streams
  // reads SR_TID.X alone and counts it there.
  if (base == "S2R" && in.operands.size() == 2) {
    const std::string& sr = in.operands[1];
    return sr.starts_with("SR_CTAID") || sr.starts_with("SR_CgaCtaId") || sr.starts_with("SR_NCTAID") ? Pipe::kNone : Pipe::kLsu;
  }
  // [H200] HFMA2.MMA, which ptxas uses to move constants, counts on the tensor pipe
  // (fma_throughput: 32 per warp, its 32 HFMA2.MMA).
  if (base == "HFMA2" && has_modifier(opcode, "MMA")) return Pipe::kTensor;
  // [NCU] the uniform datapath: U-prefixed opcodes and the moves into it.
  if ((base.size() > 1 && base[0] == 'U' && base != "UNKNOWN") || base == "S2UR" || base == "R2UR" || base == "VOTEU")
    return Pipe::kUniform;
  for (const Entry& e : kTable)
    if (e.base == base) return e.pipe;
  return Pipe::kCount;
}

}  // namespace warpsim::sass
