#include "frontend/ptx/program.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <set>
#include <stdexcept>

#include "common/error.h"
#include "frontend/ptx/function_addresses.h"
#include "frontend/ptx/inliner.h"
#include "frontend/ptx/inst_decode.h"
#include "frontend/ptx/register_packing.h"
#include "frontend/ptx/supported_forms.h"
#include "frontend/ptx/wmma_fragment.h"

namespace warpsim::ptx {

bool EmuInst::has(const char* m) const {
  for (const auto& x : mods)
    if (x == m) return true;
  return false;
}

namespace {

const std::set<std::string> kTypeNames = {"b8",  "b16",  "b32",   "b64",    "u8",  "u16", "u32", "u64", "s8",
                                          "s16", "s32",  "s64",   "f16",    "f16x2", "bf16", "f32", "f64", "pred",
                                          "bf16x2", "s16x2", "u16x2", "b128", "e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2", "ue8m0x2"};

// The PTX instructions the emulator runs (supported_forms.cpp refuses the forms it does not).
const std::set<std::string> kSupportedOpcodes = {"mov",  "add",  "sub",  "mul",   "mad",  "fma",  "div",  "rem",  "min",  "max",
                                          "abs",  "neg",  "and",  "or",    "xor",  "not",  "shl",  "shr",  "setp", "selp",
                                          "cvt",  "cvta", "ld",   "st",    "atom", "red",  "bar",  "barrier", "membar",
                                          "fence", "bra", "ret",  "exit",  "shfl", "vote", "activemask", "sqrt", "rsqrt",
                                          "rcp",  "ex2",  "lg2",  "sin",   "cos",  "popc", "clz",  "brev", "mul24", "mad24", "wmma", "mma", "bfe", "bfi", "ldmatrix", "cp", "prmt", "set", "redux", "mbarrier", "nanosleep",
                                          "mapa", "getctarank", "wgmma", "tcgen05", "elect", "createpolicy", "setmaxnreg", "stmatrix",
                                          "copysign", "shf", "bfind", "tanh", "match", "isspacep", "trap", "griddepcontrol", "call",
                                          "addc", "subc", "madc", "dp4a", "dp2a", "sad",
                                          "fns", "bmsk", "szext", "lop3", "prefetch", "prefetchu", "discard", "applypriority",
                                          "alloca", "stacksave", "stackrestore", "movmatrix",
                                          "tex", "tld4", "txq", "suld", "sust", "clusterlaunchcontrol"};

uint32_t type_bits(const std::string& t) {
  if (t == ".pred") return 1;
  std::string digits;
  for (char c : t)
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  return digits.empty() ? 32 : static_cast<uint32_t>(std::stoul(digits));
}

class Lowering {
 public:
  Lowering(const Module& m, const Function& f, const std::map<std::string, uint64_t>& globals) : m_(m), f_(f), global_(globals) {}

  Program run() {
    p_.name = f_.name;
    for (const auto& r : f_.registers) {
      if (r.count == 0) {
        add_register(r.name, r.type);
      } else {
        for (uint32_t i = 0; i < r.count; ++i) add_register(r.name + std::to_string(i), r.type);
      }
    }
    uint64_t offset = 0;
    for (const auto& v : f_.params) {
      uint64_t align = std::max<uint64_t>(v.align ? v.align : 1, std::min<uint64_t>(8, v.size_bytes()));
      offset = (offset + align - 1) / align * align;
      p_.params[v.name] = offset;
      offset += v.size_bytes();
      p_.param_vars.push_back(v);
    }
    p_.param_bytes = offset;
    layout_shared();
    for (const auto& in : f_.body) {
      try {
        p_.insts.push_back(lower(in));
      } catch (const std::logic_error&) {  // .at() or stoul on a form the checks above let through
        fail(in.line, in.column, "malformed '" + in.opcode + "': a modifier or operand it needs is missing or not a number");
      }
    }
    reconvergence();
    for (EmuInst& in : p_.insts) in.register_only = keeps_to_registers(in), in.grid_register_only = keeps_to_grid(in);
    p_.async_copy_reg_base = static_cast<RegId>(p_.register_names.size());
    pack_registers(p_);
    return std::move(p_);
  }

 private:
  [[noreturn]] void fail(uint32_t line, uint32_t column, const std::string& message) const {
    throw InputError(SourceLocation{m_.file, line, column}, message);
  }

  // A .b128 register is two 64-bit registers side by side, low half first: the emulator's
  // registers hold 64 bits, and every instruction that takes one (mov, ld, st, atom) moves it as
  // a pair (reg_operand).
  void add_register(const std::string& name, const std::string& type) {
    const auto id = static_cast<int32_t>(p_.register_names.size());
    regs_[name] = id;
    p_.register_names.push_back(name);
    if (type == ".b128") {
      wide_.insert(id);
      p_.register_bits.push_back(64);
      p_.register_names.push_back(name + ".hi");  // '.' cannot appear in a PTX register name
      p_.register_bits.push_back(64);
      return;
    }
    p_.register_bits.push_back(type_bits(type));
  }

  EmuOperand reg_operand(int32_t id, bool negated) const {
    EmuOperand e;
    if (wide_.count(id)) {
      e.kind = EmuOperand::Kind::kVector;
      e.regs = {id, id + 1};
      e.immediates = {0, 0};
      e.wide = true;
      return e;
    }
    e.kind = EmuOperand::Kind::kReg;
    e.reg = id;
    e.negated = negated;
    return e;
  }

  void layout_shared() {
    uint64_t offset = 0;
    std::vector<const Variable*> externs;
    auto place = [&](const Variable& v) {
      if (v.space.rfind(".shared", 0) != 0) return;
      if (v.is_extern || (!v.dims.empty() && v.dims[0] == 0)) {
        externs.push_back(&v);
        return;
      }
      uint64_t align = std::max<uint64_t>(v.align ? v.align : 1, 4);
      offset = (offset + align - 1) / align * align;
      shared_[v.name] = offset;
      offset += v.size_bytes();
    };
    for (const auto& v : m_.globals) place(v);
    for (const auto& v : f_.locals) place(v);
    // Call-site .param variables (and .local arrays) live in each thread's local memory.
    uint64_t local = 0;
    for (const auto& v : f_.locals) {
      if (v.space != ".param" && v.space != ".local") continue;
      uint64_t align = std::max<uint64_t>(v.align ? v.align : 1, 8);
      local = (local + align - 1) / align * align;
      local_[v.name] = local;
      local += std::max<uint64_t>(v.size_bytes(), 1);
    }
    p_.static_local_bytes = local;
    offset = (offset + 15) / 16 * 16;
    p_.static_shared_bytes = offset;
    p_.dynamic_shared_offset = offset;
    for (const Variable* v : externs) shared_[v->name] = offset;  // all extern shared arrays alias
    for (const auto& v : m_.globals) {
      if (v.space == ".global" && !global_.count(v.name)) fail(v.line, 1, "module variable '" + v.name + "' was not placed in device memory");
      if (v.space == ".const") layout_constant(v);
    }
  }

  // __constant__ variables: laid out in one constant bank per module, filled from their PTX
  // initializers (nvcc emits byte lists for arrays, typed values for scalars); uninitialised
  // bytes are zero, as the CUDA runtime leaves them.
  void layout_constant(const Variable& v) {
    uint64_t align = std::max<uint64_t>(v.align ? v.align : 1, 4);
    uint64_t offset = (p_.constant_bank.size() + align - 1) / align * align;
    const_[v.name] = offset;
    p_.constant_symbols[v.name] = {offset, v.size_bytes()};
    std::vector<uint8_t> image = variable_image(v, m_, global_);
    p_.constant_bank.resize(offset, 0);
    p_.constant_bank.insert(p_.constant_bank.end(), image.begin(), image.end());
  }

  EmuOperand operand(const Operand& o, uint32_t line) {
    EmuOperand e;
    switch (o.kind) {
      case Operand::Kind::kRegister: {
        uint8_t dim;
        Special s = special_register(o.name, dim);
        if (s != Special::kNone) {
          if (s == Special::kEnvreg) p_.reads_envreg = true;
          e.kind = EmuOperand::Kind::kSpecial;
          e.special = s;
          e.dim = dim;
          return e;
        }
        auto it = regs_.find(o.name);
        if (it == regs_.end()) fail(o.line, o.column, "register " + o.name + " is not declared (expected a .reg declaration)");
        return reg_operand(it->second, o.negated);
      }
      case Operand::Kind::kImmediate:
        e.kind = EmuOperand::Kind::kImm;
        e.bits = o.is_float ? o.bits : static_cast<uint64_t>(o.value);
        e.is_float = o.is_float;
        e.is_double = o.is_double;
        return e;
      case Operand::Kind::kSymbol: {
        if (auto it = regs_.find(o.name); it != regs_.end()) return reg_operand(it->second, o.negated);  // inline asm's __$1
        if (f_.labels.count(o.name)) {
          e.kind = EmuOperand::Kind::kLabel;
          e.target = static_cast<uint32_t>(f_.labels.at(o.name));
          return e;
        }
        if (shared_.count(o.name)) {  // mov.u32 %r, partial: the variable's shared address
          e.kind = EmuOperand::Kind::kImm;
          e.bits = shared_.at(o.name) + static_cast<uint64_t>(o.value);
          return e;
        }
        if (const_.count(o.name)) {  // mov.u64 %rd, table: the variable's constant-bank address
          e.kind = EmuOperand::Kind::kImm;
          e.bits = const_.at(o.name) + static_cast<uint64_t>(o.value);
          return e;
        }
        if (global_.count(o.name)) {  // mov.u64 %rd, counter: a __device__ variable's global address
          e.kind = EmuOperand::Kind::kImm;
          e.bits = global_.at(o.name) + static_cast<uint64_t>(o.value);
          return e;
        }
        if (p_.params.count(o.name)) {
          e.kind = EmuOperand::Kind::kImm;
          e.bits = p_.params.at(o.name);
          return e;
        }
        if (local_.count(o.name)) {
          e.kind = EmuOperand::Kind::kImm;
          e.bits = local_.at(o.name);
          return e;
        }
        if (auto address = function_address(m_, o.name)) {  // mov.u64 %rd, f: a function pointer
          e.kind = EmuOperand::Kind::kImm;
          e.bits = *address + static_cast<uint64_t>(o.value);
          return e;
        }
        fail(o.line, o.column, "unknown name '" + o.name + "' (not a label, shared variable or parameter of " + f_.name + ")");
      }
      case Operand::Kind::kAddress: {
        if (!o.items.empty()) {  // [tensorMap, {c0, ...}]: the coordinates as a vector's registers
          EmuOperand v = operand(o.items[0], line);
          e.regs = std::move(v.regs);
          e.immediates = std::move(v.immediates);
        }
        e.kind = EmuOperand::Kind::kAddr;
        e.bits = static_cast<uint64_t>(o.value);
        if (o.name.empty()) return e;
        if (o.name[0] == '%') {
          auto it = regs_.find(o.name);
          if (it == regs_.end()) fail(o.line, o.column, "register " + o.name + " is not declared");
          if (wide_.count(it->second)) fail(o.line, o.column, "a 128-bit register cannot be an address");
          e.reg = it->second;
          e.address32 = p_.register_bits[static_cast<size_t>(it->second)] <= 32;
        } else if (shared_.count(o.name)) {
          e.bits += shared_.at(o.name);
          e.symbol_space = MemSpace::kShared;
        } else if (const_.count(o.name)) {
          e.bits += const_.at(o.name);
          e.symbol_space = MemSpace::kConst;
        } else if (global_.count(o.name)) {
          e.bits += global_.at(o.name);
          e.symbol_space = MemSpace::kGlobal;
        } else if (p_.params.count(o.name)) {
          e.bits += p_.params.at(o.name);
          e.symbol_space = MemSpace::kParam;
        } else if (local_.count(o.name)) {
          e.bits += local_.at(o.name);
          e.symbol_space = MemSpace::kLocal;
        } else {
          fail(o.line, o.column, "unknown address '" + o.name + "'");
        }
        return e;
      }
      case Operand::Kind::kVector:
      case Operand::Kind::kPair:
        e.kind = EmuOperand::Kind::kVector;
        e.immediates.assign(o.items.size(), 0);
        for (const auto& item : o.items) {
          if (item.kind == Operand::Kind::kSink) {
            e.regs.push_back(-1);
            continue;
          }
          if (item.kind == Operand::Kind::kImmediate) {  // mov.b32 %f, {0, %rs}
            e.immediates[e.regs.size()] = item.is_float ? item.bits : static_cast<uint64_t>(item.value);
            e.regs.push_back(-2);
            continue;
          }
          EmuOperand r = operand(item, line);
          if (r.kind != EmuOperand::Kind::kReg) fail(item.line, item.column, "expected a register of at most 64 bits in the vector");
          e.regs.push_back(r.reg);
        }
        return e;
      case Operand::Kind::kSink:
        e.kind = EmuOperand::Kind::kSink;
        return e;
      case Operand::Kind::kList:
        fail(o.line, o.column, "call argument lists are not supported by the emulator yet");
    }
    return e;
  }

  EmuInst lower(const Instruction& in) {
    EmuInst e;
    set_mnemonic(e, in.opcode);
    e.untimed = in.untimed;
    e.line = in.line;
    e.source_line = in.source_line;
    e.source_file = in.source_file;
    if (!kSupportedOpcodes.count(e.base) && !is_simd_video(e.base)) {
      fail(in.line, in.column, "the emulator cannot run '" + in.opcode + "' yet (the timing model can replay it from a trace)");
    }
    std::string error;
    // tcgen05.mma's shape and types are in its instruction descriptor: each record gets its own
    // OpInfo at run time (tensor_memory.cpp); this one only stands in until then.
    const bool tcgen05_mma = in.opcode.rfind("tcgen05.mma.", 0) == 0;
    // wgmma with A in registers reads only B from shared memory: its timing record says so.
    const bool wgmma_a_in_registers = in.opcode.rfind("wgmma.mma_async.", 0) == 0 && in.operands.size() > 1 &&
                                      in.operands[1].kind == Operand::Kind::kVector;
    const std::string mnemonic = tcgen05_mma            ? tcgen05_mma_stand_in(in.opcode)
                                 : wgmma_a_in_registers ? wgmma_with_a_in_registers(in.opcode)
                                                        : in.opcode;
    if (!decode_mnemonic(mnemonic, e.op, error)) fail(in.line, in.column, error);
    if (in.guard) {
      auto it = regs_.find(*in.guard);
      if (it == regs_.end()) fail(in.line, in.column, "predicate " + *in.guard + " is not declared");
      e.guard = it->second;
      e.guard_negated = in.guard_negated;
    }
    for (const auto& o : in.operands) {
      if (e.base == "call" && o.kind == Operand::Kind::kSymbol) {  // the runtime function the inliner left (inliner.h)
        e.code = o.name == "vprintf"         ? EmuOp::kPrintf
                 : o.name == "malloc"         ? EmuOp::kMalloc
                 : o.name == "free"           ? EmuOp::kFree
                 : o.name == kBadIndirectCall ? EmuOp::kBadIndirectCall
                                              : EmuOp::kAssertFail;
        e.operands.emplace_back();
        continue;
      }
      e.operands.push_back(operand(o, in.line));
    }
    const bool moves_b128 = !e.types.empty() && e.types.back() == "b128" && (e.base == "mov" || e.base == "ld" || e.base == "st" || e.base == "atom" || e.base == "clusterlaunchcontrol");
    for (size_t i = 0; i < e.operands.size(); ++i) {
      if (e.operands[i].wide && !moves_b128)
        fail(in.operands[i].line, in.operands[i].column,
             "the emulator moves 128-bit registers with mov.b128, ld/st .b128 and atom .cas/.exch .b128 (and reads them in clusterlaunchcontrol.query_cancel) only; not '" + in.opcode + "'");
    }
    if (const std::string why = unsupported_form(in, e); !why.empty()) fail(in.line, in.column, why);
    if (e.base == "tcgen05") check_one_cta_group(in, e);
    if (e.base == "wmma") {
      // Fragments are kept in the emulator's own layout (wmma_fragment.h).
      const bool mma = e.mods.at(0) == "mma";
      const char matrix = mma ? 0 : e.mods.at(1).at(0);
      std::string wrong = decode_wmma(in.opcode, e.mods, matrix, e.wmma);
      auto registers = [&](size_t i) {
        const EmuOperand& o = e.operands.at(i);
        return static_cast<uint32_t>(o.kind == EmuOperand::Kind::kVector ? o.regs.size() : o.kind == EmuOperand::Kind::kReg ? 1 : 0);
      };
      if (wrong.empty() && matrix) wrong = check_fragment_registers(e.wmma, matrix, registers(e.mods.at(0) == "load" ? 0 : 1));
      for (size_t i = 0; i < 4 && wrong.empty() && mma; ++i) wrong = check_fragment_registers(e.wmma, "dabc"[i], registers(i));
      if (!wrong.empty()) fail(in.line, in.column, wrong);
    }
    decode_operation(e);
    if ((e.code == EmuOp::kSt || e.code == EmuOp::kAtom || e.code == EmuOp::kRed) && e.space == MemSpace::kConst) {
      fail(in.line, in.column, "'" + in.opcode + "' writes to the constant state space, which kernels can only read");
    }
    return e;
  }

  // Immediate post-dominators of branches, computed on basic blocks.
  void reconvergence() {
    const size_t n = p_.insts.size();
    std::vector<bool> leader(n + 1, false);
    leader[0] = true;
    auto ends_block = [&](const EmuInst& i) { return i.base == "bra" || i.base == "ret" || i.base == "exit"; };
    for (size_t i = 0; i < n; ++i) {
      const EmuInst& in = p_.insts[i];
      if (in.base == "bra" && !in.operands.empty() && in.operands[0].kind == EmuOperand::Kind::kLabel) leader[in.operands[0].target] = true;
      if (ends_block(in)) leader[i + 1] = true;
    }
    std::vector<size_t> starts;
    std::vector<size_t> block_of(n + 1, 0);
    for (size_t i = 0; i < n; ++i) {
      if (leader[i]) starts.push_back(i);
      block_of[i] = starts.size() - 1;
    }
    const size_t blocks = starts.size(), exit = blocks;
    block_of[n] = exit;
    std::vector<std::vector<size_t>> succ(blocks);
    for (size_t b = 0; b < blocks; ++b) {
      size_t last = (b + 1 < blocks ? starts[b + 1] : n) - 1;
      const EmuInst& in = p_.insts[last];
      bool conditional = in.guard >= 0;
      if (in.base == "bra" && !in.operands.empty()) {
        succ[b].push_back(block_of[in.operands[0].target]);
        if (conditional) succ[b].push_back(block_of[last + 1]);
      } else if (in.base == "ret" || in.base == "exit") {
        succ[b].push_back(exit);
        if (conditional) succ[b].push_back(block_of[last + 1]);
      } else {
        succ[b].push_back(block_of[last + 1]);
      }
    }
    // pdom sets as bit vectors over blocks + exit; iterate to a fixed point.
    const size_t words = (blocks + 1 + 63) / 64;
    std::vector<std::vector<uint64_t>> pdom(blocks + 1, std::vector<uint64_t>(words, ~0ull));
    pdom[exit].assign(words, 0);
    pdom[exit][exit / 64] |= 1ull << (exit % 64);
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t bb = blocks; bb-- > 0;) {
        std::vector<uint64_t> next(words, ~0ull);
        for (size_t s : succ[bb])
          for (size_t w = 0; w < words; ++w) next[w] &= pdom[s][w];
        next[bb / 64] |= 1ull << (bb % 64);
        if (next != pdom[bb]) {
          pdom[bb] = std::move(next);
          changed = true;
        }
      }
    }
    auto count = [&](size_t b) {
      size_t c = 0;
      for (uint64_t w : pdom[b]) c += static_cast<size_t>(__builtin_popcountll(w));
      return c;
    };
    for (size_t b = 0; b < blocks; ++b) {
      // The immediate post-dominator is the strict post-dominator with the most post-dominators.
      size_t best = exit, best_count = 0;
      for (size_t d = 0; d <= blocks; ++d) {
        if (d == b || !(pdom[b][d / 64] >> (d % 64) & 1)) continue;
        size_t c = count(d);
        if (c > best_count) best = d, best_count = c;
      }
      size_t last = (b + 1 < blocks ? starts[b + 1] : n) - 1;
      p_.insts[last].reconverge = best == exit ? static_cast<uint32_t>(n) : static_cast<uint32_t>(starts[best]);
    }
  }

  // PTX ISA (tcgen05.alloc): "All tcgen05 instructions within a kernel must specify the same
  // value for the .cta_group qualifier."
  void check_one_cta_group(const Instruction& in, const EmuInst& e) {
    for (const std::string& m : e.mods) {
      if (!m.starts_with("cta_group::")) continue;
      if (cta_group_.empty()) cta_group_ = m, cta_group_line_ = in.line;
      if (m != cta_group_) {
        fail(in.line, in.column, "'" + in.opcode + "' names ." + m + " where line " + std::to_string(cta_group_line_) + " names ." + cta_group_ +
                                     "; all tcgen05 instructions of a kernel must name the same .cta_group (PTX ISA, tcgen05.alloc)");
      }
    }
  }

  const Module& m_;
  const Function& f_;
  Program p_;
  std::string cta_group_;  // the first tcgen05 .cta_group seen, and its line
  uint32_t cta_group_line_ = 0;
  std::map<std::string, int32_t> regs_;
  std::set<int32_t> wide_;  // .b128 registers (their low halves)
  std::map<std::string, uint64_t> shared_;
  std::map<std::string, uint64_t> const_;
  std::map<std::string, uint64_t> local_;
  const std::map<std::string, uint64_t>& global_;
};

}  // namespace

void set_mnemonic(EmuInst& e, const std::string& opcode) {
  e.opcode = opcode;
  e.base.clear(), e.mods.clear(), e.types.clear();
  size_t start = 0;
  bool first = true;
  while (start <= opcode.size()) {
    size_t dot = opcode.find('.', start);
    std::string part = opcode.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (first) {
      e.base = part;
      first = false;
    } else {
      e.mods.push_back(part);
      if (kTypeNames.count(part)) e.types.push_back(part);
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
}

// __constant__ and __device__ initializers: nvcc emits byte lists for arrays and typed values for
// scalars; bytes without an initializer are zero, as the CUDA runtime leaves them.
std::vector<uint8_t> variable_image(const Variable& v, const Module& module, const std::map<std::string, uint64_t>& global_addresses) {
  const std::string& file = module.file;
  std::vector<uint8_t> bytes(v.size_bytes(), 0);
  const uint32_t elem = std::max<uint32_t>(1, type_bits(v.type) / 8) * v.vector;
  if (v.initializer.size() * elem > v.size_bytes())
    throw InputError(SourceLocation{file, v.line, 1}, "'" + v.name + "' has more initializers than elements");
  for (size_t k = 0; k < v.initializer.size(); ++k) {
    const Operand& init = v.initializer[k];
    uint64_t bits = init.is_float ? init.bits : static_cast<uint64_t>(init.value);
    if (init.kind == Operand::Kind::kSymbol) {
      const auto global = global_addresses.find(init.name);
      const std::optional<uint64_t> address = global != global_addresses.end() ? global->second : function_address(module, init.name);
      if (!address) {
        throw InputError(SourceLocation{file, init.line, init.column},
                         "'" + init.name + "' in the initializer of '" + v.name + "' is neither a function nor a __device__ variable of this module");
      }
      bits = *address + static_cast<uint64_t>(init.value);
    } else if (init.kind != Operand::Kind::kImmediate) {
      throw InputError(SourceLocation{file, init.line, init.column}, "a variable initializer must be a number or a name");
    }
    if (init.is_float && !init.is_double && elem == 8) bits = std::bit_cast<uint64_t>(double(std::bit_cast<float>(static_cast<uint32_t>(bits))));
    std::memcpy(bytes.data() + k * elem, &bits, std::min<uint32_t>(elem, 8));
  }
  return bytes;
}

Program lower(const Module& module, const std::string& entry, const std::map<std::string, uint64_t>& global_addresses) {
  const Function* f = module.find(entry);
  if (!f || !f->is_entry) {
    std::string names;
    for (const auto& fn : module.functions)
      if (fn.is_entry) names += (names.empty() ? "" : ", ") + fn.name;
    throw InputError(SourceLocation{module.file, 0, 0}, "no kernel '" + entry + "'; the module's kernels are: " + names);
  }
  Function flat = inline_calls(module, *f);
  Program p = Lowering(module, flat, global_addresses).run();
  p.source_files = module.files;
  return p;
}

}  // namespace warpsim::ptx
