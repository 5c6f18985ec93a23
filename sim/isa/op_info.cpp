#include "isa/op_info.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "isa/tensor_ops.h"

namespace warpsim {
namespace {

std::vector<std::string_view> split_dots(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    parts.push_back(s.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

enum class TypeKind { kNone, kFloat, kInt, kPred };
struct TypeSuffix {
  std::string_view name;
  TypeKind kind;
  uint8_t bytes;
};
constexpr std::array<TypeSuffix, 27> kTypes{{
    {"f16", TypeKind::kFloat, 2},   {"f16x2", TypeKind::kFloat, 4}, {"bf16", TypeKind::kFloat, 2},
    {"bf16x2", TypeKind::kFloat, 4}, {"tf32", TypeKind::kFloat, 4}, {"f32", TypeKind::kFloat, 4},
    {"f64", TypeKind::kFloat, 8},   {"e4m3", TypeKind::kFloat, 1},  {"e5m2", TypeKind::kFloat, 1},
    {"e2m1", TypeKind::kFloat, 1},  {"e3m2", TypeKind::kFloat, 1},  {"e2m3", TypeKind::kFloat, 1},
    {"s4", TypeKind::kInt, 1},      {"u4", TypeKind::kInt, 1},      {"s8", TypeKind::kInt, 1},
    {"u8", TypeKind::kInt, 1},      {"s16", TypeKind::kInt, 2},     {"u16", TypeKind::kInt, 2},
    {"s32", TypeKind::kInt, 4},     {"u32", TypeKind::kInt, 4},     {"s64", TypeKind::kInt, 8},
    {"u64", TypeKind::kInt, 8},     {"b8", TypeKind::kInt, 1},      {"b16", TypeKind::kInt, 2},
    {"b32", TypeKind::kInt, 4},     {"b64", TypeKind::kInt, 8},     {"pred", TypeKind::kPred, 1},
}};

const TypeSuffix* find_type(std::string_view s) {
  if (s == "b128") {
    static constexpr TypeSuffix k128{"b128", TypeKind::kInt, 16};
    return &k128;
  }
  for (const auto& t : kTypes)
    if (t.name == s) return &t;
  return nullptr;
}

bool is_one_of(std::string_view s, std::initializer_list<std::string_view> set) {
  for (auto v : set)
    if (s == v) return true;
  return false;
}

MemSpace space_of(std::string_view s) {
  if (s == "global") return MemSpace::kGlobal;
  if (s == "shared" || s == "shared::cta") return MemSpace::kShared;
  if (s == "shared::cluster") return MemSpace::kSharedCluster;
  if (s == "local") return MemSpace::kLocal;
  if (s == "const") return MemSpace::kConst;
  if (s == "param") return MemSpace::kParam;
  return MemSpace::kNone;
}

// Pipes for ordinary arithmetic, by base operation and operand type. Sources: Volta+ run IMAD on
// the FMA pipe and compares/min/max on the ALU pipe (Nsight Compute pipe utilisation docs);
// transcendental and conversion instructions run on the XU (MUFU) unit (CUDA-PG throughput table).
bool decode_arith(std::string_view base, const std::vector<std::string_view>& parts,
                  const TypeSuffix* type, OpInfo& out) {
  static const std::initializer_list<std::string_view> kSpecial = {
      "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "div"};
  static const std::initializer_list<std::string_view> kFlt = {
      "add", "sub", "mul", "fma", "mad", "min", "max", "abs", "neg", "setp", "set", "selp",
      "copysign", "testp", "cvt", "mov", "and", "or", "xor", "not", "cnot", "shl", "shr",
      "popc", "clz", "brev", "bfe", "bfi", "bfind", "prmt", "mul24", "mad24", "sad", "rem",
      "lop3", "shf", "dp4a", "dp2a", "fns", "cvta", "isspacep", "szext", "mov", "slct", "mapa", "getctarank",
      "addc", "subc", "madc", "bmsk", "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2",
      "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset2", "vset4", "alloca", "stacksave", "stackrestore"};
  bool special = is_one_of(base, kSpecial);
  if (!special && !is_one_of(base, kFlt)) return false;
  out.writes_destination = base != "stackrestore";  // which reads its one operand
  TypeKind kind = type ? type->kind : TypeKind::kInt;
  std::string_view tname = type ? type->name : "";
  bool is_f64 = tname == "f64", is_f32 = tname == "f32";
  bool is_half = tname == "f16" || tname == "f16x2" || tname == "bf16" || tname == "bf16x2";
  if (tname == "f16x2" || tname == "bf16x2") out.packed_lanes = 2;
  auto flop_of = [&]() {
    if (base == "add" || base == "sub") return FlopKind::kAdd;
    if (base == "mul") return FlopKind::kMul;
    if (base == "fma" || base == "mad") return FlopKind::kFma;
    return FlopKind::kNone;
  };
  if (base == "cvt" || base == "cvta" || base == "popc" || base == "clz" || base == "brev" ||
      base == "bfind") {
    out.op_class = base == "cvta" ? OpClass::kInt : OpClass::kConvert;
    out.pipe = base == "cvta" ? Pipe::kAlu : Pipe::kXu;
    return true;
  }
  if (base == "mov") {
    out.op_class = OpClass::kMove;
    out.pipe = Pipe::kAlu;
    return true;
  }
  if (kind == TypeKind::kFloat && is_f64) {
    out.op_class = OpClass::kFp64;
    out.pipe = Pipe::kFp64;
    out.flop = flop_of();
    if (special) out.op_class = OpClass::kSpecial;  // still the FP64 pipe: DRCP/DSQRT are DFMA sequences
    return true;
  }
  if (special) {
    out.op_class = OpClass::kSpecial;
    out.pipe = Pipe::kXu;
    return true;
  }
  if (kind == TypeKind::kFloat && is_half) {
    out.op_class = OpClass::kFp16;
    out.pipe = Pipe::kFp16;
    out.flop = flop_of();
    return true;
  }
  if (kind == TypeKind::kFloat && is_f32) {
    out.flop = flop_of();
    bool on_fma = out.flop != FlopKind::kNone;
    out.op_class = OpClass::kFp32;
    out.pipe = on_fma ? Pipe::kFma : Pipe::kAlu;
    return true;
  }
  (void)parts;
  out.op_class = OpClass::kInt;
  bool multiply = base == "mul" || base == "mad" || base == "madc" || base == "mul24" || base == "mad24" ||
                  base == "dp4a" || base == "dp2a" || base == "sad";
  out.pipe = multiply ? Pipe::kFma : Pipe::kAlu;
  return true;
}

bool decode_memory(std::string_view base, const std::vector<std::string_view>& parts,
                   const TypeSuffix* type, OpInfo& out, std::string& error) {
  bool wmma = base == "wmma" && parts.size() > 1 && (parts[1] == "load" || parts[1] == "store");
  bool ldmatrix = base == "ldmatrix" || base == "stmatrix";
  // cp.async.mbarrier.arrive[.noinc].shared{::cta}.b64 [mbar] (Ampere): an arrive on the mbarrier
  // once the thread's earlier cp.async copies have landed, decoded with the mbarrier operations.
  if (base == "cp" && parts.size() > 2 && parts[1] == "async" && parts[2] == "mbarrier") return false;
  bool cp_async = base == "cp" && parts.size() > 1 && parts[1] == "async";
  // cp.reduce.async.bulk[.tensor.Nd].global.shared::cta...bulk_group.op[.type]: a TMA reduction,
  // timed as a bulk store whose sectors L2's atomic units combine (one operation per element).
  if (base == "cp" && parts.size() > 3 && parts[1] == "reduce" && parts[2] == "async" && parts[3] == "bulk") {
    bool to_global = false, bulk_group = false;
    for (auto p : parts) to_global = to_global || p == "global", bulk_group = bulk_group || p == "bulk_group";
    if (!to_global || !bulk_group) {
      error = "'cp.reduce.async.bulk' is modelled from shared to global memory in a bulk group "
              "(cp.reduce.async.bulk[.tensor.Nd].global.shared::cta[.tile].bulk_group.op.type); not this form";
      return false;
    }
    out.op_class = OpClass::kStore;
    out.space = MemSpace::kGlobal;
    out.bulk_store = out.bulk_reduce = true;
    out.access_bytes = type ? type->bytes : 4;  // a tensor reduction: the map's element (the record says)
    out.bypass_l1 = true;
    out.pipe = Pipe::kLsu;
    return true;
  }
  if (cp_async && parts.size() > 2 && parts[2] == "bulk") {
    // cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]:
    // the TMA reads global memory through L2 and completes the bytes on an mbarrier.
    // cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes: a box of a tensor.
    const bool tensor = parts.size() > 3 && parts[3] == "tensor";
    // cp.async.bulk.commit_group / wait_group[.read] N: the bulk_group bookkeeping of TMA stores.
    // A wait waits for the warp's outstanding stores, as a membar does (N > 0 is taken as 0).
    if (parts.size() > 3 && (parts[3] == "commit_group" || parts[3] == "wait_group")) {
      out.op_class = parts[3] == "wait_group" ? OpClass::kMembar : OpClass::kNop;
      return true;
    }
    // cp.async.bulk.prefetch[.tensor.Nd].L2.global: a hint to bring data into L2, not timed.
    if (parts.size() > 3 && parts[3] == "prefetch") {
      out.op_class = OpClass::kNop;
      return true;
    }
    // A tensor copy names its rank (1d..5d) and may name a load mode: tile (the default) is
    // modelled; im2col and the gather/scatter modes are not.
    const bool rank_ok = !tensor || (parts.size() > 4 && parts[4].size() == 2 && parts[4][0] >= '1' && parts[4][0] <= '5' && parts[4][1] == 'd');
    bool other_mode = false, on_mbarrier = false;
    for (auto p : parts) {
      other_mode = other_mode || p.starts_with("im2col") || p.starts_with("tile::");
      on_mbarrier = on_mbarrier || p.starts_with("mbarrier");
    }
    // cp.async.bulk[.tensor.Nd].global.shared::cta[.tile].bulk_group: a TMA store ([dst], [src],
    // size; or [tensorMap, {coords}], [src]). The copy engine reads shared memory and writes the
    // bytes to L2, acknowledged like stores.
    const size_t dst = tensor ? 5 : 3;
    const bool to_global = parts.size() > dst + 1 && parts[dst] == "global" && parts[dst + 1].starts_with("shared");
    bool bulk_group = false;
    for (auto p : parts) bulk_group = bulk_group || p == "bulk_group";
    if (to_global && bulk_group && rank_ok && !other_mode) {
      out.op_class = OpClass::kStore;
      out.space = MemSpace::kGlobal;
      out.bulk_store = true;
      out.access_bytes = 16;
      out.bypass_l1 = true;
      out.pipe = Pipe::kLsu;
      return true;
    }
    bool to_shared = parts.size() > dst && parts[dst].starts_with("shared");
    if (!to_shared || !on_mbarrier || !rank_ok || other_mode) {
      error = "'" + std::string(base) + ".async.bulk' is modelled from global to shared memory completing on an mbarrier "
              "(cp.async.bulk[.tensor.{1d..5d}].shared::cluster.global[.tile].mbarrier::complete_tx::bytes[.multicast::cluster]) "
              "and from shared to global memory in a bulk group (cp.async.bulk[.tensor.{1d..5d}].global.shared::cta[.tile].bulk_group), "
              "in tile mode; not this form";
      return false;
    }
    out.op_class = OpClass::kLoad;
    out.space = MemSpace::kGlobal;
    out.mbarrier = MbarrierOp::kBulkCopy;
    out.access_bytes = 16;  // the PTX ISA requires 16-byte aligned addresses and sizes
    out.bypass_l1 = true;
    out.pipe = Pipe::kLsu;
    return true;
  }
  if (cp_async && parts.size() > 2 && (parts[2] == "commit_group" || parts[2] == "wait_group" || parts[2] == "wait_all")) {
    out.op_class = OpClass::kNop;  // group bookkeeping: no memory access of its own
    return true;
  }
  if (!is_one_of(base, {"ld", "ldu", "st", "atom", "red", "prefetch"}) && !wmma && !ldmatrix &&
      !cp_async)
    return false;
  MemSpace space = MemSpace::kNone;
  uint8_t vec = 1;
  for (auto p : parts) {
    MemSpace s = space_of(p);
    if (s != MemSpace::kNone) space = s;
    if (p == "v2") vec = 2;
    if (p == "v4") vec = 4;
    if (p == "v8") vec = 8;
    // PTX ISA, "Cache operators": .cg caches in L2 only; .cv fetches again (served by L2, the
    // point of coherence for device memory); .cs ("likely to be accessed once") and .lu ("last
    // use"; on global addresses the same as .cs) allocate with evict-first priority.
    if (p == "cg" || p == "cv" || p == "volatile") out.bypass_l1 = true;
    if (p == "cs" || p == "lu") out.evict_first = true;
  }
  // st.async / red.async (Hopper): a store or reduction into a cluster sibling's shared memory that
  // completes its bytes on an mbarrier in the same CTA (PTX ISA, "st.async", "red.async").
  if ((base == "st" || base == "red") && std::find(parts.begin(), parts.end(), "async") != parts.end()) {
    const bool on_mbarrier = std::find(parts.begin(), parts.end(), "mbarrier::complete_tx::bytes") != parts.end();
    if (!on_mbarrier || (space != MemSpace::kShared && space != MemSpace::kSharedCluster)) {
      error = std::string(base) + ".async is modelled in its .shared::cluster form completing on an mbarrier (.mbarrier::complete_tx::bytes); not this one";
      return false;
    }
    out.mbarrier = MbarrierOp::kCompleteTx;
    out.mbarrier_sm90 = true;
  }
  if (ldmatrix) space = MemSpace::kShared;
  if (space == MemSpace::kSharedCluster && (wmma || cp_async)) space = MemSpace::kShared;
  if (cp_async) space = MemSpace::kGlobal;  // timed as the global read; the shared write is not yet modelled
  if (space == MemSpace::kNone) space = MemSpace::kGlobal;  // generic addressing: assume global
  out.space = space;
  uint32_t bytes = (type ? type->bytes : 4) * vec;
  if (wmma || ldmatrix) bytes = 16;  // each lane moves one 16-byte fragment row piece
  if (bytes > 255) {
    error = "access width too large";
    return false;
  }
  out.access_bytes = static_cast<uint8_t>(bytes);
  bool is_store = base == "st" || (wmma && parts[1] == "store") || base == "stmatrix";
  if (base == "atom") {
    out.op_class = OpClass::kAtomic;
    out.writes_destination = true;
  } else if (base == "red") {
    out.op_class = OpClass::kReduction;
  } else if (is_store || base == "prefetch") {
    out.op_class = OpClass::kStore;
    if (base == "prefetch") out.op_class = OpClass::kNop;
  } else {
    out.op_class = OpClass::kLoad;
    // cp.async writes no register, but the PTX frontend gives it a pseudo register standing for
    // its group, which cp.async.wait_group reads (frontend/ptx/cta_emulator.h).
    out.writes_destination = true;
  }
  // Distributed shared memory goes through MIO too; the SM-to-SM network's latency and bandwidth
  // are the LSU's business once it sees the addresses (sm/load_store_unit.cpp).
  bool via_mio = space == MemSpace::kShared || space == MemSpace::kSharedCluster || space == MemSpace::kConst || space == MemSpace::kParam;
  out.pipe = via_mio ? Pipe::kMio : Pipe::kLsu;
  if (base == "prefetch") out.pipe = Pipe::kNone;
  return true;
}

}  // namespace

bool decode_mnemonic(std::string_view mnemonic, OpInfo& out, std::string& error) {
  out = OpInfo{};
  error.clear();  // the decoders below read a non-empty error as their own failure
  out.mnemonic = std::string(mnemonic);
  if (mnemonic.empty()) {
    error = "expected an instruction mnemonic";
    return false;
  }
  auto parts = split_dots(mnemonic);
  std::string_view base = parts[0];
  const TypeSuffix* type = nullptr;
  for (auto p : parts)
    if (auto t = find_type(p)) type = t;  // the last type suffix names the operand type
  // warpsim's .texelN, .rowN and .sliceN name a texture fetch's footprint; elsewhere they are a
  // mistake the instruction would otherwise ignore.
  if (base != "tex" && base != "tld4") {
    auto numbered = [](std::string_view p, std::string_view prefix) {
      return p.size() > prefix.size() && p.starts_with(prefix) && std::isdigit(static_cast<unsigned char>(p[prefix.size()]));
    };
    for (size_t i = 1; i < parts.size(); ++i) {
      if (numbered(parts[i], "texel") || numbered(parts[i], "row") || numbered(parts[i], "slice")) {
        error = "'." + std::string(parts[i]) + "' gives a texture fetch's footprint (tex, tld4); '" + std::string(mnemonic) + "' is not a fetch";
        return false;
      }
    }
  }

  if (decode_tensor(base, parts, out, error)) return true;
  if (!error.empty()) return false;
  // Texture and surface instructions (PTX ISA): fetches and surface loads and stores go through
  // L1TEX as ld.global.nc does. A fetch moves its texel per lane, which the PTX frontend knows
  // from the texture object (texture_ops.cpp); decoded alone (a trace), one 32-bit channel.
  if (base == "tex" || base == "tld4" || base == "suld" || base == "sust") {
    uint32_t vec = 1;
    for (auto p : parts) vec = p == "v2" ? 2 : p == "v4" ? 4 : vec;
    out.op_class = base == "sust" ? OpClass::kStore : OpClass::kLoad;
    out.space = MemSpace::kGlobal;
    out.pipe = Pipe::kLsu;
    out.writes_destination = base != "sust";
    out.tex_path = base == "suld" || base == "sust" ? TexPath::kSurface : TexPath::kTexture;
    out.access_bytes = static_cast<uint8_t>(out.tex_path == TexPath::kSurface ? (type ? type->bytes : 4) * vec : 4);
    // warpsim's .texelN: N bytes per lane; .rowN and .sliceN: a filtered fetch's next row and
    // slice are N bytes further on (what warpsim trace writes for PTX fetches).
    auto number = [](std::string_view digits, uint64_t most) -> uint64_t {
      if (digits.empty() || digits.size() > 10 || digits.find_first_not_of("0123456789") != std::string_view::npos) return 0;
      const uint64_t n = std::stoull(std::string(digits));
      return n <= most ? n : 0;
    };
    for (auto p : parts) {
      if (p.starts_with("texel")) {
        const uint64_t n = number(p.substr(5), 32);
        if (n == 0) {
          error = "'.texelN' gives a fetch's bytes per lane, 1 to 32; not '" + std::string(p) + "'";
          return false;
        }
        out.access_bytes = static_cast<uint8_t>(n);
      } else if ((p.starts_with("row") || p.starts_with("slice")) && out.tex_path == TexPath::kTexture) {
        const bool row = p.starts_with("row");
        const uint64_t n = number(p.substr(row ? 3 : 5), UINT32_MAX);
        if (n == 0) {
          error = "'.rowN' and '.sliceN' give the bytes from a filtered fetch's texels to the next row's and slice's, 1 to 4294967295; not '" +
                  std::string(p) + "'";
          return false;
        }
        (row ? out.tex_row_bytes : out.tex_slice_bytes) = static_cast<uint32_t>(n);
      }
    }
    return true;
  }
  if (base == "txq") {  // a query of the texture's descriptor: timed as a move (assumed; TXQ's latency is not measured)
    out.op_class = OpClass::kMove;
    out.pipe = Pipe::kAlu;
    out.writes_destination = true;
    return true;
  }
  if (decode_memory(base, parts, type, out, error)) return true;
  if (!error.empty()) return false;
  if ((base == "bar" || base == "barrier") && parts.size() > 1 && parts[1] == "warp") {
    out.op_class = OpClass::kNop;  // bar.warp.sync: converges one warp, no CTA barrier
    return true;
  }
  if (base == "barrier" && parts.size() > 1 && parts[1] == "cluster") {
    // barrier.cluster.arrive[.release|.relaxed][.aligned] and barrier.cluster.wait[.acquire][.aligned]
    const bool arrive = parts.size() > 2 && parts[2] == "arrive", wait = parts.size() > 2 && parts[2] == "wait";
    if (!arrive && !wait) {
      error = "expected barrier.cluster.arrive or barrier.cluster.wait, not '" + std::string(mnemonic) + "'";
      return false;
    }
    out.op_class = arrive ? OpClass::kClusterArrive : OpClass::kClusterWait;
    return true;
  }
  if (base == "bar" || base == "barrier") {
    out.op_class = OpClass::kBarrier;
    out.barrier_arrive = std::find(parts.begin(), parts.end(), "arrive") != parts.end();
    out.writes_destination = std::find(parts.begin(), parts.end(), "red") != parts.end();  // bar.red's result
    return true;
  }
  if (base == "cp" && parts.size() > 3 && parts[1] == "async" && parts[2] == "mbarrier" && parts[3] == "arrive") {
    out.op_class = OpClass::kMbarrier;
    out.pipe = Pipe::kMio;
    out.mbarrier = MbarrierOp::kArrive;
    out.after_async_copies = true;
    return true;
  }
  // Cluster launch control (Blackwell, PTX ISA "clusterlaunchcontrol"): try_cancel asks the CTA
  // scheduler to cancel a cluster not yet launched and writes the 16-byte answer to shared memory,
  // completing its bytes on an mbarrier (whose address travels in WarpInst::mbar); query_cancel
  // decodes an answer held in registers.
  if (base == "clusterlaunchcontrol") {
    const std::string_view what = parts.size() > 1 ? parts[1] : "";
    if (what == "try_cancel") {
      out.op_class = OpClass::kMbarrier;
      out.pipe = Pipe::kMio;
      out.mbarrier = MbarrierOp::kCompleteTx;
      out.cancels_launch = true;
      return true;
    }
    if (what == "query_cancel") {
      out.op_class = OpClass::kInt;
      out.pipe = Pipe::kAlu;
      out.writes_destination = true;
      return true;
    }
    error = "unknown clusterlaunchcontrol operation '" + std::string(what) + "'; expected try_cancel or query_cancel";
    return false;
  }
  if (base == "mbarrier") {
    const std::string_view what = parts.size() > 1 ? parts[1] : "";
    if (what == "pending_count") {  // reads the state token in a register: integer work, no barrier access
      out.op_class = OpClass::kInt;
      out.pipe = Pipe::kAlu;
      out.writes_destination = true;
      return true;
    }
    // Shared-memory objects updated by the MIO path, like a shared atomic.
    // Its address travels in WarpInst::mbar, not as a memory access of its own (no space).
    out.op_class = OpClass::kMbarrier;
    out.pipe = Pipe::kMio;
    if (what == "init") {
      out.mbarrier = MbarrierOp::kInit;
    } else if (what == "arrive" || what == "arrive_drop") {
      out.mbarrier = MbarrierOp::kArrive;
      out.arrive_drop = what == "arrive_drop";
      out.writes_destination = true;  // the state token (or the sink _)
    } else if (what == "expect_tx") {
      out.mbarrier = MbarrierOp::kExpectTx;
    } else if (what == "complete_tx") {
      out.mbarrier = MbarrierOp::kCompleteTx;
    } else if (what == "try_wait" || what == "test_wait") {
      out.mbarrier = MbarrierOp::kWait;
      out.writes_destination = true;
    } else if (what == "inval") {
      out.mbarrier = MbarrierOp::kInval;
    } else {
      error = "unknown mbarrier operation '" + std::string(what) +
              "'; expected init, arrive, arrive_drop, expect_tx, complete_tx, try_wait, test_wait, pending_count or inval";
      return false;
    }
    // init, arrive, test_wait and inval are sm_80's (PTX ISA, "mbarrier"); transaction counts and
    // try_wait came with sm_90.
    out.mbarrier_sm90 = what == "expect_tx" || what == "complete_tx" || what == "try_wait" ||
                        std::find(parts.begin(), parts.end(), "expect_tx") != parts.end();
    return true;
  }
  if (base == "tcgen05" && parts.size() > 1) {
    // Blackwell's tensor-memory instructions other than mma (PTX ISA, "TensorCore 5th
    // Generation"): commit arrives on an mbarrier when the issuing thread's MMAs are done; ld/st
    // move tensor memory to and from registers (timed like a shared-memory access); alloc writes
    // the allocated address to shared memory; the rest order or free.
    const std::string_view what = parts[1];
    if (what == "commit") {
      out.op_class = OpClass::kMbarrier;
      out.pipe = Pipe::kMio;
      out.mbarrier = MbarrierOp::kArrive;
      out.after_tensor = true;
    } else if (what == "ld" || what == "st" || what == "alloc") {
      out.op_class = what == "ld" ? OpClass::kLoad : OpClass::kStore;
      out.pipe = Pipe::kMio;
      out.writes_destination = what == "ld";
      out.access_bytes = 4;
    } else if (what == "cp") {
      // Shapes (PTX ISA, tcgen05.cp): lanes x bits read from shared memory once; .warpx2/.warpx4
      // multicast them to more lanes without reading more.
      static constexpr std::pair<std::string_view, uint16_t> kShapes[] = {
          {"128x256b", 4096}, {"4x256b", 128}, {"128x128b", 2048}, {"64x128b", 1024}, {"32x128b", 512}};
      for (auto [shape, bytes] : kShapes)
        if (std::find(parts.begin(), parts.end(), shape) != parts.end()) out.tensor_copy_bytes = bytes;
      if (out.tensor_copy_bytes == 0) {
        error = "'" + std::string(mnemonic) + "': tcgen05.cp needs a shape: .128x256b, .4x256b, .128x128b, .64x128b or .32x128b";
        return false;
      }
      out.op_class = OpClass::kTensor;
      out.pipe = Pipe::kTensor;
      out.whole_sm = true;
    } else if (what == "dealloc" || what == "relinquish_alloc_permit" || what.starts_with("fence") || what.starts_with("wait")) {
      out.op_class = OpClass::kNop;
    } else {
      error = "'" + std::string(mnemonic) + "': tcgen05." + std::string(what) + " is not modelled (mma, cp, commit, ld, st, alloc, dealloc, "
              "relinquish_alloc_permit, fence and wait are)";
      return false;
    }
    return true;
  }
  if (base == "membar" || base == "fence") {
    out.op_class = OpClass::kMembar;
    return true;
  }
  if (base == "bra" || base == "brx" || base == "call" || base == "ret") {
    out.op_class = OpClass::kBranch;
    out.pipe = Pipe::kBranch;
    return true;
  }
  if (base == "exit" || base == "trap") {
    out.op_class = OpClass::kExit;
    return true;
  }
  if (base == "wgmma" && parts.size() > 1 && (parts[1] == "fence" || parts[1] == "commit_group" || parts[1] == "wait_group")) {
    // Ordering and group bookkeeping for wgmma.mma_async: its accumulators are its destination
    // registers, so whatever reads them already waits on the scoreboard for the MMA to finish.
    out.op_class = OpClass::kNop;
    return true;
  }
  // setmaxnreg moves registers between warpgroups of a CTA (Hopper's warp specialisation); the
  // model keeps the register file the launch allocated (docs/memory-model.md).
  if (base == "nop" || base == "nanosleep" || base == "pmevent" || base == "griddepcontrol" || base == "setmaxnreg" ||
      base == "discard" || base == "applypriority" || base == "prefetchu") {
    out.op_class = OpClass::kNop;
    out.sleep = base == "nanosleep";
    return true;
  }
  // movmatrix (SASS MOVM) transposes an 8x8 matrix of 16-bit elements across the warp's lanes:
  // timed as a shuffle, the other warp-wide register exchange (assumed; no measurement of its
  // pipe is at hand).
  if (base == "shfl" || base == "match" || base == "redux" || base == "movmatrix") {
    out.op_class = OpClass::kShuffle;
    out.pipe = Pipe::kMio;
    out.writes_destination = true;
    return true;
  }
  // elect.sync d|p, membermask picks one lane; createpolicy makes an opaque L2 cache policy.
  if (base == "vote" || base == "activemask" || base == "elect" || base == "createpolicy") {
    out.op_class = OpClass::kInt;
    out.pipe = Pipe::kAlu;
    out.writes_destination = true;
    return true;
  }
  if (decode_arith(base, parts, type, out)) return true;
  error = "unknown instruction '" + std::string(base) + "', expected a PTX mnemonic such as add, fma, ld, st, bra, bar, mma";
  return false;
}

std::string_view pipe_name(Pipe p) {
  static constexpr std::array<std::string_view, kNumPipes> kNames{
      "fma", "alu", "fp16", "fp64", "xu", "tensor", "branch", "lsu", "mio", "uniform", "none"};
  return kNames[static_cast<int>(p)];
}

std::string_view op_class_name(OpClass c) {
  static constexpr std::array<std::string_view, kNumOpClasses> kNames{
      "fp32", "fp16", "fp64", "int", "special", "convert", "move", "tensor", "branch",
      "load", "store", "atomic", "reduction", "shuffle", "barrier", "membar", "exit", "nop", "mbarrier",
      "cluster_arrive", "cluster_wait"};
  return kNames[static_cast<int>(c)];
}

std::string_view mem_space_name(MemSpace s) {
  static constexpr std::array<std::string_view, 7> kNames{"none", "global", "shared", "local", "const", "param", "shared::cluster"};
  return kNames[static_cast<int>(s)];
}

std::string_view tensor_precision_name(TensorPrecision p) {
  static constexpr std::array<std::string_view, kNumTensorPrecisions> kNames{
      "none", "fp16", "bf16", "tf32", "fp8", "fp6", "fp4", "int8", "int4", "fp64"};
  return kNames[static_cast<int>(p)];
}

TensorPrecision tensor_precision_from_name(std::string_view name) {
  for (int i = 1; i < kNumTensorPrecisions; ++i)
    if (tensor_precision_name(static_cast<TensorPrecision>(i)) == name) return static_cast<TensorPrecision>(i);
  return TensorPrecision::kNone;
}

}  // namespace warpsim
