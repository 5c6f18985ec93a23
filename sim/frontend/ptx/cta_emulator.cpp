#include "frontend/ptx/cta_emulator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/error.h"
#include "common/half.h"

namespace warpsim::ptx {
namespace {

// Value helpers: registers hold raw bits; the instruction's type says how to read them.
using Type = ValueType;

uint64_t mask_bits(uint64_t v, uint32_t bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }
int64_t as_signed(uint64_t v, uint32_t bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t m = 1ull << (bits - 1);
  v = mask_bits(v, bits);
  return static_cast<int64_t>((v ^ m) - m);
}
// 16-bit floats are IEEE half, or bfloat16 when `brain` (the top half of an f32).
double as_float(uint64_t v, uint32_t bits, bool brain = false) {
  if (bits == 64) return std::bit_cast<double>(v);
  if (bits == 16) return brain ? std::bit_cast<float>(static_cast<uint32_t>(v & 0xffff) << 16) : half_to_float(static_cast<uint16_t>(v));
  return std::bit_cast<float>(static_cast<uint32_t>(v));
}
uint64_t from_float(double d, uint32_t bits, bool brain = false) {
  if (bits == 64) return std::bit_cast<uint64_t>(d);
  if (bits == 16) {
    if (!brain) return float_to_half(static_cast<float>(d));
    uint32_t x = std::bit_cast<uint32_t>(static_cast<float>(d));
    x += 0x7fff + ((x >> 16) & 1);  // round to nearest even
    return x >> 16;
  }
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
    ws.live = mask;
    streams_.push_back(std::make_unique<Stream>(*this, w));
  }
  shared_.assign(launch.program->static_shared_bytes + launch.dynamic_shared_bytes, 0);
  if (launch.findings && launch.findings->enabled) shared_words_.resize((shared_.size() + 3) / 4);
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

uint32_t CtaEmulator::guard_lanes(const WarpState& w, const EmuInst& in, uint32_t mask) const {
  if (in.guard < 0) return mask;
  uint32_t pred = 0;
  for (uint32_t l = 0; l < 32; ++l)
    if ((mask >> l & 1) && (w.regs[static_cast<size_t>(in.guard) * 32 + l] & 1)) pred |= 1u << l;
  return in.guard_negated ? mask & ~pred : pred;
}

void CtaEmulator::begin_record(const EmuInst& in, uint32_t exec, Record& out) const {
  out.inst = WarpInst{};
  out.inst.op = &in.op;
  out.inst.line = in.line;
  out.inst.active_mask = exec;
  out.regs.assign(in.dsts.begin(), in.dsts.end());
  out.regs.insert(out.regs.end(), in.srcs.begin(), in.srcs.end());
  out.addresses.clear();
  out.inst.num_dst = static_cast<uint8_t>(in.dsts.size());
  out.inst.num_src = static_cast<uint8_t>(in.srcs.size());
}

namespace {
// Instructions all participating lanes of a warp must reach together.
bool is_warp_sync(const EmuInst& in) {
  return in.code == EmuOp::kBar || in.code == EmuOp::kShfl || in.code == EmuOp::kVote || in.code == EmuOp::kWmmaLoad ||
         in.code == EmuOp::kWmmaStore || in.code == EmuOp::kWmmaMma || in.code == EmuOp::kMma;
}
}  // namespace

bool CtaEmulator::step_independent(WarpState& w, Record& out) {
  const auto& insts = launch_.program->insts;
  const uint32_t end = static_cast<uint32_t>(insts.size());
  for (uint32_t l = 0; l < 32; ++l)
    if ((w.live >> l & 1) && w.pcs[l] >= end) w.live &= ~(1u << l);
  if (w.live == 0) {
    w.done = true;
    return false;
  }
  // Groups of lanes by PC: the lowest PC first, or after 64 steps the next one after the PC run
  // last (forward progress); a group at a *.sync instruction waits for every live lane.
  std::array<uint32_t, 32> order{};
  uint32_t n = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    if (!(w.live >> l & 1)) continue;
    bool seen = false;
    for (uint32_t k = 0; k < n; ++k) seen |= order[k] == w.pcs[l];
    if (!seen) order[n++] = w.pcs[l];
  }
  std::sort(order.begin(), order.begin() + n);
  uint32_t start = 0;
  if (n > 1 && ++w.run_length >= 64) {
    w.run_length = 0;
    while (start < n && order[start] <= w.turn) ++start;
  }
  uint32_t pc = end, group = 0;
  for (uint32_t i = 0; i < n && pc == end; ++i) {
    uint32_t candidate = order[(start + i) % n], mask = 0;
    for (uint32_t l = 0; l < 32; ++l)
      if ((w.live >> l & 1) && w.pcs[l] == candidate) mask |= 1u << l;
    if (is_warp_sync(insts[candidate]) && mask != w.live) continue;
    pc = candidate;
    group = mask;
  }
  if (pc == end) {
    throw InputError(SourceLocation{launch_.file, insts[order[0]].line, 1},
                     "warp " + std::to_string(w.index) + " of CTA " + id_.str() +
                         " cannot go on under independent thread scheduling: its lanes wait at different *.sync instructions");
  }
  w.turn = pc;
  const EmuInst& in = insts[pc];
  const uint32_t exec = guard_lanes(w, in, group);
  begin_record(in, exec, out);
  if (in.code == EmuOp::kBra) {
    out.inst.active_mask = group;
    for (uint32_t l = 0; l < 32; ++l)
      if (group >> l & 1) w.pcs[l] = (exec >> l & 1) ? in.operands.at(0).target : pc + 1;
    return true;
  }
  if (in.code == EmuOp::kRet) {
    out.inst.active_mask = group;
    for (uint32_t l = 0; l < 32; ++l)
      if (group >> l & 1) w.pcs[l] = (exec >> l & 1) ? end : pc + 1;
    return true;
  }
  // Everything else runs through the common path on a one-entry stack.
  w.stack.assign(1, StackEntry{pc, end, group});
  execute(w, in, exec, out);
  for (uint32_t l = 0; l < 32; ++l)
    if (group >> l & 1) w.pcs[l] = pc + 1;
  return true;
}

bool CtaEmulator::step(WarpState& w, Record& out) {
  if (++w.executed > launch_.max_warp_instructions) {
    uint32_t pc = launch_.independent_thread_scheduling ? w.turn : (w.stack.empty() ? 0 : w.stack.back().pc);
    uint32_t line = pc < launch_.program->insts.size() ? launch_.program->insts[pc].line : 0;
    throw InputError(SourceLocation{launch_.file, line, 1},
                     "warp " + std::to_string(w.index) + " of CTA " + id_.str() + " executed more than " +
                         std::to_string(launch_.max_warp_instructions) +
                         " instructions without finishing: a livelock? (lanes spinning on a lock another lane of the same warp "
                         "holds never progress under the reconvergence stack; try reconvergence: independent)");
  }
  if (launch_.independent_thread_scheduling) return step_independent(w, out);
  const auto& insts = launch_.program->insts;
  while (!w.stack.empty() && (w.stack.back().pc == w.stack.back().rpc || w.stack.back().mask == 0)) w.stack.pop_back();
  if (w.stack.empty() || w.stack.back().pc >= insts.size()) {
    w.done = true;
    w.stack.clear();
    return false;
  }
  StackEntry& top = w.stack.back();
  const EmuInst& in = insts[top.pc];
  const uint32_t exec = guard_lanes(w, in, top.mask);
  begin_record(in, exec, out);
  execute(w, in, exec, out);
  return true;
}

namespace {

// Fixed-size copies compile to single moves; a memcpy of a run-time size is a library call, and
// loads and stores are the emulator's commonest instructions.
uint64_t load_bits(const uint8_t* p, uint32_t size) {
  switch (size) {
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case 8: { uint64_t v; std::memcpy(&v, p, 8); return v; }
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 1: return *p;
    default: { uint64_t v = 0; std::memcpy(&v, p, std::min<uint32_t>(size, 8)); return v; }
  }
}

void store_bits(uint8_t* p, uint64_t v, uint32_t size) {
  switch (size) {
    case 4: { auto x = static_cast<uint32_t>(v); std::memcpy(p, &x, 4); return; }
    case 8: std::memcpy(p, &v, 8); return;
    case 2: { auto x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); return; }
    case 1: *p = static_cast<uint8_t>(v); return;
    default: std::memcpy(p, &v, std::min<uint32_t>(size, 8));
  }
}

}  // namespace

// mma.sync.m16n8k32 with 8-bit inputs, fragment layouts per the PTX ISA (group = lane / 4,
// t = lane % 4; four elements per register, the lowest-numbered in the low byte):
//   A element i (0..15): row = group + 8 if 4 <= i % 8, col = 4t + i % 4 + 16 * (i / 8)
//   B element i (0..7):  row = 4t + i % 4 + 16 * (i / 4), col = group
//   C/D element i:       row = group + 8 * (i / 2), col = 2t + i % 2
// Integers accumulate exactly in 32 bits (wrapping); FP8 products are exact in float and are
// summed in k order with fmaf (the hardware's internal precision is not specified).
void CtaEmulator::mma_m16n8k32(WarpState& w, const EmuInst& in) {
  const auto& ops = in.operands;
  const auto& fa = ops.at(1).regs;
  const auto& fb = ops.at(2).regs;
  const auto& fc = ops.at(3).regs;
  const auto& fd = ops.at(0).regs;
  auto element = [](const std::string& type, uint32_t byte) -> double {
    if (type == "s8") return static_cast<int8_t>(byte);
    if (type == "u8") return byte;
    if (type == "e5m2") return half_to_float(static_cast<uint16_t>(byte << 8));  // the top byte of an FP16
    // e4m3: bias 7, no infinities, S.1111.111 is NaN.
    const double sign = (byte & 0x80) ? -1.0 : 1.0;
    const uint32_t e = (byte >> 3) & 0xf, m = byte & 7;
    if (e == 15 && m == 7) return std::numeric_limits<double>::quiet_NaN();
    return sign * (e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, static_cast<int>(e) - 7));
  };
  auto reg = [&](int32_t r, uint32_t l) { return w.regs[static_cast<size_t>(r) * 32 + l]; };
  double a[16][32] = {}, b[32][8] = {};
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t g = l / 4, t = l % 4;
    for (uint32_t i = 0; i < 16; ++i) {
      uint32_t byte = static_cast<uint32_t>(reg(fa.at(i / 4), l) >> (8 * (i % 4))) & 0xff;
      a[g + ((i % 8) >= 4 ? 8 : 0)][4 * t + i % 4 + 16 * (i / 8)] = element(in.mma_a, byte);
    }
    for (uint32_t i = 0; i < 8; ++i) {
      uint32_t byte = static_cast<uint32_t>(reg(fb.at(i / 4), l) >> (8 * (i % 4))) & 0xff;
      b[4 * t + i % 4 + 16 * (i / 4)][g] = element(in.mma_b, byte);
    }
  }
  const bool integer = in.mma_a == "s8" || in.mma_a == "u8";
  for (uint32_t l = 0; l < 32; ++l) {
    const uint32_t g = l / 4, t = l % 4;
    for (uint32_t i = 0; i < 4; ++i) {
      const uint32_t row = g + 8 * (i / 2), col = 2 * t + i % 2;
      const uint32_t c = static_cast<uint32_t>(reg(fc.at(i), l));
      if (integer) {
        uint32_t acc = c;
        for (uint32_t k = 0; k < 32; ++k) acc += static_cast<uint32_t>(static_cast<int32_t>(a[row][k] * b[k][col]));
        write(w, fd.at(i), l, acc);
      } else {
        float acc = std::bit_cast<float>(c);
        for (uint32_t k = 0; k < 32; ++k) acc = std::fmaf(static_cast<float>(a[row][k]), static_cast<float>(b[k][col]), acc);
        write(w, fd.at(i), l, std::bit_cast<uint32_t>(acc));
      }
    }
  }
}

uint64_t CtaEmulator::read_other(const WarpState& w, const EmuOperand& o, uint32_t lane) const {
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

std::string CtaEmulator::thread_name(const WarpState& w, uint32_t lane) const {
  const uint32_t t = w.index * 32 + lane;
  const Dim3& b = launch_.block;
  return "thread (" + std::to_string(t % b.x) + "," + std::to_string((t / b.x) % b.y) + "," + std::to_string(t / (b.x * b.y)) +
         ") of CTA " + id_.str();
}

void CtaEmulator::check_shared(const WarpState& w, uint32_t lane, uint64_t address, uint32_t size, bool write, bool atomic,
                               const EmuInst& in) {
  if (shared_words_.empty()) return;
  const uint32_t epoch = w.barriers, thread = w.index * 32 + lane;
  for (uint64_t word = address / 4; word <= (address + size - 1) / 4 && word < shared_words_.size(); ++word) {
    WordAccess& a = shared_words_[word];
    const bool uninitialized = !write && !atomic && !a.written;
    // Threads of different warps touching one word between two barriers, one of them writing.
    const bool after_write = !atomic && a.write_epoch == epoch && a.write_warp != w.index;
    const bool after_read = !atomic && write && a.read_epoch == epoch && a.read_warp != w.index;
    if (uninitialized || after_write || after_read) report_shared(w, lane, word, write, uninitialized, after_write, after_read, in);
    if (write || atomic) {
      a.written = true;
      if (!atomic) a.write_epoch = epoch, a.write_warp = w.index, a.write_thread = thread, a.write_line = in.line;
    } else {
      a.read_epoch = epoch, a.read_warp = w.index, a.read_thread = thread, a.read_line = in.line;
    }
  }
}

// Out of line, so that the check above (run for every shared access) stays small and string-free.
void CtaEmulator::report_shared(const WarpState& w, uint32_t lane, uint64_t word, bool write, bool uninitialized, bool after_write,
                                bool after_read, const EmuInst& in) {
  const WordAccess& a = shared_words_[word];
  auto where = [&](uint32_t line) { return launch_.file + ":" + std::to_string(line); };
  auto name_of = [&](uint32_t t) { return thread_name(warps_[t / 32], t % 32); };
  char hex[24];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(word * 4));
  if (uninitialized) {
    launch_.findings->add("uninitialized-shared-read", in.line,
                          where(in.line) + ": " + thread_name(w, lane) + " reads shared " + hex + ", which no thread has written");
  }
  if (after_write) {
    launch_.findings->add("race", in.line,
                          where(in.line) + ": " + thread_name(w, lane) + (write ? " writes" : " reads") + " shared " + hex + ", which " +
                              name_of(a.write_thread) + " wrote at " + where(a.write_line) + " with no bar.sync between them");
  } else if (after_read) {
    launch_.findings->add("race", in.line,
                          where(in.line) + ": " + thread_name(w, lane) + " writes shared " + hex + ", which " + name_of(a.read_thread) +
                              " read at " + where(a.read_line) + " with no bar.sync between them");
  }
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
  auto hex = [&] {  // only formatted when there is a fault to report
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(address));
    return std::string(buf);
  };
  if (size > 1 && address % size != 0 && space != MemSpace::kParam) fault(in, w, lane, "misaligned " + std::to_string(size) + "-byte access at " + hex());
  switch (space) {
    case MemSpace::kGlobal: {
      uint8_t* p = launch_.memory->at(address, size);
      if (!p) fault(in, w, lane, "out-of-bounds global access at " + hex() + " (nearest: " + launch_.memory->nearest(address) + ")");
      return p;
    }
    case MemSpace::kShared:
      if (address + size > shared_.size() || address + size < address) {
        fault(in, w, lane, "out-of-bounds shared access at " + hex() + " (the CTA has " + std::to_string(shared_.size()) + " bytes)");
      }
      return shared_.data() + address;
    case MemSpace::kParam:
      if (address + size > launch_.params.size()) fault(in, w, lane, "parameter access beyond the parameters at " + hex());
      return const_cast<uint8_t*>(launch_.params.data()) + address;
    case MemSpace::kLocal: {
      auto& local = local_[w.index * 32 + lane];
      if (address + size > (1u << 20)) fault(in, w, lane, "local access beyond 1 MiB at " + hex());
      if (local.size() < address + size) local.resize(address + size, 0);
      return local.data() + address;
    }
    case MemSpace::kConst: {
      const auto& bank = launch_.program->constant_bank;
      if (address + size > bank.size() || address + size < address) {
        fault(in, w, lane, "constant access at " + hex() + " beyond the module's " + std::to_string(bank.size()) + " bytes of .const variables");
      }
      return const_cast<uint8_t*>(bank.data()) + address;  // stores to .const are rejected when the PTX is lowered
    }
    default:
      fault(in, w, lane, "this state space is not supported by the emulator");
  }
}

void CtaEmulator::execute(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  StackEntry& top = w.stack.back();
  const uint32_t pc = top.pc;
  const auto& ops = in.operands;
  const Type type = in.type;
  auto lanes = [&](auto&& f) {
    for (uint32_t m = exec; m;) {
      uint32_t l = static_cast<uint32_t>(std::countr_zero(m));
      m &= m - 1;
      f(l);
    }
  };
  auto dst_reg = [&](size_t i = 0) { return ops.at(i).kind == EmuOperand::Kind::kReg ? ops[i].reg : -1; };
  auto reg = [&](int32_t r, uint32_t l) { return w.regs[static_cast<size_t>(r) * 32 + l]; };

  switch (in.code) {
    case EmuOp::kBra: {
      out.inst.active_mask = top.mask;
      uint32_t target = ops.at(0).target;
      uint32_t taken = exec, not_taken = top.mask & ~exec;
      if (not_taken == 0) {
        top.pc = target;
      } else if (taken == 0) {
        top.pc = pc + 1;
      } else {
        uint32_t r = in.reconverge;
        top.pc = r;
        w.stack.push_back(StackEntry{pc + 1, r, not_taken});
        w.stack.push_back(StackEntry{target, r, taken});
      }
      return;
    }
    case EmuOp::kRet:
      out.inst.active_mask = top.mask;
      top.pc = pc + 1;
      finish_lanes(w, exec);
      return;
    case EmuOp::kBar: {
      // Every live thread of the warp must take part: a bar.sync under divergence (or a guard)
      // that leaves some out is a bug.
      uint32_t live = 0;
      for (const auto& e : w.stack) live |= e.mask;
      if (exec != live && launch_.findings && launch_.findings->enabled) {
        launch_.findings->add("divergent-barrier", in.line,
                              launch_.file + ":" + std::to_string(in.line) + ": bar.sync reached by " +
                                  std::to_string(std::popcount(exec)) + " of the " + std::to_string(std::popcount(live)) +
                                  " live threads of warp " + std::to_string(w.index) + " in CTA " + id_.str());
      }
      ++w.barriers;
      top.pc = pc + 1;
      return;
    }
    default:
      top.pc = pc + 1;
  }

  switch (in.code) {
    case EmuOp::kMembar:
      return;
    case EmuOp::kMov:
    case EmuOp::kCvta:
      if (ops.at(1).kind == EmuOperand::Kind::kVector) {  // mov.b32 %r, {%lo, %hi}: pack
        const auto& v = ops[1];
        const uint32_t part = type.bits / static_cast<uint32_t>(v.regs.size());
        lanes([&](uint32_t l) {
          uint64_t packed = 0;
          for (size_t k = 0; k < v.regs.size(); ++k) {
            uint64_t x = v.regs[k] == -2 ? v.immediates[k] : v.regs[k] >= 0 ? reg(v.regs[k], l) : 0;
            packed |= mask_bits(x, part) << (part * k);
          }
          write(w, dst_reg(), l, packed);
        });
      } else if (ops[0].kind == EmuOperand::Kind::kVector) {  // mov.b32 {%lo, %hi}, %r: unpack
        const auto& v = ops[0];
        const uint32_t part = type.bits / static_cast<uint32_t>(v.regs.size());
        lanes([&](uint32_t l) {
          uint64_t x = read(w, ops[1], l);
          for (size_t k = 0; k < v.regs.size(); ++k) write(w, v.regs[k], l, mask_bits(x >> (part * k), part));
        });
      } else {
        lanes([&](uint32_t l) { write(w, dst_reg(), l, read(w, ops.at(1), l)); });
      }
      return;
    case EmuOp::kSetp: {
      int32_t p = -1, q = -1;
      if (ops[0].kind == EmuOperand::Kind::kVector) {
        p = ops[0].regs.at(0);
        q = ops[0].regs.size() > 1 ? ops[0].regs[1] : -1;
      } else {
        p = ops[0].reg;
      }
      lanes([&](uint32_t l) {
        bool t = compare(in.cmp, type, read(w, ops[1], l), read(w, ops[2], l));
        bool nt = !t;
        if (!in.boolop.empty() && ops.size() > 3) {
          bool c = read(w, ops[3], l) & 1;
          if (in.boolop == "and") t = t && c, nt = nt && c;
          if (in.boolop == "or") t = t || c, nt = nt || c;
          if (in.boolop == "xor") t = t != c, nt = nt != c;
        }
        write(w, p, l, t);
        write(w, q, l, nt);
      });
      return;
    }
    case EmuOp::kSelp:
      lanes([&](uint32_t l) { write(w, dst_reg(), l, (read(w, ops[3], l) & 1) ? read(w, ops[1], l) : read(w, ops[2], l)); });
      return;
    case EmuOp::kCvt: {
      const Type d = in.type, src = in.source_type;
      lanes([&](uint32_t l) {
        uint64_t v = read(w, ops[1], l);
        uint64_t r;
        const bool src_float = src.kind == 'f' || src.kind == 'h', dst_float = d.kind == 'f' || d.kind == 'h';
        if (src_float && dst_float) {
          double x = as_float(v, src.bits, src.kind == 'h');
          if (in.round_int_nearest) x = std::nearbyint(x);
          if (in.round_int_zero) x = std::trunc(x);
          r = from_float(x, d.bits, d.kind == 'h');
        } else if (src_float) {
          double x = as_float(v, src.bits, src.kind == 'h');
          x = in.round_zero ? std::trunc(x) : in.round_down ? std::floor(x) : in.round_up ? std::ceil(x) : std::nearbyint(x);
          if (std::isnan(x)) x = 0;
          r = d.kind == 's' ? static_cast<uint64_t>(static_cast<int64_t>(x)) : static_cast<uint64_t>(x < 0 ? 0 : x);
        } else if (dst_float) {
          double x = src.kind == 's' ? static_cast<double>(as_signed(v, src.bits)) : static_cast<double>(mask_bits(v, src.bits));
          r = from_float(x, d.bits, d.kind == 'h');
        } else {
          r = src.kind == 's' ? static_cast<uint64_t>(as_signed(v, src.bits)) : mask_bits(v, src.bits);
        }
        write(w, dst_reg(), l, r);
      });
      return;
    }
    case EmuOp::kLd:
    case EmuOp::kSt: {
      // A call-site .param variable lives in the thread's local memory.
      const MemSpace space = (in.code == EmuOp::kLd ? ops.at(1) : ops.at(0)).symbol_space == MemSpace::kLocal ? MemSpace::kLocal : in.space;
      const bool load = in.code == EmuOp::kLd;
      const EmuOperand& addr = load ? ops.at(1) : ops.at(0);
      const EmuOperand& data = load ? ops.at(0) : ops.at(1);
      const uint32_t n = in.vector;
      const uint32_t size = std::max<uint32_t>(1, type.bits / 8);
      lanes([&](uint32_t l) {
        uint64_t a = (addr.reg >= 0 ? reg(addr.reg, l) : 0) + addr.bits;
        if (space != MemSpace::kParam) out.addresses.push_back(a);
        uint8_t* p = memory_at(space, a, size * n, w, l, in);
        if (space == MemSpace::kShared) check_shared(w, l, a, size * n, !load, false, in);
        for (uint32_t k = 0; k < n; ++k) {
          int32_t r = data.kind == EmuOperand::Kind::kVector ? data.regs.at(k) : data.reg;
          if (load) {
            uint64_t v = load_bits(p + k * size, size);
            if (type.kind == 's') v = static_cast<uint64_t>(as_signed(v, type.bits));
            write(w, r, l, v);
          } else {
            uint64_t v = data.kind == EmuOperand::Kind::kImm ? data.bits : (r >= 0 ? reg(r, l) : 0);
            store_bits(p + k * size, v, size);
          }
        }
      });
      return;
    }
    case EmuOp::kAtom:
    case EmuOp::kRed: {
      const bool returns = in.code == EmuOp::kAtom;
      const EmuOperand& addr = ops.at(returns ? 1 : 0);
      const std::string& op = in.atom_op;
      const uint32_t size = std::max<uint32_t>(4, type.bits / 8);
      lanes([&](uint32_t l) {  // lanes in order: a deterministic serialisation
        uint64_t a = (addr.reg >= 0 ? reg(addr.reg, l) : 0) + addr.bits;
        out.addresses.push_back(a);
        uint8_t* p = memory_at(in.space, a, size, w, l, in);
        if (in.space == MemSpace::kShared) check_shared(w, l, a, size, true, true, in);
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
          bool sg = type.kind == 's';
          int64_t so = as_signed(old, type.bits), sv = as_signed(v, type.bits);
          uint64_t uo = mask_bits(old, type.bits), uv = mask_bits(v, type.bits);
          if (op == "add") r = uo + uv;
          if (op == "min") r = sg ? static_cast<uint64_t>(std::min(so, sv)) : std::min(uo, uv);
          if (op == "max") r = sg ? static_cast<uint64_t>(std::max(so, sv)) : std::max(uo, uv);
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
    case EmuOp::kShfl: {
      // shfl.sync.MODE.b32 d[|p], a, b, c, membermask (PTX ISA pseudo-code for shfl.sync)
      const std::string& mode = in.shfl_mode;
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
    case EmuOp::kVote: {
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
    case EmuOp::kActivemask:
      lanes([&](uint32_t l) { write(w, dst_reg(), l, exec); });
      return;
    case EmuOp::kSet: {  // set.cmp.dtype.stype d, a, b[, c]: all ones (integer) or 1.0 (f32) when true
      const Type src = in.source_type;
      lanes([&](uint32_t l) {
        bool t = compare(in.cmp, src, read(w, ops[1], l), read(w, ops[2], l));
        if (!in.boolop.empty() && ops.size() > 3) {
          bool c = read(w, ops[3], l) & 1;
          if (in.boolop == "and") t = t && c;
          if (in.boolop == "or") t = t || c;
          if (in.boolop == "xor") t = t != c;
        }
        write(w, dst_reg(), l, !t ? 0 : type.kind == 'f' ? std::bit_cast<uint32_t>(1.0f) : 0xffffffffull);
      });
      return;
    }
    case EmuOp::kRedux: {  // redux.sync.op.type d, a, membermask: one value over the active lanes
      const bool sg = type.kind == 's';
      bool first = true;
      uint64_t acc = 0;
      lanes([&](uint32_t l) {
        uint64_t v = mask_bits(read(w, ops.at(1), l), 32);
        if (first) {
          acc = v, first = false;
        } else if (in.has("add")) {
          acc = (acc + v) & 0xffffffffull;
        } else if (in.has("min")) {
          acc = sg ? (as_signed(v, 32) < as_signed(acc, 32) ? v : acc) : std::min(acc, v);
        } else if (in.has("max")) {
          acc = sg ? (as_signed(v, 32) > as_signed(acc, 32) ? v : acc) : std::max(acc, v);
        } else if (in.has("and")) {
          acc &= v;
        } else if (in.has("or")) {
          acc |= v;
        } else if (in.has("xor")) {
          acc ^= v;
        } else {
          fault(in, w, l, "redux.sync supports add, min, max, and, or and xor");
        }
      });
      lanes([&](uint32_t l) { write(w, dst_reg(), l, acc); });
      return;
    }
    case EmuOp::kPrmt: {  // prmt.b32 d, a, b, c: byte i of d is byte (c >> 4i) & 7 of {b, a}
      if (in.mods.size() > 1) fault(in, w, std::countr_zero(exec), "prmt modes (.f4e, .b4e, .rc8, ...) are not supported by the emulator");
      lanes([&](uint32_t l) {
        const uint64_t bytes = mask_bits(read(w, ops.at(1), l), 32) | (mask_bits(read(w, ops.at(2), l), 32) << 32);
        const uint64_t sel = read(w, ops.at(3), l);
        uint64_t r = 0;
        for (uint32_t i = 0; i < 4; ++i) {
          uint32_t s = (sel >> (4 * i)) & 0xf;
          uint64_t byte = (bytes >> (8 * (s & 7))) & 0xff;
          if (s & 8) byte = (byte & 0x80) ? 0xff : 0;  // sign replication
          r |= byte << (8 * i);
        }
        write(w, dst_reg(), l, r);
      });
      return;
    }
    case EmuOp::kWmmaLoad:
    case EmuOp::kWmmaStore: {
      // Fragments in the emulator's layout: A/B lane l, register r, half h hold element
      // (l % 16) * 16 + 2r + h; C/D lane l, register r hold element 8l + r (row = e / 16).
      const bool load = in.code == EmuOp::kWmmaLoad;
      const EmuOperand& addr = load ? ops.at(1) : ops.at(0);
      const EmuOperand& frag = load ? ops.at(0) : ops.at(1);
      const bool half = in.matrix == 'a' || in.matrix == 'b';
      const uint32_t size = half ? 2 : 4;
      const MemSpace space = in.space;
      lanes([&](uint32_t l) {
        uint64_t base = (addr.reg >= 0 ? reg(addr.reg, l) : 0) + addr.bits;
        uint64_t stride = ops.size() > 2 ? read(w, ops[2], l) : 16;
        bool first = true;
        for (uint32_t r = 0; r < 8; ++r) {
          uint64_t packed = load ? 0 : reg(frag.regs.at(r), l);
          for (uint32_t h = 0; h < (half ? 2u : 1u); ++h) {
            uint32_t e = half ? (l & 15) * 16 + r * 2 + h : l * 8 + r;
            uint32_t row = e / 16, col = e % 16;
            uint64_t a = base + (in.column_major ? (uint64_t{col} * stride + row) : (uint64_t{row} * stride + col)) * size;
            if (first) out.addresses.push_back(a), first = false;
            uint8_t* p = memory_at(space, a, size, w, l, in);
            if (load) {
              uint64_t v = 0;
              std::memcpy(&v, p, size);
              packed |= v << (16 * h);
            } else {
              uint64_t v = half ? (packed >> (16 * h)) & 0xffff : packed;
              std::memcpy(p, &v, size);
            }
          }
          if (load) write(w, frag.regs.at(r), l, packed);
        }
      });
      return;
    }
    case EmuOp::kNop:
      return;
    case EmuOp::kCpAsync: {
      // cp.async.{ca,cg}.shared.global [dst], [src], cp-size[, src-size]: done at once, which is
      // one valid order for an asynchronous copy (commit/wait groups then have nothing to wait for).
      const EmuOperand& dst = ops.at(0);
      const EmuOperand& src = ops.at(1);
      lanes([&](uint32_t l) {
        uint32_t size = static_cast<uint32_t>(read(w, ops.at(2), l));
        uint32_t from = ops.size() > 3 ? static_cast<uint32_t>(read(w, ops[3], l)) : size;  // bytes read; the rest zero-filled
        uint64_t s_addr = (src.reg >= 0 ? reg(src.reg, l) : 0) + src.bits, d_addr = (dst.reg >= 0 ? reg(dst.reg, l) : 0) + dst.bits;
        out.addresses.push_back(s_addr);
        uint8_t* d = memory_at(MemSpace::kShared, d_addr, size, w, l, in);
        check_shared(w, l, d_addr, size, true, false, in);
        std::memset(d, 0, size);
        if (from) std::memcpy(d, memory_at(MemSpace::kGlobal, s_addr, std::min(from, size), w, l, in), std::min(from, size));
      });
      return;
    }
    case EmuOp::kLdmatrix: {
      // ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16: lanes 8i..8i+7 give the row addresses
      // of matrix i; lane l receives, in its i-th register, row l/4, columns 2(l%4) and 2(l%4)+1
      // of matrix i (with .trans: column l/4 of rows 2(l%4) and 2(l%4)+1), 16 bits each.
      const EmuOperand& addr = ops.at(1);
      std::array<uint64_t, 32> row_address{};
      for (uint32_t l = 0; l < 32; ++l) row_address[l] = (addr.reg >= 0 ? reg(addr.reg, l) : 0) + addr.bits;
      lanes([&](uint32_t l) { out.addresses.push_back(row_address[l % (8 * in.matrices)]); });
      const auto& d = ops.at(0).regs;
      lanes([&](uint32_t l) {
        for (uint32_t m = 0; m < in.matrices; ++m) {
          uint64_t packed = 0;
          for (uint32_t h = 0; h < 2; ++h) {
            uint32_t row = l / 4, col = 2 * (l % 4) + h;
            if (in.transpose) std::swap(row, col);
            uint64_t a = row_address[8 * m + row] + 2 * col;
            uint16_t v;
            std::memcpy(&v, memory_at(MemSpace::kShared, a, 2, w, l, in), 2);
            check_shared(w, l, a, 2, false, false, in);
            packed |= uint64_t{v} << (16 * h);
          }
          write(w, d.at(m), l, packed);
        }
      });
      return;
    }
    case EmuOp::kMma: {
      if (in.mma_k == 32) {
        mma_m16n8k32(w, in);
        return;
      }
      // PTX ISA fragment layouts for mma.m16n8k16 / m16n8k8 (.f16/.bf16 inputs, .f32 accumulators),
      // with group = lane / 4 and t = lane % 4:
      //   A element i of a lane: row = group + 8 * ((i / 2) % 2), col = 2t + i % 2 + 8 * (i / 4)
      //   B element i:           row = 2t + i % 2 + 8 * (i / 2),  col = group
      //   C/D element i:         row = group + 8 * (i / 2),       col = 2t + i % 2
      // Two 16-bit elements share a register, the lower-numbered in the low half.
      const uint32_t K = in.mma_k;
      float a[16][16] = {}, b[16][8] = {}, c[16][8] = {};
      auto to_float = [&](uint16_t h) { return in.bf16 ? std::bit_cast<float>(uint32_t{h} << 16) : half_to_float(h); };
      const auto& fa = ops.at(1).regs;
      const auto& fb = ops.at(2).regs;
      const auto& fc = ops.at(3).regs;
      // TF32 m16n8k8 holds one element per register: A element i at row group + 8 (i % 2), col
      // t + 4 (i / 2); B element i at row t + 4i, col group. The 13 low mantissa bits of a TF32
      // operand are not used by the hardware (PTX ISA); the emulator truncates them (assumed: the
      // ISA leaves the rounding of an FP32 value passed as TF32 unspecified).
      auto tf32 = [&](uint64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) & 0xffffe000u); };
      for (uint32_t l = 0; l < 32 && in.tf32; ++l) {
        const uint32_t g = l / 4, t = l % 4;
        for (uint32_t i = 0; i < 4; ++i) a[g + 8 * (i % 2)][t + 4 * (i / 2)] = tf32(reg(fa.at(i), l));
        for (uint32_t i = 0; i < 2; ++i) b[t + 4 * i][g] = tf32(reg(fb.at(i), l));
        for (uint32_t i = 0; i < 4; ++i) c[g + 8 * (i / 2)][2 * t + i % 2] = std::bit_cast<float>(static_cast<uint32_t>(reg(fc.at(i), l)));
      }
      for (uint32_t l = 0; l < 32 && !in.tf32; ++l) {
        const uint32_t g = l / 4, t = l % 4;
        for (uint32_t i = 0; i < K / 2; ++i) {  // 8 A elements for k16, 4 for k8
          uint16_t h = static_cast<uint16_t>(reg(fa.at(i / 2), l) >> (16 * (i % 2)));
          a[g + 8 * ((i / 2) % 2)][2 * t + i % 2 + 8 * (i / 4)] = to_float(h);
        }
        for (uint32_t i = 0; i < K / 4; ++i) {  // 4 B elements for k16, 2 for k8
          uint16_t h = static_cast<uint16_t>(reg(fb.at(i / 2), l) >> (16 * (i % 2)));
          b[2 * t + i % 2 + 8 * (i / 2)][g] = to_float(h);
        }
        for (uint32_t i = 0; i < 4; ++i) c[g + 8 * (i / 2)][2 * t + i % 2] = std::bit_cast<float>(static_cast<uint32_t>(reg(fc.at(i), l)));
      }
      const auto& fd = ops.at(0).regs;
      for (uint32_t l = 0; l < 32; ++l) {
        const uint32_t g = l / 4, t = l % 4;
        for (uint32_t i = 0; i < 4; ++i) {
          uint32_t row = g + 8 * (i / 2), col = 2 * t + i % 2;
          float acc = c[row][col];
          for (uint32_t k = 0; k < K; ++k) acc = std::fmaf(a[row][k], b[k][col], acc);
          write(w, fd.at(i), l, std::bit_cast<uint32_t>(acc));
        }
      }
      return;
    }
    case EmuOp::kWmmaMma: {
      float a[16][16], b[16][16], c[16][16];
      const auto& fa = ops.at(1).regs;
      const auto& fb = ops.at(2).regs;
      const auto& fc = ops.at(3).regs;
      for (uint32_t l = 0; l < 32; ++l) {
        for (uint32_t r = 0; r < 8; ++r) {
          for (uint32_t h = 0; h < 2 && l < 16; ++h) {
            uint32_t e = l * 16 + r * 2 + h;
            a[e / 16][e % 16] = half_to_float(static_cast<uint16_t>(reg(fa.at(r), l) >> (16 * h)));
            b[e / 16][e % 16] = half_to_float(static_cast<uint16_t>(reg(fb.at(r), l) >> (16 * h)));
          }
          uint32_t e = l * 8 + r;
          c[e / 16][e % 16] = std::bit_cast<float>(static_cast<uint32_t>(reg(fc.at(r), l)));
        }
      }
      const auto& fd = ops.at(0).regs;
      for (uint32_t l = 0; l < 32; ++l) {
        for (uint32_t r = 0; r < 8; ++r) {
          uint32_t e = l * 8 + r, i = e / 16, j = e % 16;
          float acc = c[i][j];
          for (uint32_t k = 0; k < 16; ++k) acc = std::fmaf(a[i][k], b[k][j], acc);
          write(w, fd.at(r), l, std::bit_cast<uint32_t>(acc));
        }
      }
      return;
    }
    default:
      break;
  }

  // Arithmetic and logic, one lane at a time.
  const EmuOp code = in.code;
  const int32_t d = dst_reg();
  lanes([&](uint32_t l) {
    auto arg = [&](size_t i) { return read(w, ops[i], l); };
    uint64_t r = 0;
    if (type.bits == 16 && (type.kind == 'f' || type.kind == 'h')) {
      // Half precision, one or two packed elements, each computed in float and rounded back.
      const bool brain = type.kind == 'h';
      for (uint32_t e = 0; e < type.packed; ++e) {
        auto f = [&](size_t i) { return static_cast<float>(as_float(arg(i) >> (16 * e), 16, brain)); };
        float x = 0;
        switch (code) {
          case EmuOp::kAdd: x = f(1) + f(2); break;
          case EmuOp::kSub: x = f(1) - f(2); break;
          case EmuOp::kMul: x = f(1) * f(2); break;
          case EmuOp::kFma: case EmuOp::kMad: x = std::fmaf(f(1), f(2), f(3)); break;
          case EmuOp::kMin: x = std::fmin(f(1), f(2)); break;
          case EmuOp::kMax: x = std::fmax(f(1), f(2)); break;
          case EmuOp::kAbs: x = std::fabs(f(1)); break;
          case EmuOp::kNeg: x = -f(1); break;
          case EmuOp::kEx2: x = std::exp2(f(1)); break;
          case EmuOp::kRcp: x = 1.0f / f(1); break;
          case EmuOp::kSqrt: x = std::sqrt(f(1)); break;
          default: fault(in, w, l, "the emulator has no half-precision form of this instruction");
        }
        r |= from_float(x, 16, brain) << (16 * e);
      }
    } else if (type.kind == 'f') {
      auto f = [&](size_t i) { return as_float(arg(i), type.bits); };
      double x = 0;
      switch (code) {
        case EmuOp::kAdd: x = f(1) + f(2); break;
        case EmuOp::kSub: x = f(1) - f(2); break;
        case EmuOp::kMul: x = f(1) * f(2); break;
        case EmuOp::kDiv: x = f(1) / f(2); break;
        case EmuOp::kFma:
        case EmuOp::kMad:
          x = type.bits == 64 ? std::fma(f(1), f(2), f(3))
                              : static_cast<double>(std::fmaf(static_cast<float>(f(1)), static_cast<float>(f(2)), static_cast<float>(f(3))));
          break;
        case EmuOp::kMin: x = std::fmin(f(1), f(2)); break;
        case EmuOp::kMax: x = std::fmax(f(1), f(2)); break;
        case EmuOp::kAbs: x = std::fabs(f(1)); break;
        case EmuOp::kNeg: x = -f(1); break;
        case EmuOp::kSqrt: x = std::sqrt(f(1)); break;
        case EmuOp::kRsqrt: x = 1.0 / std::sqrt(f(1)); break;
        case EmuOp::kRcp: x = 1.0 / f(1); break;
        case EmuOp::kEx2: x = std::exp2(f(1)); break;
        case EmuOp::kLg2: x = std::log2(f(1)); break;
        case EmuOp::kSin: x = std::sin(f(1)); break;
        case EmuOp::kCos: x = std::cos(f(1)); break;
        default: fault(in, w, l, "the emulator has no float form of this instruction");
      }
      if (type.bits == 32) x = static_cast<float>(x);  // round each operation to single precision
      r = from_float(x, type.bits);
    } else {
      const uint32_t bits = type.bits;
      const bool sg = type.kind == 's';
      auto u = [&](size_t i) { return mask_bits(arg(i), bits); };
      auto si = [&](size_t i) { return as_signed(arg(i), bits); };
      switch (code) {
        case EmuOp::kAdd: r = u(1) + u(2); break;
        case EmuOp::kSub: r = u(1) - u(2); break;
        case EmuOp::kMul:
        case EmuOp::kMad:
          if (in.wide) {
            r = sg ? static_cast<uint64_t>(si(1) * si(2)) : u(1) * u(2);
          } else if (in.hi) {
            __int128_t p = sg ? static_cast<__int128_t>(si(1)) * si(2) : static_cast<__int128_t>(static_cast<__uint128_t>(u(1)) * u(2));
            r = static_cast<uint64_t>(p >> bits);
          } else {
            r = u(1) * u(2);
          }
          if (code == EmuOp::kMad) r += in.wide ? arg(3) : u(3);
          break;
        case EmuOp::kDiv: r = u(2) == 0 ? ~0ull : sg ? static_cast<uint64_t>(si(1) / si(2)) : u(1) / u(2); break;
        case EmuOp::kRem: r = u(2) == 0 ? u(1) : sg ? static_cast<uint64_t>(si(1) % si(2)) : u(1) % u(2); break;
        case EmuOp::kMin: r = sg ? static_cast<uint64_t>(std::min(si(1), si(2))) : std::min(u(1), u(2)); break;
        case EmuOp::kMax: r = sg ? static_cast<uint64_t>(std::max(si(1), si(2))) : std::max(u(1), u(2)); break;
        case EmuOp::kAbs: r = static_cast<uint64_t>(std::llabs(si(1))); break;
        case EmuOp::kNeg: r = static_cast<uint64_t>(-si(1)); break;
        case EmuOp::kAnd: r = u(1) & u(2); break;
        case EmuOp::kOr: r = u(1) | u(2); break;
        case EmuOp::kXor: r = u(1) ^ u(2); break;
        case EmuOp::kNot: r = ~u(1); break;
        case EmuOp::kShl: r = u(2) >= bits ? 0 : u(1) << u(2); break;
        case EmuOp::kShr: {
          uint64_t n = std::min<uint64_t>(u(2), bits);
          r = sg ? static_cast<uint64_t>(si(1) >> std::min<uint64_t>(n, 63)) : (n >= bits ? 0 : u(1) >> n);
          break;
        }
        case EmuOp::kBfe: {  // bfe d, a, pos, len: a field of a, sign-extended for .s types
          uint64_t pos = arg(2) & 0xff, len = arg(3) & 0xff;
          uint64_t field = (len == 0 || pos >= bits) ? 0 : (u(1) >> pos) & (len >= 64 ? ~0ull : (1ull << len) - 1);
          if (sg && len > 0 && len < 64 && pos < bits && (field >> (std::min<uint64_t>(len, bits - pos) - 1) & 1)) field |= ~0ull << std::min<uint64_t>(len, bits - pos);
          r = field;
          break;
        }
        case EmuOp::kBfi: {  // bfi d, a, b, pos, len: b with a's low len bits put at pos
          uint64_t pos = arg(3) & 0xff, len = arg(4) & 0xff;
          uint64_t mask = (len >= 64 ? ~0ull : (1ull << len) - 1);
          r = pos >= bits ? u(2) : (u(2) & ~(mask << pos)) | ((u(1) & mask) << pos);
          break;
        }
        case EmuOp::kPopc: r = static_cast<uint64_t>(std::popcount(u(1))); break;
        case EmuOp::kClz: r = static_cast<uint64_t>(std::countl_zero(u(1)) - (64 - static_cast<int>(bits))); break;
        case EmuOp::kBrev: {
          uint64_t v = u(1), o = 0;
          for (uint32_t i = 0; i < bits; ++i) o |= ((v >> i) & 1) << (bits - 1 - i);
          r = o;
          break;
        }
        default: fault(in, w, l, "the emulator has no integer form of this instruction");
      }
      if (type.kind == 'p') r &= 1;
    }
    write(w, d, l, r);
  });
}

}  // namespace warpsim::ptx
