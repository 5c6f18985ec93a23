#pragma once
// What the timing model needs to know about one PTX-style mnemonic: which pipe runs it, what
// class of work it is, and for memory and tensor operations their space, width and shape.
// Both frontends (traces now, PTX later) decode mnemonics into this one record.
#include <cstdint>
#include <string>
#include <string_view>

namespace warpsim {

// Execution pipes, named after Nsight Compute's pipe names where one exists.
enum class Pipe : uint8_t {
  kFma,     // FP32 (and IMAD): ncu "fma"
  kAlu,     // integer/logic, compares, moves: ncu "alu"
  kFp16,    // packed half arithmetic: ncu "fp16"
  kFp64,    // ncu "fp64"
  kXu,      // transcendental, conversions, bit counts: ncu "xu" (MUFU)
  kTensor,  // MMA: ncu "tensor"
  kBranch,  // control flow: ncu "adu/cbu"
  kLsu,     // global/local memory and atomics through L1TEX: ncu "lsu"
  kMio,     // shared/constant memory, shuffles: through the MIO queue
  kUniform, // SASS's uniform datapath (U* opcodes): ncu "uniform"; counted only, timed on the ALU
  kNone,    // barriers, fences, exit: handled by the SM without a math pipe
  kCount
};
inline constexpr int kNumPipes = static_cast<int>(Pipe::kCount);
std::string_view pipe_name(Pipe p);

enum class OpClass : uint8_t {
  kFp32, kFp16, kFp64, kInt, kSpecial, kConvert, kMove, kTensor, kBranch,
  kLoad, kStore, kAtomic, kReduction, kShuffle, kBarrier, kMembar, kExit, kNop, kMbarrier,
  kClusterArrive, kClusterWait,  // barrier.cluster.arrive / .wait: a barrier over a thread-block cluster
  kCount
};
inline constexpr int kNumOpClasses = static_cast<int>(OpClass::kCount);
std::string_view op_class_name(OpClass c);

// kSharedCluster: a .shared::cluster address, naming the shared memory of any CTA in the
// thread-block cluster. warpsim's encoding: bits 0-23 the offset, bits 24 and up the target
// CTA's rank in the cluster plus one (0: the issuing CTA itself), so a .shared::cta address is
// also a valid .shared::cluster one, as the PTX ISA requires.
// Which path through L1TEX a memory access takes, as Nsight Compute counts them apart: the LSU's
// (ld, st, atomics), the texture pipe's fetches (tex, tld4), or its surface accesses (suld, sust).
enum class TexPath : uint8_t { kLsu, kTexture, kSurface };

enum class MemSpace : uint8_t { kNone, kGlobal, kShared, kLocal, kConst, kParam, kSharedCluster };
inline constexpr uint32_t kClusterRankShift = 24;
inline constexpr uint64_t kClusterOffsetMask = (uint64_t{1} << kClusterRankShift) - 1;
std::string_view mem_space_name(MemSpace s);

// Hopper's transaction barriers (PTX mbarrier) and the bulk copies (TMA) that complete on them.
// Arrive covers arrive.expect_tx and arrive_drop too (WarpInst::mbar carries both amounts); a
// wait is try_wait or test_wait; a bulk copy is cp.async.bulk from global to shared memory;
// complete_tx is mbarrier.complete_tx, and st.async / red.async, stores into a cluster sibling's
// shared memory that complete their bytes on an mbarrier there.
enum class MbarrierOp : uint8_t { kNone, kInit, kArrive, kExpectTx, kWait, kInval, kBulkCopy, kCompleteTx };

// Roofline counting follows ncu: FLOPs = fadd + fmul + 2*ffma (and the same for FP64/FP16).
enum class FlopKind : uint8_t { kNone, kAdd, kMul, kFma };

enum class TensorPrecision : uint8_t { kNone, kFp16, kBf16, kTf32, kFp8, kFp6, kFp4, kInt8, kInt4, kFp64, kCount };
inline constexpr int kNumTensorPrecisions = static_cast<int>(TensorPrecision::kCount);
std::string_view tensor_precision_name(TensorPrecision p);
// Accepts the names used in configs ("fp16", "fp8", ...); returns kNone when unknown.
TensorPrecision tensor_precision_from_name(std::string_view name);

struct OpInfo {
  std::string mnemonic;
  OpClass op_class = OpClass::kNop;
  Pipe pipe = Pipe::kNone;
  // The pipe Nsight Compute counts the instruction on (sm__inst_executed_pipe_*): a SASS opcode's
  // own (frontend/sass/sass_pipes.cpp) where it differs from the pipe that times it; kCount: `pipe`.
  Pipe counted_pipe = Pipe::kCount;
  Pipe counted() const { return counted_pipe == Pipe::kCount ? pipe : counted_pipe; }
  MemSpace space = MemSpace::kNone;
  FlopKind flop = FlopKind::kNone;
  uint8_t access_bytes = 0;  // bytes per active lane for memory operations
  bool writes_destination = false;  // the first operand is written
  bool bypass_l1 = false;           // .cg/.cv/.volatile: served by L2
  bool evict_first = false;         // .cs/.lu: cached with evict-first priority in L1 and L2 (PTX ISA cache operators)
  uint8_t packed_lanes = 1;         // 2 for f16x2/bf16x2 (two results per lane)
  MbarrierOp mbarrier = MbarrierOp::kNone;
  // Tensor operations.
  TensorPrecision tensor = TensorPrecision::kNone;
  uint16_t m = 0, n = 0, k = 0;
  uint8_t mma_per_warp = 1;
  // A structured-sparse MMA (mma.sp, .sp::ordered_metadata): A holds two of every four elements
  // (one of two for TF32) and metadata says where, so the tensor cores perform half the dense
  // shape's multiply-adds, at the dense rate per product: twice the dense throughput of the shape
  // (WP-A: "Sparse Tensor Core", 2:4 sparsity doubles the math rate). Its FLOPs below are the
  // performed ones, half the dense product it stands for.
  bool sparse = false;
  // wgmma: the four warps of a warpgroup each issue the instruction and each computes a quarter
  // of its M rows (PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"), so one
  // warp's share of the FLOPs is a quarter of the shape's.
  uint8_t warps_sharing = 1;
  // tcgen05.mma (Blackwell): one thread issues the whole MMA, which runs on all the SM's tensor
  // cores asynchronously into tensor memory; tcgen05.commit then arrives on an mbarrier once the
  // thread's MMAs are done (after_tensor).
  bool whole_sm = false;
  bool after_tensor = false;
  // tcgen05 .cta_group::2: the MMA spans a pair of CTAs on two SMs (M = 256 is 128 rows each), so
  // the issuing SM's tensor cores compute half of it.
  bool cta_pair = false;
  // tcgen05.mma reading A from tensor memory ([a-tmem] in PTX; warpsim's .a_tmem suffix in a
  // trace): only B then comes from shared memory.
  bool a_in_tmem = false;
  // wgmma with A in registers (PTX's "{...}" A operand; warpsim's .a_regs before the shape in a
  // trace): only B is read from shared memory.
  bool a_in_registers = false;
  // tcgen05.cp: copies this many bytes of shared memory into tensor memory, asynchronously and
  // in order with the thread's MMAs (tensor_copy_bytes > 0 marks the copy).
  uint16_t tensor_copy_bytes = 0;
  // The lowest compute capability (x10) with this tensor form, where it is above the
  // generation's: mma.sync with a .kind (FP6/FP4 and block-scaled inputs) is sm_120's (tcgen05's
  // sm_100 follows from whole_sm).
  uint16_t min_compute_capability = 0;
  // cp.async.mbarrier.arrive: the arrival counts once the thread's earlier cp.async copies have
  // landed (the frontend makes the record read their pseudo registers; .noinc: it is one of the
  // phase's expected arrivals, else it only holds the phase until then).
  bool after_async_copies = false;
  // An mbarrier form Hopper (sm_90) introduced: expect_tx, arrive.expect_tx, try_wait (bulk
  // copies are sm_90 by their MbarrierOp).
  bool mbarrier_sm90 = false;
  // mbarrier.arrive_drop: the arrivals also leave the barrier, lowering the count every later
  // phase expects.
  bool arrive_drop = false;
  // clusterlaunchcontrol.try_cancel (Blackwell): asks the CTA scheduler to cancel a cluster not
  // yet launched; its 16-byte answer completes on an mbarrier after the scheduler's round trip.
  bool cancels_launch = false;
  bool sleep = false;       // nanosleep: the warp sleeps WarpInst::sleep_ns
  bool barrier_arrive = false;  // bar.arrive: arrives at a CTA barrier without waiting for it
  bool bulk_reduce = false; // cp.reduce.async.bulk: a bulk store L2 combines (MbarrierUse::elem_bytes per operation)
  bool bulk_store = false;  // cp.async.bulk.global.shared::cta.bulk_group: WarpInst::mbar.tx_bytes per issuing lane
  // kTexture: access_bytes is one texel, or two along x when filtering.
  TexPath tex_path = TexPath::kLsu;
  // A filtered 2D or 3D fetch (or tld4's 2 x 2 gather) reads the same bytes of the next row
  // (tex_row_bytes further on) and of the next slice (tex_slice_bytes): 0 when it does not.
  uint32_t tex_row_bytes = 0, tex_slice_bytes = 0;
  bool from_sass = false;    // decoded from an Accel-Sim SASS opcode (shape already checked by the hardware)
  // A warpgroup MMA (PTX wgmma, SASS HGMMA/IGMMA/QGMMA): Hopper's path to the full tensor rate.
  // Warp-level MMAs (mma.sync, mma.sp, wmma) run at TensorSpec::warp_mma_fraction of it.
  bool warpgroup() const { return warps_sharing > 1; }
  uint64_t tensor_flops() const { return (sparse ? 1ull : 2ull) * m * n * k * mma_per_warp / warps_sharing; }
};

// Decodes a mnemonic such as "fma.rn.f32", "ld.global.v4.f32" or
// "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32". On failure returns false and sets
// `error` to a message that names what was expected.
bool decode_mnemonic(std::string_view mnemonic, OpInfo& out, std::string& error);

// tcgen05.mma keeps its shape and types in the instruction descriptor, a run-time value; a
// static decode of the instruction takes this stand-in: the mnemonic with a shape and types of
// its kind (M = 128, N = 16), e.g. ".m128n16k64.f32.e2m1.e2m1" for kind::mxf4.
std::string tcgen05_mma_stand_in(std::string_view mnemonic);

// A wgmma mnemonic marked as taking A from registers: ".a_regs" before the shape, e.g.
// "wgmma.mma_async.sync.aligned.a_regs.m64n64k16.f32.f16.f16" (the mnemonic unchanged without a shape).
std::string wgmma_with_a_in_registers(std::string_view mnemonic);

}  // namespace warpsim
