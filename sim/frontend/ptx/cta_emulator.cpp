#include "frontend/ptx/cta_emulator.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "common/error.h"

namespace warpsim::ptx {
namespace {

// Value helpers: registers hold raw bits; the instruction's type says how to read them.
struct Type {
  char kind = 'b';  // 'f' float, 's' signed, 'u' unsigned, 'b' bits, 'p' predicate
  uint32_t bits = 32;
};

Type parse_type(const std::string& t) {
  Type r;
  if (t == "pred") return Type{'p', 1};
  r.kind = t[0];
  r.bits = static_cast<uint32_t>(std::stoul(t.substr(1, t.find('x') == std::string::npos ? std::string::npos : t.find('x') - 1)));
  return r;
}

uint64_t mask_bits(uint64_t v, uint32_t bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }
int64_t as_signed(uint64_t v, uint32_t bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t m = 1ull << (bits - 1);
  v = mask_bits(v, bits);
  return static_cast<int64_t>((v ^ m) - m);
}
double as_float(uint64_t v, uint32_t bits) {
  if (bits == 64) return std::bit_cast<double>(v);
  return std::bit_cast<float>(static_cast<uint32_t>(v));
}
uint64_t from_float(double d, uint32_t bits) {
  if (bits == 64) return std::bit_cast<uint64_t>(d);
  return std::bit_cast<uint32_t>(static_cast<float>(d));
}

bool compare(const std::string& cmp, Type t, uint64_t a, uint64_t b) {
  if (t.kind == 'f') {
    double x = as_float(a, t.bits), y = as_float(b, t.bits);
    bool nan = std::isnan(x) || std::isnan(y);
    if (cmp == "eq") return !nan && x == y;
    if (cmp == "ne") return !nan && x != y;
    if (cmp == "lt") return !nan && x < y;
    if (cmp == "le") return !nan && x <= y;
    if (cmp == "gt") return !nan && x > y;
    if (cmp == "ge") return !nan && x >= y;
    if (cmp == "equ") return nan || x == y;
    if (cmp == "neu") return nan || x != y;
    if (cmp == "ltu") return nan || x < y;
    if (cmp == "leu") return nan || x <= y;
    if (cmp == "gtu") return nan || x > y;
    if (cmp == "geu") return nan || x >= y;
    if (cmp == "num") return !nan;
    if (cmp == "nan") return nan;
    return false;
  }
  bool is_signed = t.kind == 's';
  int64_t sx = as_signed(a, t.bits), sy = as_signed(b, t.bits);
  uint64_t ux = mask_bits(a, t.bits), uy = mask_bits(b, t.bits);
  if (cmp == "eq") return ux == uy;
  if (cmp == "ne") return ux != uy;
  if (cmp == "lt") return is_signed ? sx < sy : ux < uy;
  if (cmp == "le") return is_signed ? sx <= sy : ux <= uy;
  if (cmp == "gt") return is_signed ? sx > sy : ux > uy;
  if (cmp == "ge") return is_signed ? sx >= sy : ux >= uy;
  if (cmp == "lo") return ux < uy;
  if (cmp == "ls") return ux <= uy;
  if (cmp == "hi") return ux > uy;
  if (cmp == "hs") return ux >= uy;
  return false;
}

MemSpace space_of(const EmuInst& in) {
  for (const auto& m : in.mods) {
    if (m == "global") return MemSpace::kGlobal;
    if (m == "shared" || m.rfind("shared::", 0) == 0) return MemSpace::kShared;
    if (m == "local") return MemSpace::kLocal;
    if (m == "param") return MemSpace::kParam;
    if (m == "const") return MemSpace::kConst;
  }
  return MemSpace::kGlobal;  // generic: the emulator maps generic addresses to global memory
}

uint32_t vector_width(const EmuInst& in) {
  for (const auto& m : in.mods) {
    if (m == "v2") return 2;
    if (m == "v4") return 4;
    if (m == "v8") return 8;
  }
  return 1;
}

}  // namespace

CtaEmulator::CtaEmulator(const LaunchContext& launch, Dim3 cta_id) : launch_(launch), id_(cta_id) {
  const uint64_t threads = launch.block.count();
  const uint32_t nwarps = static_cast<uint32_t>((threads + 31) / 32);
  const size_t nregs = launch.program->register_names.size();
  warps_.resize(nwarps);
  for (uint32_t w = 0; w < nwarps; ++w) {
    WarpState& ws = warps_[w];
    ws.index = w;
    ws.regs.assign(nregs * 32, 0);
    uint64_t lanes = std::min<uint64_t>(32, threads - uint64_t{w} * 32);
    uint32_t mask = lanes >= 32 ? 0xffffffffu : static_cast<uint32_t>((1ull << lanes) - 1);
    ws.stack.push_back(StackEntry{0, static_cast<uint32_t>(launch.program->insts.size()), mask});
    streams_.push_back(std::make_unique<Stream>(*this, w));
  }
  shared_.assign(launch.program->static_shared_bytes + launch.dynamic_shared_bytes, 0);
  local_.resize(threads);
}

const WarpInst* CtaEmulator::Stream::next() {
  WarpState& w = cta_.warps_[warp_];
  if (!w.queue.empty()) {
    current_ = std::move(w.queue.front());
    w.queue.pop_front();
  } else {
    // Past a barrier, the other warps must have reached it before this warp goes on.
    cta_.catch_up(w.barriers);
    if (!cta_.step(w, current_)) return nullptr;
  }
  current_.inst.regs = current_.regs.data();
  current_.inst.addr.list = current_.addresses.empty() ? nullptr : current_.addresses.data();
  return &current_.inst;
}

void CtaEmulator::catch_up(uint32_t barrier_count) {
  if (barrier_count == 0) return;
  for (WarpState& other : warps_) {
    while (!other.done && other.barriers < barrier_count) {
      Record r;
      if (!step(other, r)) break;
      other.queue.push_back(std::move(r));
    }
  }
}

void CtaEmulator::finish_lanes(WarpState& w, uint32_t lanes) {
  for (auto& e : w.stack) e.mask &= ~lanes;
  while (!w.stack.empty() && w.stack.back().mask == 0) w.stack.pop_back();
}

bool CtaEmulator::step(WarpState& w, Record& out) {
  const auto& insts = launch_.program->insts;
  while (!w.stack.empty() && (w.stack.back().pc == w.stack.back().rpc || w.stack.back().mask == 0)) w.stack.pop_back();
  if (w.stack.empty() || w.stack.back().pc >= insts.size()) {
    w.done = true;
    w.stack.clear();
    return false;
  }
  StackEntry& top = w.stack.back();
  const EmuInst& in = insts[top.pc];
  uint32_t exec = top.mask;
  if (in.guard >= 0) {
    uint32_t pred = 0;
    for (uint32_t l = 0; l < 32; ++l)
      if ((top.mask >> l & 1) && (w.regs[static_cast<size_t>(in.guard) * 32 + l] & 1)) pred |= 1u << l;
    exec = in.guard_negated ? top.mask & ~pred : pred;
  }
  out = Record{};
  out.inst.op = &in.op;
  out.inst.line = in.line;
  out.inst.active_mask = exec;
  // Registers for the scoreboard: the first operand's registers are written by instructions
  // that write one; everything else (and the guard) is read.
  std::vector<RegId> dst, src;
  for (size_t i = 0; i < in.operands.size(); ++i) {
    const EmuOperand& o = in.operands[i];
    std::vector<int32_t> rs;
    if (o.kind == EmuOperand::Kind::kReg || (o.kind == EmuOperand::Kind::kAddr && o.reg >= 0)) rs.push_back(o.reg);
    if (o.kind == EmuOperand::Kind::kVector) rs = o.regs;
    bool is_dst = i == 0 && in.op.writes_destination && o.kind != EmuOperand::Kind::kAddr;
    for (int32_t r : rs)
      if (r >= 0) (is_dst ? dst : src).push_back(static_cast<RegId>(r));
  }
  if (in.guard >= 0) src.push_back(static_cast<RegId>(in.guard));
  out.regs = dst;
  out.regs.insert(out.regs.end(), src.begin(), src.end());
  out.inst.num_dst = static_cast<uint8_t>(dst.size());
  out.inst.num_src = static_cast<uint8_t>(src.size());
  execute(w, in, exec, out);
  return true;
}

uint64_t CtaEmulator::read(const WarpState& w, const EmuOperand& o, uint32_t lane) const {
  switch (o.kind) {
    case EmuOperand::Kind::kReg: {
      uint64_t v = w.regs[static_cast<size_t>(o.reg) * 32 + lane];
      return o.negated ? (v ^ 1) : v;
    }
    case EmuOperand::Kind::kImm:
      return o.bits;
    case EmuOperand::Kind::kSpecial: {
      const uint32_t t = w.index * 32 + lane;
      const Dim3& b = launch_.block;
      uint32_t tid[3] = {t % b.x, (t / b.x) % b.y, t / (b.x * b.y)};
      uint32_t ntid[3] = {b.x, b.y, b.z}, ctaid[3] = {id_.x, id_.y, id_.z};
      uint32_t nctaid[3] = {launch_.grid.x, launch_.grid.y, launch_.grid.z};
      switch (o.special) {
        case Special::kTid: return tid[o.dim];
        case Special::kNtid: return ntid[o.dim];
        case Special::kCtaid: return ctaid[o.dim];
        case Special::kNctaid: return nctaid[o.dim];
        case Special::kLaneid: return lane;
        case Special::kWarpid: return w.index;
        case Special::kNwarpid: return warps_.size();
        case Special::kSmid: return 0;
        case Special::kClock: return 0;
        case Special::kLanemaskLt: return (1ull << lane) - 1;
        case Special::kLanemaskLe: return (2ull << lane) - 1;
        case Special::kLanemaskEq: return 1ull << lane;
        case Special::kNone: return 0;
      }
      return 0;
    }
    default:
      return 0;
  }
}

void CtaEmulator::write(WarpState& w, int32_t reg, uint32_t lane, uint64_t bits) {
  if (reg < 0) return;
  uint32_t width = launch_.program->register_bits[static_cast<size_t>(reg)];
  w.regs[static_cast<size_t>(reg) * 32 + lane] = width == 1 ? (bits & 1) : mask_bits(bits, width);
}

void CtaEmulator::fault(const EmuInst& in, const WarpState& w, uint32_t lane, const std::string& message) const {
  const uint32_t t = w.index * 32 + lane;
  const Dim3& b = launch_.block;
  throw InputError(SourceLocation{launch_.file, in.line, 1},
                   message + " by thread (" + std::to_string(t % b.x) + "," + std::to_string((t / b.x) % b.y) + "," +
                       std::to_string(t / (b.x * b.y)) + ") of CTA " + id_.str() + " in '" + in.opcode + "'" +
                       (in.source_line ? " (source line " + std::to_string(in.source_line) + ")" : ""));
}

uint8_t* CtaEmulator::memory_at(MemSpace space, uint64_t address, uint32_t size, const WarpState& w, uint32_t lane,
                                const EmuInst& in) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(address));
  if (size > 1 && address % size != 0 && space != MemSpace::kParam) fault(in, w, lane, std::string("misaligned ") + std::to_string(size) + "-byte access at " + hex);
  switch (space) {
    case MemSpace::kGlobal: {
      uint8_t* p = launch_.memory->at(address, size);
      if (!p) fault(in, w, lane, std::string("out-of-bounds global access at ") + hex + " (nearest: " + launch_.memory->nearest(address) + ")");
      return p;
    }
    case MemSpace::kShared:
      if (address + size > shared_.size() || address + size < address) {
        fault(in, w, lane, std::string("out-of-bounds shared access at ") + hex + " (the CTA has " + std::to_string(shared_.size()) + " bytes)");
      }
      return shared_.data() + address;
    case MemSpace::kParam:
      if (address + size > launch_.params.size()) fault(in, w, lane, std::string("parameter access beyond the parameters at ") + hex);
      return const_cast<uint8_t*>(launch_.params.data()) + address;
    case MemSpace::kLocal: {
      auto& local = local_[w.index * 32 + lane];
      if (address + size > (1u << 20)) fault(in, w, lane, std::string("local access beyond 1 MiB at ") + hex);
      if (local.size() < address + size) local.resize(address + size, 0);
      return local.data() + address;
    }
    default:
      fault(in, w, lane, "constant memory is not supported by the emulator yet");
  }
}

void CtaEmulator::execute(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  StackEntry& top = w.stack.back();
  const uint32_t pc = top.pc;
  const auto& ops = in.operands;
  const std::string& b = in.base;
  Type type = in.types.empty() ? Type{'b', 32} : parse_type(in.types.back());
  auto lanes = [&](auto&& f) {
    for (uint32_t l = 0; l < 32; ++l)
      if (exec >> l & 1) f(l);
  };
  auto dst_reg = [&](size_t i = 0) { return ops.at(i).kind == EmuOperand::Kind::kReg ? ops[i].reg : -1; };
  auto advance = [&] { top.pc = pc + 1; };

  if (b == "bra") {
    out.inst.active_mask = top.mask;
    uint32_t target = ops.at(0).target;
    uint32_t taken = exec, not_taken = top.mask & ~exec;
    if (not_taken == 0) {
      top.pc = target;
    } else if (taken == 0) {
      advance();
    } else {
      uint32_t r = in.reconverge;
      top.pc = r;
      StackEntry keep = top;
      w.stack.push_back(StackEntry{pc + 1, r, not_taken});
      w.stack.push_back(StackEntry{target, r, taken});
      (void)keep;
    }
    return;
  }
  if (b == "ret" || b == "exit") {
    out.inst.active_mask = top.mask;
    advance();
    finish_lanes(w, exec);
    return;
  }
  if (b == "bar" || b == "barrier") {
    ++w.barriers;
    advance();
    return;
  }
  advance();
  if (b == "membar" || b == "fence") return;

  if (b == "mov") {
    lanes([&](uint32_t l) { write(w, dst_reg(), l, read(w, ops.at(1), l)); });
    return;
  }
  if (b == "cvta") {
    lanes([&](uint32_t l) { write(w, dst_reg(), l, read(w, ops.at(1), l)); });
    return;
  }
  if (b == "setp") {
    // setp.CMP[.BOOLOP].TYPE p[|q], a, b[, c]
    const std::string& cmp = in.mods.at(0);
    std::string boolop;
    for (const auto& m : in.mods)
      if (m == "and" || m == "or" || m == "xor") boolop = m;
    int32_t p = -1, q = -1;
    if (ops[0].kind == EmuOperand::Kind::kVector) {
      p = ops[0].regs.at(0);
      q = ops[0].regs.size() > 1 ? ops[0].regs[1] : -1;
    } else {
      p = ops[0].reg;
    }
    lanes([&](uint32_t l) {
      bool t = compare(cmp, type, read(w, ops[1], l), read(w, ops[2], l));
      bool nt = !t;
      if (!boolop.empty() && ops.size() > 3) {
        bool c = read(w, ops[3], l) & 1;
        if (boolop == "and") t = t && c, nt = nt && c;
        if (boolop == "or") t = t || c, nt = nt || c;
        if (boolop == "xor") t = t != c, nt = nt != c;
      }
      write(w, p, l, t);
      write(w, q, l, nt);
    });
    return;
  }
  if (b == "selp") {
    lanes([&](uint32_t l) { write(w, dst_reg(), l, (read(w, ops[3], l) & 1) ? read(w, ops[1], l) : read(w, ops[2], l)); });
    return;
  }
  if (b == "cvt") {
    Type d = parse_type(in.types.at(0)), s = parse_type(in.types.at(1));
    bool rz = in.has("rzi") || in.has("rz"), rm = in.has("rmi") || in.has("rm"), rp = in.has("rpi") || in.has("rp");
    lanes([&](uint32_t l) {
      uint64_t v = read(w, ops[1], l);
      uint64_t r;
      if (s.kind == 'f' && d.kind == 'f') {
        double x = as_float(v, s.bits);
        if (in.has("rni")) x = std::nearbyint(x);
        if (in.has("rzi")) x = std::trunc(x);
        r = from_float(x, d.bits);
      } else if (s.kind == 'f') {
        double x = as_float(v, s.bits);
        x = rz ? std::trunc(x) : rm ? std::floor(x) : rp ? std::ceil(x) : std::nearbyint(x);
        if (std::isnan(x)) x = 0;
        r = d.kind == 's' ? static_cast<uint64_t>(static_cast<int64_t>(x)) : static_cast<uint64_t>(x < 0 ? 0 : x);
      } else if (d.kind == 'f') {
        double x = s.kind == 's' ? static_cast<double>(as_signed(v, s.bits)) : static_cast<double>(mask_bits(v, s.bits));
        r = from_float(x, d.bits);
      } else {
        r = s.kind == 's' ? static_cast<uint64_t>(as_signed(v, s.bits)) : mask_bits(v, s.bits);
      }
      write(w, dst_reg(), l, r);
    });
    return;
  }
  if (b == "ld" || b == "st") {
    MemSpace space = space_of(in);
    const bool load = b == "ld";
    const EmuOperand& addr = load ? ops.at(1) : ops.at(0);
    const EmuOperand& data = load ? ops.at(0) : ops.at(1);
    const uint32_t n = vector_width(in);
    const uint32_t size = std::max<uint32_t>(1, type.bits / 8);
    if (space != MemSpace::kParam) out.addresses.reserve(32);
    lanes([&](uint32_t l) {
      uint64_t a = (addr.reg >= 0 ? w.regs[static_cast<size_t>(addr.reg) * 32 + l] : 0) + addr.bits;
      if (space != MemSpace::kParam) out.addresses.push_back(a);
      uint8_t* p = memory_at(space, a, size * n, w, l, in);
      for (uint32_t k = 0; k < n; ++k) {
        int32_t reg = data.kind == EmuOperand::Kind::kVector ? data.regs.at(k) : data.reg;
        if (load) {
          uint64_t v = 0;
          std::memcpy(&v, p + k * size, size);
          if (type.kind == 's') v = static_cast<uint64_t>(as_signed(v, type.bits));
          write(w, reg, l, v);
        } else {
          uint64_t v = data.kind == EmuOperand::Kind::kImm ? data.bits : (reg >= 0 ? w.regs[static_cast<size_t>(reg) * 32 + l] : 0);
          std::memcpy(p + k * size, &v, size);
        }
      }
    });
    if (space == MemSpace::kParam) out.addresses.clear();
    return;
  }
  if (b == "atom" || b == "red") {
    MemSpace space = space_of(in);
    const bool returns = b == "atom";
    const EmuOperand& addr = ops.at(returns ? 1 : 0);
    std::string op;
    for (const auto& m : in.mods)
      if (m == "add" || m == "min" || m == "max" || m == "exch" || m == "cas" || m == "and" || m == "or" || m == "xor" ||
          m == "inc" || m == "dec")
        op = m;
    const uint32_t size = std::max<uint32_t>(4, type.bits / 8);
    lanes([&](uint32_t l) {  // lanes in order: a deterministic serialisation
      uint64_t a = (addr.reg >= 0 ? w.regs[static_cast<size_t>(addr.reg) * 32 + l] : 0) + addr.bits;
      out.addresses.push_back(a);
      uint8_t* p = memory_at(space, a, size, w, l, in);
      uint64_t old = 0;
      std::memcpy(&old, p, size);
      uint64_t v = read(w, ops.at(returns ? 2 : 1), l);
      uint64_t r = old;
      if (type.kind == 'f') {
        double x = as_float(old, type.bits), y = as_float(v, type.bits);
        if (op == "add") r = from_float(x + y, type.bits);
        if (op == "min") r = from_float(std::fmin(x, y), type.bits);
        if (op == "max") r = from_float(std::fmax(x, y), type.bits);
        if (op == "exch") r = v;
      } else {
        bool s = type.kind == 's';
        int64_t so = as_signed(old, type.bits), sv = as_signed(v, type.bits);
        uint64_t uo = mask_bits(old, type.bits), uv = mask_bits(v, type.bits);
        if (op == "add") r = uo + uv;
        if (op == "min") r = s ? static_cast<uint64_t>(std::min(so, sv)) : std::min(uo, uv);
        if (op == "max") r = s ? static_cast<uint64_t>(std::max(so, sv)) : std::max(uo, uv);
        if (op == "exch") r = uv;
        if (op == "and") r = uo & uv;
        if (op == "or") r = uo | uv;
        if (op == "xor") r = uo ^ uv;
        if (op == "inc") r = uo >= uv ? 0 : uo + 1;
        if (op == "dec") r = (uo == 0 || uo > uv) ? uv : uo - 1;
        if (op == "cas") r = uo == uv ? read(w, ops.at(3), l) : uo;
      }
      std::memcpy(p, &r, size);
      if (returns) write(w, dst_reg(), l, old);
    });
    return;
  }
  if (b == "shfl") {
    // shfl.sync.MODE.b32 d[|p], a, b, c, membermask (PTX ISA pseudo-code for shfl.sync)
    std::string mode = in.mods.size() > 1 ? in.mods[1] : "idx";
    int32_t d = ops[0].kind == EmuOperand::Kind::kVector ? ops[0].regs.at(0) : ops[0].reg;
    int32_t p = ops[0].kind == EmuOperand::Kind::kVector && ops[0].regs.size() > 1 ? ops[0].regs[1] : -1;
    std::array<uint64_t, 32> source{};
    for (uint32_t l = 0; l < 32; ++l) source[l] = read(w, ops[1], l);
    std::array<uint64_t, 32> result{}, valid{};
    lanes([&](uint32_t l) {
      uint32_t bval = static_cast<uint32_t>(read(w, ops[2], l)) & 31, c = static_cast<uint32_t>(read(w, ops[3], l));
      uint32_t cval = c & 31, segmask = (c >> 8) & 31;
      uint32_t max_lane = (l & segmask) | (cval & ~segmask), min_lane = l & segmask;
      int32_t j = 0;
      bool pval = false;
      if (mode == "up") j = static_cast<int32_t>(l) - static_cast<int32_t>(bval), pval = j >= static_cast<int32_t>(max_lane);
      if (mode == "down") j = static_cast<int32_t>(l + bval), pval = j <= static_cast<int32_t>(max_lane);
      if (mode == "bfly") j = static_cast<int32_t>(l ^ bval), pval = j <= static_cast<int32_t>(max_lane);
      if (mode == "idx") j = static_cast<int32_t>(min_lane | (bval & ~segmask)), pval = j <= static_cast<int32_t>(max_lane);
      if (!pval) j = static_cast<int32_t>(l);
      result[l] = source[static_cast<uint32_t>(j)];
      valid[l] = pval;
    });
    lanes([&](uint32_t l) {
      write(w, d, l, result[l]);
      write(w, p, l, valid[l]);
    });
    return;
  }
  if (b == "vote") {
    uint32_t ballot = 0;
    lanes([&](uint32_t l) {
      if (read(w, ops.at(1), l) & 1) ballot |= 1u << l;
    });
    lanes([&](uint32_t l) {
      uint64_t r = ballot;
      if (in.has("all")) r = ballot == exec;
      if (in.has("any")) r = ballot != 0;
      if (in.has("uni")) r = ballot == 0 || ballot == exec;
      write(w, dst_reg(), l, r);
    });
    return;
  }
  if (b == "activemask") {
    lanes([&](uint32_t l) { write(w, dst_reg(), l, exec); });
    return;
  }

  // Arithmetic and logic, one lane at a time.
  lanes([&](uint32_t l) {
    auto arg = [&](size_t i) { return read(w, ops.at(i), l); };
    uint64_t r = 0;
    if (type.kind == 'f') {
      auto f = [&](size_t i) { return as_float(arg(i), type.bits); };
      double x = 0;
      if (b == "add") x = f(1) + f(2);
      else if (b == "sub") x = f(1) - f(2);
      else if (b == "mul") x = f(1) * f(2);
      else if (b == "div") x = f(1) / f(2);
      else if (b == "fma" || b == "mad") x = type.bits == 64 ? std::fma(f(1), f(2), f(3)) : static_cast<double>(std::fmaf(static_cast<float>(f(1)), static_cast<float>(f(2)), static_cast<float>(f(3))));
      else if (b == "min") x = std::fmin(f(1), f(2));
      else if (b == "max") x = std::fmax(f(1), f(2));
      else if (b == "abs") x = std::fabs(f(1));
      else if (b == "neg") x = -f(1);
      else if (b == "sqrt") x = std::sqrt(f(1));
      else if (b == "rsqrt") x = 1.0 / std::sqrt(f(1));
      else if (b == "rcp") x = 1.0 / f(1);
      else if (b == "ex2") x = std::exp2(f(1));
      else if (b == "lg2") x = std::log2(f(1));
      else if (b == "sin") x = std::sin(f(1));
      else if (b == "cos") x = std::cos(f(1));
      else fault(in, w, l, "the emulator has no float form of this instruction");
      if (type.bits == 32) x = static_cast<float>(x);  // round each operation to single precision
      r = from_float(x, type.bits);
    } else {
      const uint32_t bits = type.bits;
      const bool s = type.kind == 's';
      auto u = [&](size_t i) { return mask_bits(arg(i), bits); };
      auto sg = [&](size_t i) { return as_signed(arg(i), bits); };
      if (b == "add") r = u(1) + u(2);
      else if (b == "sub") r = u(1) - u(2);
      else if (b == "mul" || b == "mad" || b == "mul24" || b == "mad24") {
        if (in.has("wide")) {
          r = s ? static_cast<uint64_t>(sg(1) * sg(2)) : u(1) * u(2);
        } else if (in.has("hi")) {
          __int128_t p = s ? static_cast<__int128_t>(sg(1)) * sg(2) : static_cast<__int128_t>(static_cast<__uint128_t>(u(1)) * u(2));
          r = static_cast<uint64_t>(p >> bits);
        } else {
          r = u(1) * u(2);
        }
        if (b == "mad" || b == "mad24") r += in.has("wide") ? arg(3) : u(3);
      } else if (b == "div") r = u(2) == 0 ? ~0ull : s ? static_cast<uint64_t>(sg(1) / sg(2)) : u(1) / u(2);
      else if (b == "rem") r = u(2) == 0 ? u(1) : s ? static_cast<uint64_t>(sg(1) % sg(2)) : u(1) % u(2);
      else if (b == "min") r = s ? static_cast<uint64_t>(std::min(sg(1), sg(2))) : std::min(u(1), u(2));
      else if (b == "max") r = s ? static_cast<uint64_t>(std::max(sg(1), sg(2))) : std::max(u(1), u(2));
      else if (b == "abs") r = static_cast<uint64_t>(std::llabs(sg(1)));
      else if (b == "neg") r = static_cast<uint64_t>(-sg(1));
      else if (b == "and") r = u(1) & u(2);
      else if (b == "or") r = u(1) | u(2);
      else if (b == "xor") r = u(1) ^ u(2);
      else if (b == "not") r = ~u(1);
      else if (b == "shl") r = u(2) >= bits ? 0 : u(1) << u(2);
      else if (b == "shr") {
        uint64_t n = std::min<uint64_t>(u(2), bits);
        r = s ? static_cast<uint64_t>(sg(1) >> std::min<uint64_t>(n, 63)) : (n >= bits ? 0 : u(1) >> n);
      }
      else if (b == "popc") r = static_cast<uint64_t>(std::popcount(u(1)));
      else if (b == "clz") r = static_cast<uint64_t>(std::countl_zero(u(1)) - (64 - static_cast<int>(bits)));
      else if (b == "brev") {
        uint64_t v = u(1), o = 0;
        for (uint32_t i = 0; i < bits; ++i) o |= ((v >> i) & 1) << (bits - 1 - i);
        r = o;
      }
      else fault(in, w, l, "the emulator has no integer form of this instruction");
      if (type.kind == 'p') r &= 1;
    }
    write(w, dst_reg(), l, r);
  });
}

}  // namespace warpsim::ptx
