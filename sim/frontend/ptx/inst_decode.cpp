// Decoding an instruction's mnemonic, once at lowering, into what the emulator executes: the
// operation, its types and modifiers, the state space, and the registers the timing model's
// scoreboard tracks.
#include "frontend/ptx/inst_decode.h"

#include <map>
#include <set>
#include <memory>

#include "common/error.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {
namespace {

bool accesses_memory(const EmuInst& e) {
  return e.base == "ld" || e.base == "st" || e.base == "atom" || e.base == "red";
}
// The mnemonic with its state space replaced by (or, when generic, given) `space`.
std::string with_space(const EmuInst& e, const std::string& space) {
  std::string out = e.base + "." + space;
  for (const auto& m : e.mods)
    if (!m.starts_with("shared")) out += "." + m;
  return out;
}


uint8_t index_of(const std::vector<std::string>& mods, std::initializer_list<const char*> names) {
  uint8_t i = 1;
  for (const char* n : names) {
    for (const auto& m : mods)
      if (m == n) return i;
    ++i;
  }
  return 0;
}

uint8_t qualifier_of(const EmuInst& e) {
  switch (e.code) {
    case EmuOp::kShf: return static_cast<uint8_t>((e.has("l") ? 1 : 0) | (e.has("wrap") ? 2 : 0));
    case EmuOp::kBmsk:
    case EmuOp::kSzext: return e.has("clamp") ? 1 : 0;
    case EmuOp::kBfind: return e.has("shiftamt") ? 1 : 0;
    case EmuOp::kDp2a: return e.has("hi") ? 1 : 0;
    case EmuOp::kMbarrier: return e.base == "cp" && e.has("noinc") ? 1 : 0;  // cp.async.mbarrier.arrive.noinc: one arrival
    case EmuOp::kBar: {  // kBarSync, kBarArrive, kBarPopc, kBarAnd, kBarOr
      if (e.has("arrive")) return EmuInst::kBarArrive;
      if (!e.has("red")) return EmuInst::kBarSync;
      return e.has("popc") ? EmuInst::kBarPopc : e.has("and") ? EmuInst::kBarAnd : EmuInst::kBarOr;
    }
    case EmuOp::kPrmt: return index_of(e.mods, {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"});
    case EmuOp::kIsspacep: {
      const uint8_t s = index_of(e.mods, {"global", "local", "shared", "shared::cluster", "shared::cta"});
      return s == 4 ? 3 : s == 5 ? 4 : s;
    }
    case EmuOp::kSimdVideo: {
      const std::string op = e.base.substr(0, e.base.size() - 1);
      uint8_t q = 0;
      for (const char* v : {"vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset"}) {
        if (op == v) break;
        ++q;
      }
      const uint8_t cmp = index_of(e.mods, {"eq", "ne", "lt", "le", "gt", "ge"});
      return static_cast<uint8_t>(q | (cmp ? cmp - 1 : 0) << 3 | (e.has("add") ? 64 : 0));
    }
    default: return 0;
  }
}

}  // namespace

bool is_simd_video(const std::string& base) {
  static const std::set<std::string> kVideo = {"vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2",
                                                "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4"};
  return kVideo.count(base) > 0;
}

void decode_operation(EmuInst& e) {
  static const std::map<std::string, EmuOp> kCodes = {
      {"mov", EmuOp::kMov}, {"cvta", EmuOp::kCvta}, {"add", EmuOp::kAdd}, {"sub", EmuOp::kSub}, {"mul", EmuOp::kMul},
      {"mul24", EmuOp::kMul}, {"mad", EmuOp::kMad}, {"mad24", EmuOp::kMad}, {"fma", EmuOp::kFma}, {"div", EmuOp::kDiv},
      {"rem", EmuOp::kRem}, {"min", EmuOp::kMin}, {"max", EmuOp::kMax}, {"abs", EmuOp::kAbs}, {"neg", EmuOp::kNeg},
      {"and", EmuOp::kAnd}, {"or", EmuOp::kOr}, {"xor", EmuOp::kXor}, {"not", EmuOp::kNot}, {"shl", EmuOp::kShl},
      {"shr", EmuOp::kShr}, {"setp", EmuOp::kSetp}, {"selp", EmuOp::kSelp}, {"cvt", EmuOp::kCvt}, {"ld", EmuOp::kLd},
      {"st", EmuOp::kSt}, {"movmatrix", EmuOp::kMovmatrix}, {"atom", EmuOp::kAtom}, {"red", EmuOp::kRed}, {"bar", EmuOp::kBar}, {"barrier", EmuOp::kBar},
      {"membar", EmuOp::kMembar}, {"fence", EmuOp::kMembar}, {"bra", EmuOp::kBra}, {"ret", EmuOp::kRet},
      {"exit", EmuOp::kRet}, {"shfl", EmuOp::kShfl}, {"vote", EmuOp::kVote}, {"activemask", EmuOp::kActivemask},
      {"sqrt", EmuOp::kSqrt}, {"rsqrt", EmuOp::kRsqrt}, {"rcp", EmuOp::kRcp}, {"ex2", EmuOp::kEx2}, {"lg2", EmuOp::kLg2},
      {"sin", EmuOp::kSin}, {"cos", EmuOp::kCos}, {"popc", EmuOp::kPopc}, {"clz", EmuOp::kClz}, {"brev", EmuOp::kBrev},
      {"bfe", EmuOp::kBfe}, {"bfi", EmuOp::kBfi}, {"prmt", EmuOp::kPrmt}, {"set", EmuOp::kSet}, {"redux", EmuOp::kRedux},
      {"mapa", EmuOp::kMapa}, {"getctarank", EmuOp::kGetctarank}, {"elect", EmuOp::kElect}, {"createpolicy", EmuOp::kCreatepolicy},
      {"setmaxnreg", EmuOp::kNop}, {"copysign", EmuOp::kCopysign}, {"shf", EmuOp::kShf}, {"bfind", EmuOp::kBfind},
      {"tanh", EmuOp::kTanh}, {"match", EmuOp::kMatch}, {"isspacep", EmuOp::kIsspacep}, {"trap", EmuOp::kTrap},
      // A dependent launch's wait returns once the grids before it have finished, which they
      // have here: launches run one after another.
      {"griddepcontrol", EmuOp::kNop}, {"addc", EmuOp::kAdd}, {"subc", EmuOp::kSub}, {"madc", EmuOp::kMad},
      {"dp4a", EmuOp::kDp4a}, {"dp2a", EmuOp::kDp2a}, {"sad", EmuOp::kSad}, {"fns", EmuOp::kFns},
      {"bmsk", EmuOp::kBmsk}, {"szext", EmuOp::kSzext}, {"lop3", EmuOp::kLop3}, {"prefetch", EmuOp::kNop}, {"prefetchu", EmuOp::kNop},
      {"discard", EmuOp::kNop}, {"applypriority", EmuOp::kNop}, {"alloca", EmuOp::kAlloca}, {"stacksave", EmuOp::kStackSave},
      {"stackrestore", EmuOp::kStackRestore}, {"tex", EmuOp::kTexture}, {"tld4", EmuOp::kTexture}, {"txq", EmuOp::kTexture},
      {"suld", EmuOp::kTexture}, {"sust", EmuOp::kTexture},
      {"clusterlaunchcontrol", EmuOp::kLaunchControl}};  // the last four: cache management, no effect on values
  if (e.base == "barrier" && !e.mods.empty() && e.mods[0] == "cluster") {
    e.code = e.op.op_class == OpClass::kClusterArrive ? EmuOp::kClusterArrive : EmuOp::kClusterWait;
  } else if ((e.base == "bar" || e.base == "barrier") && !e.mods.empty() && e.mods[0] == "warp") {
    e.code = EmuOp::kWarpSync;  // bar.warp.sync: orders the warp's lanes' memory accesses (race checker)
  } else if (e.base == "ldmatrix" || e.base == "stmatrix") {
    e.code = e.base == "ldmatrix" ? EmuOp::kLdmatrix : EmuOp::kStmatrix;
    e.matrices = e.has("x4") ? 4 : e.has("x2") ? 2 : 1;
    e.transpose = e.has("trans");
  } else if (e.base == "mbarrier") {
    e.code = !e.mods.empty() && e.mods[0] == "pending_count" ? EmuOp::kMbarrierPendingCount : EmuOp::kMbarrier;
  } else if (e.base == "nanosleep") {
    e.code = EmuOp::kNop;  // functionally nothing; the sleep's length travels in the record
  } else if (e.base == "cp" && e.mods.at(0) == "reduce") {
    e.code = EmuOp::kBulkCopy;  // a TMA reduction (tensor_copy.cpp)
  } else if (e.base == "cp" && e.mods.size() > 1 && e.mods[1] == "bulk") {
    // commit_group / wait_group of TMA stores: the copies are done when issued (bulk_copy);
    // prefetches to L2 do nothing functionally.
    const bool group = e.mods.size() > 2 && (e.mods[2] == "commit_group" || e.mods[2] == "wait_group" || e.mods[2] == "prefetch");
    e.code = group ? EmuOp::kNop : EmuOp::kBulkCopy;
  } else if (e.base == "cp" && e.mods.size() > 1 && e.mods[1] == "mbarrier") {
    e.code = EmuOp::kMbarrier;  // cp.async.mbarrier.arrive: OpInfo::after_async_copies
  } else if (e.base == "cp") {
    const std::string what = e.mods.size() > 1 ? e.mods[1] : "";
    e.code = what == "commit_group" ? EmuOp::kCpAsyncCommit : what == "wait_group" || what == "wait_all" ? EmuOp::kCpAsyncWait : EmuOp::kCpAsync;
    if (what == "wait_group" && !e.operands.empty()) e.wait_groups = static_cast<int32_t>(e.operands[0].bits);
  } else if (e.base == "tcgen05") {
    e.code = EmuOp::kTcgen05;
    const std::string& what = e.mods.at(0);
    e.tcgen05 = what == "alloc" ? Tcgen05Op::kAlloc : what == "dealloc" ? Tcgen05Op::kDealloc : what == "mma" ? Tcgen05Op::kMma
              : what == "commit" ? Tcgen05Op::kCommit : what == "ld" ? Tcgen05Op::kLd : what == "st" ? Tcgen05Op::kSt
              : what == "cp" ? Tcgen05Op::kCp : Tcgen05Op::kNone;
    if (e.tcgen05 == Tcgen05Op::kNone) e.code = EmuOp::kNop;  // fence, wait, relinquish_alloc_permit: ordering only
    for (const auto& m : e.mods)
      if (tmem_shape_named(m) != TmemShape::kNone) e.tmem_shape = tmem_shape_named(m);
    e.tmem_packed = e.has("pack::16b") || e.has("unpack::16b");
  } else if (e.base == "wgmma") {
    e.code = e.mods.at(0) == "mma_async" ? EmuOp::kWgmma : EmuOp::kNop;  // fence/commit_group/wait_group: see wgmma.cpp
    for (size_t i = 0; i + 3 < e.mods.size(); ++i) {
      if (e.mods[i].rfind("m64n", 0) != 0) continue;
      const std::string& shape = e.mods[i];
      const size_t kpos = shape.find('k');
      e.wgmma_n = static_cast<uint32_t>(std::stoul(shape.substr(4, kpos - 4)));
      e.mma_k = static_cast<uint32_t>(std::stoul(shape.substr(kpos + 1)));
      e.mma_a = e.mods[i + 2];
      e.mma_b = e.mods[i + 3];
      e.wgmma_d = e.mods[i + 1] == "f16" ? MmaElem::kF16 : e.mods[i + 1] == "s32" ? MmaElem::kS32 : MmaElem::kF32;
    }
  } else if (e.base == "mma") {
    e.code = EmuOp::kMma;
    // supported_forms.cpp refuses the forms the emulator does not run, after this decoding.
    MmaSyncForm form;
    if (decode_mma_sync(e.opcode, e.mods, form).empty()) e.mma_sync = std::make_shared<const MmaLayout>(mma_layout(form));
  } else if (is_simd_video(e.base)) {
    e.code = EmuOp::kSimdVideo;
  } else if (e.base == "call") {
    // vprintf, __assertfail, malloc, free or a bad indirect call (the inliner leaves no other calls): the lowering set the code
  } else if (e.base == "wmma") {
    const std::string& what = e.mods.at(0);
    e.code = what == "load" ? EmuOp::kWmmaLoad : what == "store" ? EmuOp::kWmmaStore : EmuOp::kWmmaMma;
  } else {
    e.code = kCodes.at(e.base);
  }
  if (!e.types.empty()) e.type = value_type(e.types.back());
  e.carry_in = e.base == "addc" || e.base == "subc" || e.base == "madc";
  e.carry_out = e.has("cc");
  e.saturate = e.has("sat");
  e.ftz = e.has("ftz");
  e.satfinite = e.has("satfinite");
  for (const auto& m : e.mods) {
    if (m == "rn" || m == "rni") e.rounding = Rounding::kNearestEven;
    if (m == "rna") e.rounding = Rounding::kNearestAway;
    if (m == "rz" || m == "rzi") e.rounding = Rounding::kZero;
    if (m == "rm" || m == "rmi") e.rounding = Rounding::kDown;
    if (m == "rp" || m == "rpi") e.rounding = Rounding::kUp;
    if (m == "rs") e.rounding = Rounding::kStochastic;
    if (m == "rni" || m == "rzi" || m == "rmi" || m == "rpi") e.integer_rounding = true;
  }
  if (e.code == EmuOp::kCvt && e.types.size() == 2 && (e.types[0].find('x') != std::string::npos || e.types[1].find('x') != std::string::npos)) {
    // "e4m3x2" -> e4m3 in 8 bits; FP4 packs two to a byte, f16/bf16 two to 32 bits; UE8M0 (a
    // bare exponent) has no FloatFormat: conversions.cpp treats it on its own.
    auto element = [](const std::string& t, const FloatFormat*& format, uint8_t& bits) {
      const std::string name = t == "f32" ? t : t.substr(0, t.size() - 2);
      format = find_float_format(name);
      bits = name == "f32" ? 32 : name == "e2m1" ? 4 : (name == "f16" || name == "bf16") ? 16 : 8;
    };
    e.cvt_packed = true;
    element(e.types[0], e.cvt_to_format, e.cvt_to_bits);
    element(e.types[1], e.cvt_from_format, e.cvt_from_bits);
  }
  if (e.code == EmuOp::kCvt && e.has("pack")) {  // cvt.pack.sat.{u16,s16,u8,s8,u4,s4,u2,s2}.s32[.b32]
    for (const char* t : {"u16", "s16", "u8", "s8", "u4", "s4", "u2", "s2"})
      if (e.has(t)) e.cvt_pack_bits = static_cast<uint8_t>(std::stoi(t + 1)), e.cvt_pack_signed = t[0] == 's';
  }
  e.qualifier = qualifier_of(e);
  e.strong = (e.code == EmuOp::kLd || e.code == EmuOp::kSt) && (e.has("volatile") || e.has("relaxed") || e.has("acquire") || e.has("release"));
  e.relu = e.has("relu");
  e.nan_min_max = e.has("NaN");
  e.xorsign_abs = e.has("xorsign");
  if ((e.code == EmuOp::kDp4a || e.code == EmuOp::kDp2a) && e.types.size() == 2) e.source_type = value_type(e.types[0]);  // a's type
  if (e.code == EmuOp::kCvt && e.has("tf32")) e.tf32 = true;  // cvt.rna.tf32.f32 (checked when lowered)
  if ((e.code == EmuOp::kCvt || e.code == EmuOp::kSet) && e.types.size() >= 2) {
    e.type = value_type(e.types[0]);
    e.source_type = value_type(e.types[1]);
  }
  if ((e.code == EmuOp::kSetp || e.code == EmuOp::kSet) && !e.mods.empty()) e.cmp = cmp_op(e.mods[0]);
  for (const auto& m : e.mods) {
    if (m == "and" || m == "or" || m == "xor") e.boolop = m;
    if (m == "add" || m == "min" || m == "max" || m == "exch" || m == "cas" || m == "and" || m == "or" || m == "xor" ||
        m == "inc" || m == "dec")
      e.atom_op = m;
    if (m == "up" || m == "down" || m == "bfly" || m == "idx") e.shfl_mode = m;
    if (m == "v2") e.vector = 2;
    if (m == "v4") e.vector = 4;
    if (m == "v8") e.vector = 8;
    if (m == "global") e.space = MemSpace::kGlobal;
    if (m == "shared" || m == "shared::cta") e.space = MemSpace::kShared;
    if (m == "shared::cluster") e.space = accesses_memory(e) ? MemSpace::kSharedCluster : MemSpace::kShared;
    if (m == "local") e.space = MemSpace::kLocal;
    if (m == "param") e.space = MemSpace::kParam;
    if (m == "const") e.space = MemSpace::kConst;
    if (m == "wide") e.wide = true;
    if (m == "hi") e.hi = true;
  }
  // ld/st .b128 moves a 128-bit register's two 64-bit halves (program.cpp keeps it as a pair).
  if ((e.code == EmuOp::kLd || e.code == EmuOp::kSt) && e.type.bits == 128) e.type.bits = 64, e.vector = 2;
  if (accesses_memory(e)) {
    bool spaced = false;
    for (const auto& m : e.mods) spaced = spaced || m == "global" || m.starts_with("shared") || m == "local" || m == "param" || m == "const";
    const EmuOperand* addr = nullptr;
    for (const auto& o : e.operands)
      if (o.kind == EmuOperand::Kind::kAddr) addr = &o;
    e.generic = !spaced && addr && addr->symbol_space == MemSpace::kNone;
    if (e.generic || e.space == MemSpace::kSharedCluster) {
      std::string error;
      auto ops = std::make_shared<std::array<OpInfo, 3>>();
      if (!decode_mnemonic(with_space(e, "shared"), (*ops)[0], error) || !decode_mnemonic(with_space(e, "shared::cluster"), (*ops)[1], error) ||
          (e.generic && (e.base == "ld" || e.base == "st") && !decode_mnemonic(with_space(e, "local"), (*ops)[2], error)))
        throw InputError(SourceLocation{}, "internal: " + error);
      e.space_ops = std::move(ops);
    }
  }
  if (e.shfl_mode.empty()) e.shfl_mode = "idx";
  if (e.base == "wmma" && e.code != EmuOp::kWmmaMma) {
    e.matrix = e.mods.at(1)[0];
    e.column_major = e.has("col");
  }
  // Scoreboard registers: the first operand is written by instructions that write one (unless
  // it is an address); everything else, and the guard, is read.
  for (size_t i = 0; i < e.operands.size(); ++i) {
    const EmuOperand& o = e.operands[i];
    std::vector<int32_t> rs;
    if (o.kind == EmuOperand::Kind::kReg || (o.kind == EmuOperand::Kind::kAddr && o.reg >= 0)) rs.push_back(o.reg);
    if (o.kind == EmuOperand::Kind::kVector) rs = o.regs;
    if (o.kind == EmuOperand::Kind::kAddr) rs.insert(rs.end(), o.regs.begin(), o.regs.end());  // coordinates
    bool is_dst = i == 0 && e.op.writes_destination && o.kind != EmuOperand::Kind::kAddr;
    for (int32_t r : rs)
      if (r >= 0) (is_dst ? e.dsts : e.srcs).push_back(static_cast<RegId>(r));
  }
  if (e.guard >= 0) e.srcs.push_back(static_cast<RegId>(e.guard));
  e.timing_regs = e.dsts;
  e.timing_regs.insert(e.timing_regs.end(), e.srcs.begin(), e.srcs.end());
}

}  // namespace warpsim::ptx
