#pragma once
// A PTX function lowered for execution: registers numbered densely, operands resolved to
// register ids, immediates, special registers and addresses, branch targets to instruction
// indices, and each branch's reconvergence point (its immediate post-dominator).
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ptx/float_formats.h"
#include "frontend/ptx/ptx_module.h"
#include "frontend/ptx/tmem_fragment.h"
#include "frontend/ptx/mma_sync_form.h"
#include "frontend/ptx/wmma_fragment.h"
#include "frontend/sass/sass_alu.h"
#include "frontend/sass/sass_flow.h"
#include "frontend/warp_inst.h"
#include "isa/op_info.h"

namespace warpsim::ptx {

enum class Special : uint8_t {
  kNone, kTid, kNtid, kCtaid, kNctaid, kLaneid, kWarpid, kNwarpid, kSmid, kNsmid, kClock, kLanemaskLt, kLanemaskLe, kLanemaskEq,
  kClusterCtarank, kClusterNctarank, kClusterCtaid, kClusterNctaid, kClusterid, kNclusterid, kIsExplicitCluster, kGridid,
  kLanemaskGt, kLanemaskGe, kDynamicSmemSize, kTotalSmemSize,
  kEnvreg,  // %envreg0-31, set by the driver; `dim` holds the number
};

// A setp/set comparison (PTX ISA "Comparison and Selection Instructions"), decoded once from
// the mnemonic so that running one compares no strings. kNone: not a comparison (false).
enum class CmpOp : uint8_t { kNone, kEq, kNe, kLt, kLe, kGt, kGe, kEqu, kNeu, kLtu, kLeu, kGtu, kGeu, kNum, kNan, kLo, kLs, kHi, kHs };

struct EmuInst;
// Whether an instruction's effects stay in its warp's registers: no store, atomic, arrive,
// barrier, copy or exit, no load of memory another grid's CTA may write, no clock read
// (stuck_waits.cpp).
bool keeps_to_registers(const EmuInst& in);
// The same when the whole grid is the unit watched (every CTA resident): loads of any space
// count as register-only too, and atomics are counted where they run, when they change memory.
bool keeps_to_grid(const EmuInst& in);

// The special register a PTX name such as "%ctaid.y" or "%cluster_ctarank" names (kNone if it
// is not one), and its dimension (0-2 for .x .y .z).
Special special_register(const std::string& name, uint8_t& dim);

struct EmuOperand {
  enum class Kind : uint8_t { kNone, kReg, kImm, kSpecial, kAddr, kVector, kLabel, kSink };
  Kind kind = Kind::kNone;
  int32_t reg = -1;            // kReg; kAddr base register (-1: absolute)
  uint64_t bits = 0;           // kImm value (float bits for float immediates); kAddr: symbol address + offset
  bool is_float = false, is_double = false, negated = false;
  bool address32 = false;       // kAddr on a 32-bit register: the sum wraps at 2^32, as the hardware's does
  bool wide = false;            // kVector standing for one .b128 register (its two 64-bit halves)
  Special special = Special::kNone;
  uint8_t dim = 0;             // .x .y .z
  MemSpace symbol_space = MemSpace::kNone;  // kAddr on a named variable: its space
  std::vector<int32_t> regs;   // kVector (a sink is -1, an immediate -2); a %p|%q pair is a vector of two
  std::vector<uint64_t> immediates;  // kVector: the value of each -2 element
  uint32_t target = 0;         // kLabel: instruction index
  // SASS operands (frontend/sass/lower_sass.h): a source's modifiers (sass::SourceMod), and the
  // parts of an address beyond reg + bits: the base's high word when it is a 64-bit pair, a
  // uniform register added to it (with its high word when that is a pair too), the base's scale
  // ([R0.X4]). `predicate_bits`: a kVector of predicates read as one word of bits (P2R's PR).
  uint8_t sass_mods = 0;
  bool sass_address = false;
  bool predicate_bits = false;
  uint8_t scale = 1;
  int32_t reg_hi = -1, uniform = -1, uniform_hi = -1;
  // A SASS address of shared memory (32-bit, or 64-bit inside the generic shared window) whose
  // bits 24-31 name a CTA of the cluster by its rank (SR_CgaCtaId), which the emulator turns into
  // its own encoding (op_info.h: rank + 1, or none for the CTA itself).
  bool cluster_window = false;
};

// What the emulator does, decided once at lowering so execution never compares strings.
enum class EmuOp : uint8_t {
  kMov, kCvta, kAdd, kSub, kMul, kMad, kFma, kDiv, kRem, kMin, kMax, kAbs, kNeg, kAnd, kOr, kXor, kNot, kShl, kShr,
  kSetp, kSelp, kCvt, kLd, kSt, kAtom, kRed, kBar, kMembar, kBra, kRet, kShfl, kVote, kActivemask, kElect, kCreatepolicy, kStmatrix,
  kSqrt, kRsqrt, kRcp, kEx2, kLg2, kSin, kCos, kPopc, kClz, kBrev, kBfe, kBfi, kPrmt, kSet, kRedux, kLdmatrix, kMovmatrix, kCpAsync, kCpAsyncCommit, kCpAsyncWait, kMbarrier, kBulkCopy, kNop, kWarpSync, kWmmaLoad, kWmmaStore, kWmmaMma, kMma,
  kMapa, kGetctarank, kClusterArrive, kClusterWait, kWgmma, kTcgen05,
  kCopysign, kShf, kBfind, kTanh, kMatch, kIsspacep, kTrap, kPrintf, kAssertFail, kMalloc, kFree, kBadIndirectCall, kDp4a, kDp2a, kSad, kFns, kBmsk, kSzext, kLop3, kSimdVideo, kAlloca, kStackSave, kStackRestore,
  kTexture,  // tex, tld4, txq, suld, sust (texture_ops.cpp)
  kLaunchControl,  // clusterlaunchcontrol (launch_control.cpp)
  kMbarrierPendingCount,  // mbarrier.pending_count: the count in an arrive's state token (mbarrier_ops.cpp)
  kSass,       // SASS arithmetic (EmuInst::sass; sass_execute.cpp)
  kSassVote,   // SASS VOTE/VOTEU: a ballot and its any/all predicate
  kSassFlow,   // SASS control flow (EmuInst::flow; sass_step.cpp)
  kSassRuntimeCall,  // SASS CALL.ABS into the CUDA runtime (runtime_ops.cpp)
};

// What a tcgen05 instruction does (EmuOp::kTcgen05).
enum class Tcgen05Op : uint8_t { kNone, kAlloc, kDealloc, kMma, kCommit, kLd, kSt, kCp };

// Generic addresses of shared memory: the .shared::cluster window (op_info.h's encoding) placed
// at this base, far above every global buffer (device_memory.h), so cvta.shared and a generic
// access can tell the two apart by address, as the hardware's generic address space does.
inline constexpr uint64_t kGenericSharedBase = uint64_t{1} << 46;
inline constexpr uint64_t kGenericSharedSize = uint64_t{1} << 32;
// Generic addresses of a thread's local memory (cvta.local), below the shared window and as far
// above the global buffers, so a generic access to a local array finds the thread's own.
inline constexpr uint64_t kGenericLocalBase = uint64_t{1} << 45;
inline constexpr uint64_t kGenericLocalSize = uint64_t{1} << 32;

struct ValueType {
  char kind = 'b';  // 'f' float, 'h' bfloat16, 's' signed, 'u' unsigned, 'b' bits, 'p' predicate
  uint32_t bits = 32;  // of one element
  uint32_t packed = 1; // 2 for f16x2 / bf16x2
};

struct EmuInst {
  // Read for every executed instruction: kept together at the front, so that emulating one
  // touches as few cache lines of it as possible.
  EmuOp code = EmuOp::kMov;
  // Its effects stay in the warp's registers (keeps_to_registers): what the emulator's watch for
  // hopeless mbarrier polls counts on (spin_watch.h).
  bool register_only = false;
  bool untimed = false;  // Instruction::untimed: executed, never a record for the timing model
  bool grid_register_only = false;  // keeps_to_grid: its effects stay in the warp's registers, seen from the grid
  int32_t guard = -1;
  bool guard_negated = false;
  MemSpace space = MemSpace::kGlobal;
  uint8_t vector = 1;
  bool wide = false, hi = false;
  bool bf16 = false;
  bool carry_in = false, carry_out = false;  // addc/subc/madc read CC.CF; .cc writes it
  // Result modifiers: .sat (floats to [0, 1], s32 and conversions to the type's range), .relu
  // (negatives to 0), .NaN (min/max propagate NaN), .xorsign.abs (min/max of magnitudes, sign
  // the xor of the inputs').
  bool saturate = false, relu = false, nan_min_max = false, xorsign_abs = false;
  // .ftz on an f32 or f16 operation: subnormal sources and results are zeros of their sign.
  bool ftz = false;
  bool satfinite = false;           // cvt: overflow to the largest finite value
  // ld/st .volatile/.relaxed/.acquire/.release: a strong access (PTX memory model), which the
  // race checker takes as synchronising through its word, as it takes atomics.
  bool strong = false;
  bool integer_rounding = false;    // cvt .rni/.rzi/.rmi/.rpi: round to an integral value
  Rounding rounding = Rounding::kNearestEven;  // cvt's rounding mode, integral or not
  // cvt to or from two values in one register: the element formats and the bits each takes
  // (an f32 source: f32 and 32).
  bool cvt_packed = false;
  const FloatFormat *cvt_to_format = nullptr, *cvt_from_format = nullptr;
  uint8_t cvt_to_bits = 0, cvt_from_bits = 0;
  // cvt.pack.sat: the width each of a and b is saturated to (16, 8, 4 or 2; 0: not cvt.pack)
  // and whether that type is signed.
  uint8_t cvt_pack_bits = 0;
  bool cvt_pack_signed = false;
  // A qualifier the executing code reads, decoded here so execution compares no strings: shf .l
  // (bit 0) and .wrap (bit 1); bmsk/szext .clamp, bfind .shiftamt, dp2a .hi (bit 0); prmt's mode
  // (1-6: f4e b4e rc8 ecl ecr rc16); a SIMD video instruction's operation (bits 0-2, 0-6: vadd
  // vsub vavrg vabsdiff vmin vmax vset), vset's comparison (bits 3-5: eq ne lt le gt ge) and
  // .add (bit 6); isspacep's space (1 global, 2 local, 3 shared or shared::cluster, 4 shared::cta);
  // bar's form (below).
  uint8_t qualifier = 0;
  // bar/barrier's form, in `qualifier`: sync, arrive, or red with its operation.
  static constexpr uint8_t kBarSync = 0, kBarArrive = 1, kBarPopc = 2, kBarAnd = 3, kBarOr = 4;
  bool tf32 = false;                // cvt.rna.tf32.f32
  ValueType type, source_type;      // the (last) operand type; cvt's source type
  uint32_t line = 0, source_line = 0, source_file = 0;  // source_*: the latest .loc (0: none)
  uint32_t reconverge = 0;          // branches: the immediate post-dominator (index; size() = exit)
  std::vector<EmuOperand> operands;
  std::vector<RegId> timing_regs;   // dsts then srcs: what every executed WarpInst points at
  OpInfo op;                        // for the timing model

  // Decoded at lowering, for the less common instructions.
  std::vector<RegId> dsts, srcs;    // registers for the scoreboard
  char matrix = 0;                  // wmma: 'a', 'b', 'c' or 'd'
  bool column_major = false;        // wmma.load/store layout
  bool transpose = false;           // ldmatrix .trans
  WmmaInfo wmma;                    // wmma: shape and element types
  uint32_t mma_k = 0;               // wgmma m64nNkK
  std::shared_ptr<const MmaLayout> mma_sync;  // mma.sync's form and where its fragments' elements go
  uint32_t wgmma_n = 0;             // wgmma m64nNkK
  MmaElem wgmma_d = MmaElem::kF32;  // wgmma's accumulator type: f32, f16 or s32
  Tcgen05Op tcgen05 = Tcgen05Op::kNone;
  // tcgen05.ld/st: the shape and .pack::16b/.unpack::16b (tmem_fragment.h); .xN is the
  // register count.
  TmemShape tmem_shape = TmemShape::kNone;
  bool tmem_packed = false;
  uint32_t matrices = 1;            // ldmatrix .x1/.x2/.x4
  int32_t wait_groups = -1;         // cp.async.wait_group N (-1: wait_all)
  CmpOp cmp = CmpOp::kNone;         // setp/set comparison
  std::string boolop, atom_op, shfl_mode;
  std::string mma_a, mma_b;         // wgmma's A and B types
  // ld/st/atom/red without a state space (generic) or on .shared::cluster: the space is known
  // only from the addresses at run time, and the record then points at one of these.
  bool generic = false;
  // The same instruction on .shared ([0]), on .shared::cluster ([1]) and on .local ([2]); kept
  // out of line, as most instructions have none and the program's instructions are read every step.
  std::shared_ptr<const std::array<OpInfo, 3>> space_ops;

  // SASS instructions (frontend/sass/lower_sass.h): the arithmetic, how many of the operands are
  // results (the rest are sources), whether the results are uniform registers (one value for
  // the warp, written to every lane), the control flow, and the scheduling bits for the timing
  // model (WarpInst::control).
  sass::SassAlu sass;
  sass::SassFlow flow = sass::SassFlow::kNone;
  uint8_t sass_results = 0;
  bool uniform_result = false;
  uint32_t control = 0;
  // Hopper's asynchronous units as SASS drives them (SYNCS, UBLKCP, UTMALDG): an mbarrier's
  // state and the tokens its arrives return are the hardware's 64-bit word
  // (CtaEmulator::Mbarrier), a wait's operand carries the parity it waits on in bit 31, bulk
  // copy sizes count 16-byte units, and a multicast's CTA mask is in bits 16-31 of its
  // register. `once_per_warp`: a uniform-datapath instruction with effects (UBLKCP, UTMALDG),
  // which acts once for the warp whichever lanes are active.
  bool sass_async = false;
  bool once_per_warp = false;
  // BAR.SYNC Rn, Rn: the barrier and its thread count in one register (cta_barriers.cpp).
  bool barrier_word = false;

  // The text, for lowering and messages.
  std::string opcode;
  std::string base;                 // "add", "ld", "setp", ...
  std::vector<std::string> mods;    // every dotted suffix after the base
  std::vector<std::string> types;   // the type suffixes in order ("s64", "s32" for cvt.s64.s32)
  bool has(const char* m) const;
};

struct Program {
  std::string name;
  std::vector<EmuInst> insts;
  std::vector<std::string> register_names;
  std::vector<uint32_t> register_bits;  // per virtual register: 1 for .pred, else 16/32/64
  // The emulator's registers: operands name storage registers, which pack_registers() shares
  // between virtual registers never live at once; the width of each (register_packing.h).
  std::vector<uint32_t> storage_bits;
  std::vector<uint32_t> register_slots;  // where each lives in a warp's RegisterFile (register_file.h)
  uint32_t register_words = 0;           // 32-bit words per warp
  // Scoreboard ids of the pseudo registers that stand for cp.async groups: past the virtual ones.
  static constexpr uint32_t kAsyncCopyRegs = 32;
  RegId async_copy_reg_base = 0;
  std::map<std::string, uint64_t> params;  // name → byte offset in the parameter buffer
  std::vector<Variable> param_vars;
  uint64_t param_bytes = 0;
  uint64_t static_shared_bytes = 0;     // module and function .shared, except extern ones
  uint64_t static_local_bytes = 0;      // .local arrays and call-site .param variables, per thread; alloca's stack starts above
  uint64_t dynamic_shared_offset = 0;   // where extern .shared starts
  std::vector<uint8_t> constant_bank;   // module .const variables, initialised
  // SASS: the parameters as the listing places them (EIATTR_KPARAM_INFO), which a kernel reading
  // a __grid_constant__ parameter through its generic address (c[0x0][0x198]) sees.
  std::vector<uint8_t> sass_params;
  std::map<std::string, std::pair<uint64_t, uint64_t>> constant_symbols;  // name -> offset, bytes
  std::map<uint32_t, std::string> source_files;  // the module's .file index → path, for messages
  bool reads_envreg = false;  // reads %envreg1/2: cooperative groups' grid-wide sync (a cooperative launch)
  bool sass = false;          // lowered from SASS (frontend/sass/lower_sass.h): run by the convergence-barrier model
  // SASS: where a call through a function pointer goes (CALL.REL.NOINC Rn): the function's
  // address (function_addresses.h) and the instruction its subroutine starts at.
  std::map<uint64_t, uint32_t> sass_call_targets;
};

// Splits a PTX-style mnemonic ("ld.global.v2.b32") into e.opcode, e.base, e.mods and e.types, as
// the PTX lowering does before decode_operation (inst_decode.h).
void set_mnemonic(EmuInst& e, const std::string& opcode);

// Lowers `entry` of `module`. Throws InputError (at the PTX line) for instructions the emulator
// cannot run, naming them.
// `global_addresses` gives the device address of each module .global (__device__) variable.
Program lower(const Module& module, const std::string& entry, const std::map<std::string, uint64_t>& global_addresses = {});
// A .const or .global variable of `module`'s initial bytes (zero where it has no initializer). An
// initializer that names a __device__ variable (`generic(x)+4`) takes its address from
// `global_addresses`; one that names a function (a table of function pointers, a virtual
// table), the function's (function_addresses.h).
std::vector<uint8_t> variable_image(const Variable& v, const Module& module, const std::map<std::string, uint64_t>& global_addresses);

}  // namespace warpsim::ptx
