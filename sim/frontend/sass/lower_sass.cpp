// The lowering's driver: registers, operands, the constant banks, and each instruction handed to
// the family that knows its opcode.
#include "frontend/sass/lower_sass.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "frontend/accelsim/sass_opcodes.h"
#include "frontend/ptx/function_addresses.h"
#include "frontend/ptx/inst_decode.h"
#include "frontend/ptx/register_file.h"
#include "frontend/sass/sass_lowering.h"
#include "frontend/sass/sass_pipes.h"

namespace warpsim::sass {

using ptx::EmuInst;
using ptx::EmuOp;
using ptx::EmuOperand;

namespace {
// Constant banks in the program's one constant image: bank 0 (the launch: its shape, the stack,
// the parameters) first, bank 3 (the module's __constant__ data) after it. Each is at most 64 KiB.
constexpr uint32_t kBankBytes = 0x10000;
}  // namespace

uint32_t reserved_shared_bytes(uint32_t compute_capability) { return compute_capability >= 90 ? 0x400 : 0; }

SassLowering::SassLowering(const SassListing& listing, const SassFunction& f, const SassLaunch& launch)
    : listing_(listing), f_(f), launch_(launch) {}

bool SassLowering::has(const char* mod) const {
  for (const auto& m : mods_)
    if (m == mod) return true;
  return false;
}

const SassOperand& SassLowering::op(size_t i) const {
  if (i >= ops_.size()) fail(opcode() + " takes more operands than the " + std::to_string(ops_.size()) + " given");
  return ops_[i];
}

void SassLowering::fail(const std::string& why) const {
  throw InputError(SourceLocation{listing_.file, in_ ? in_->line : f_.line, in_ ? in_->column : 1}, why);
}

uint32_t SassLowering::constant_base(uint32_t bank) const {
  if (bank == 0) return 0;
  if (bank == 3) return kBankBytes;
  if (bank == 4) return 2 * kBankBytes;
  if (bank == 2 && listing_.kernel_constants.count(f_.name)) return 3 * kBankBytes;
  fail("constant bank " + std::to_string(bank) + " is not one the emulator fills (bank 0: the launch and its parameters; bank 2: the kernel's own constants, " +
       (bank == 2 ? "which the listing has none of for " + f_.name : std::string("when the listing has them")) + "; bank 3: __constant__ data; bank 4: addresses)");
}

// Bank 0 as the driver fills it for these kernels: blockDim at 0x0, gridDim at 0xc, the local
// window at 0x20, the initial stack pointer at 0x28 (each thread's local memory is its own, so
// any address above the deepest frame works), the parameters where EIATTR_PARAM_CBANK puts them. The other words the listings
// read (the global memory descriptor at 0x208 on sm_90, 0x118 on sm_80) the emulator ignores.
void SassLowering::build_constant_image() {
  std::vector<uint8_t>& image = p_.constant_bank;
  uint32_t slots = 0;
  for (const auto& [offset, name] : listing_.address_slots) slots = std::max(slots, offset + 8);
  const auto own = listing_.kernel_constants.find(f_.name);
  image.assign(own == listing_.kernel_constants.end() ? 2 * kBankBytes + slots : 3 * kBankBytes + own->second.size(), 0);
  if (own != listing_.kernel_constants.end()) std::copy(own->second.begin(), own->second.end(), image.begin() + 3 * kBankBytes);
  auto put32 = [&](uint32_t at, uint32_t v) { std::memcpy(&image[at], &v, 4); };
  const Dim3& b = launch_.block;
  const Dim3& g = launch_.grid;
  put32(0x0, b.x), put32(0x4, b.y), put32(0x8, b.z);
  put32(0xc, g.x), put32(0x10, g.y), put32(0x14, g.z);
  put32(0x28, 0x10000 + f_.frame_bytes);
  // The generic address of local memory at 0x20 (low word) and 0x24: ptxas adds it to the stack
  // pointer where a local address escapes as a generic pointer (printf's argument buffer, an
  // object on the stack whose method is called through a pointer).
  put32(0x20, static_cast<uint32_t>(ptx::kGenericLocalBase)), put32(0x24, static_cast<uint32_t>(ptx::kGenericLocalBase >> 32));
  // The cluster, where ptxas reads it from (its SASS for traces/kernels/cluster.cu and
  // async_store.cu): %is_explicit_cluster at 0x140 (barrier.cluster becomes UCGABAR when it is
  // 1, a CTA barrier when not) and %cluster_nctarank at 0x188.
  put32(0x140, launch_.explicit_cluster ? 1 : 0);
  put32(0x188, launch_.cluster.x * launch_.cluster.y * launch_.cluster.z);
  // %envreg1 and %envreg2, the high and low words of a cooperative launch's grid-barrier
  // workspace, at 0x40 + 4n on Hopper and 0x88 + 4n on Ampere (ptxas's SASS for grid_sync.cu
  // reads c[0x0][0x44] and [0x48], or [0x8c] and [0x90], where its PTX reads them).
  const uint32_t envregs = launch_.compute_capability >= 90 ? 0x40 : 0x88;
  put32(envregs + 4, static_cast<uint32_t>(launch_.grid_workspace >> 32)), put32(envregs + 8, static_cast<uint32_t>(launch_.grid_workspace));
  // The generic address of the parameters (cvta.param's base, ptxas's SASS for tma_*.cu reads it
  // at 0x198): the emulator's parameter space starts at 0.
  put32(0x198, 0), put32(0x19c, 0);
  if (f_.param_offset + std::max<uint64_t>(f_.param_bytes, launch_.params.size()) > kBankBytes) fail("the parameters do not fit in constant bank 0");
  if (!f_.param_places.empty() && !launch_.param_fields.empty()) {
    // Each parameter where the listing puts it.
    if (f_.param_places.size() != launch_.param_fields.size()) {
      fail("the kernel's listing has " + std::to_string(f_.param_places.size()) + " parameters (EIATTR_KPARAM_INFO), its PTX " +
           std::to_string(launch_.param_fields.size()) + " (is the listing compiled from another PTX?)");
    }
    uint32_t ordinal = 0;
    for (const auto& [offset, bytes] : launch_.param_fields) {
      const auto place = f_.param_places.find(ordinal++);
      if (place == f_.param_places.end() || place->second + bytes > f_.param_bytes || offset + bytes > launch_.params.size()) {
        fail("parameter " + std::to_string(ordinal - 1) + " (" + std::to_string(bytes) + " bytes) has no place in the listing's " +
             std::to_string(f_.param_bytes) + " bytes of parameters (is the listing compiled from another PTX?)");
      }
      std::copy_n(launch_.params.begin() + static_cast<ptrdiff_t>(offset), bytes, image.begin() + f_.param_offset + place->second);
    }
    p_.sass_params.assign(image.begin() + f_.param_offset, image.begin() + f_.param_offset + f_.param_bytes);
  } else {
    if (f_.param_bytes && launch_.params.size() < f_.param_bytes) {
      fail("the kernel's " + std::to_string(f_.param_bytes) + " bytes of parameters (EIATTR_PARAM_CBANK) are more than the launch's " +
           std::to_string(launch_.params.size()) + " (is the listing compiled from another PTX?)");
    }
    std::copy(launch_.params.begin(), launch_.params.end(), image.begin() + f_.param_offset);
  }
  if (launch_.constants.size() > kBankBytes) fail("__constant__ data beyond 64 KiB");
  std::copy(launch_.constants.begin(), launch_.constants.end(), image.begin() + kBankBytes);
  // Bank 4: the addresses of __device__ variables, of the CUDA runtime's functions (a CALL.ABS
  // through them runs the emulator's own) and of the module's functions.
  for (const auto& [offset, name] : listing_.address_slots) {
    uint64_t address = 0;
    if (const auto it = launch_.addresses.find(name); it != launch_.addresses.end()) address = it->second;
    else if (const ptx::RuntimeFunction r = ptx::runtime_function_named(name); r != ptx::RuntimeFunction::kNone) address = ptx::runtime_function_address(r);
    else if (const auto fn = launch_.functions.find(name); fn != launch_.functions.end()) address = fn->second;
    std::memcpy(&image[2 * kBankBytes + offset], &address, 8);
  }
}

uint64_t SassLowering::constant(uint32_t bank, int64_t offset, uint32_t bytes) const {
  const uint64_t at = constant_base(bank) + static_cast<uint64_t>(offset);
  if (offset < 0 || offset + bytes > kBankBytes || at + bytes > p_.constant_bank.size()) {
    fail("c[" + std::to_string(bank) + "][" + std::to_string(offset) + "] lies outside the constant bank");
  }
  uint64_t v = 0;
  std::memcpy(&v, &p_.constant_bank[at], bytes);
  return v;
}

int32_t SassLowering::reg_id(SassReg r) {
  if (r.zero()) return -1;
  const auto key = std::make_pair(static_cast<int>(r.file), r.index);
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  const auto id = static_cast<int32_t>(p_.register_names.size());
  static const char* const kPrefix[] = {"", "R", "UR", "P", "UP", "B"};
  p_.register_names.push_back(kPrefix[static_cast<int>(r.file)] + std::to_string(r.index));
  p_.register_bits.push_back(r.file == RegFile::kP || r.file == RegFile::kUP ? 1 : 32);
  ids_[key] = id;
  return id;
}

int32_t SassLowering::hidden(const std::string& name, uint32_t bits) {
  if (auto it = hidden_.find(name); it != hidden_.end()) return it->second;
  const auto id = static_cast<int32_t>(p_.register_names.size());
  p_.register_names.push_back(name);
  p_.register_bits.push_back(bits);
  hidden_[name] = id;
  return id;
}

EmuOperand SassLowering::immediate(uint64_t bits) const {
  EmuOperand e;
  e.kind = EmuOperand::Kind::kImm;
  e.bits = bits;
  return e;
}

uint64_t SassLowering::control_immediate(size_t i) const {
  const SassOperand& o = op(i);
  if (o.kind != SassOperand::Kind::kImm || o.is_float_text) fail("operand " + std::to_string(i + 1) + " of " + opcode() + " must be an integer, got '" + o.text + "'");
  return static_cast<uint64_t>(o.value);
}

EmuOperand SassLowering::registers(SassReg first, uint32_t count, bool written) {
  EmuOperand e;
  e.kind = EmuOperand::Kind::kVector;
  for (uint32_t k = 0; k < count; ++k) {
    if (first.zero()) {
      // RZ read as a run (a fragment, a pair): a register nothing writes, so that code reading
      // the run's registers directly (the MMAs' fragment gathers) reads zeros.
      e.regs.push_back(written ? -1 : hidden("zero", 32));
      e.immediates.push_back(0);
      continue;
    }
    const SassReg r{first.file, first.index + k};
    if ((r.file == RegFile::kR && r.index >= 255) || (r.file == RegFile::kUR && r.index >= 63)) fail("a register run past the last register");
    e.regs.push_back(reg_id(r));
    e.immediates.push_back(0);
  }
  return e;
}

EmuOperand SassLowering::source(size_t i, Slot slot) {
  const SassOperand& o = op(i);
  EmuOperand e;
  switch (o.kind) {
    case SassOperand::Kind::kReg: {
      if (o.reg.file == RegFile::kP || o.reg.file == RegFile::kUP) {
        if (o.reg.zero()) return immediate(o.invert ? 0 : 1);
        e.kind = EmuOperand::Kind::kReg;
        e.reg = reg_id(o.reg);
        e.negated = o.invert;
        return e;
      }
      if (o.reg.file == RegFile::kB) fail("a convergence barrier register is not a value here");
      if (slot == Slot::kPair || slot == Slot::kDoubleHigh) {
        e = registers(o.reg, 2, false);
      } else if (o.reg.zero()) {
        e = immediate(0);
      } else {
        e.kind = EmuOperand::Kind::kReg;
        e.reg = reg_id(o.reg);
      }
      break;
    }
    case SassOperand::Kind::kImm: {
      // The instruction's data immediate lives in bits 32-63 of its encoding, exactly as the
      // hardware reads it (a printed float need not round-trip; FSEL's -QNAN is 0xfff00000).
      const uint64_t raw = (data_immediates_++ == 0) ? inst().low >> 32 : static_cast<uint64_t>(o.value) & 0xffffffffu;
      e = immediate(slot == Slot::kDoubleHigh ? raw << 32 : slot == Slot::kPair ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(raw))) : raw);
      break;
    }
    case SassOperand::Kind::kConst: {
      if (o.reg.valid() && !o.reg.zero()) {
        // c[bank][Rn + offset] as a source: read from the constant image when the lane runs
        // (EmuOperand::Kind::kAddr in a source position; sass_execute.cpp).
        if (slot == Slot::kPair || slot == Slot::kDoubleHigh) fail("a 64-bit indexed constant source is not supported yet");
        e.kind = EmuOperand::Kind::kAddr;
        e.sass_address = true;
        e.address32 = true;
        e.bits = constant_base(o.bank) + static_cast<uint64_t>(o.value);
        (o.reg.file == RegFile::kUR ? e.uniform : e.reg) = reg_id(o.reg);
        break;
      }
      const uint32_t bytes = slot == Slot::kPair || slot == Slot::kDoubleHigh ? 8 : 4;
      e = immediate(constant(o.bank, o.value, bytes));
      break;
    }
    case SassOperand::Kind::kSpecial: {
      if (o.name == "SRZ") return immediate(0);
      if (o.name == "SR_SWINHI") return immediate(ptx::kGenericSharedBase >> 32);  // the generic window of shared memory
      static const std::map<std::string, std::pair<ptx::Special, uint8_t>> kSpecials = {
          {"SR_TID.X", {ptx::Special::kTid, 0}},       {"SR_TID.Y", {ptx::Special::kTid, 1}},       {"SR_TID.Z", {ptx::Special::kTid, 2}},
          {"SR_CTAID.X", {ptx::Special::kCtaid, 0}},   {"SR_CTAID.Y", {ptx::Special::kCtaid, 1}},   {"SR_CTAID.Z", {ptx::Special::kCtaid, 2}},
          {"SR_LANEID", {ptx::Special::kLaneid, 0}},   {"SR_CgaCtaId", {ptx::Special::kClusterCtarank, 0}},
          {"SR_LTMASK", {ptx::Special::kLanemaskLt, 0}}, {"SR_LEMASK", {ptx::Special::kLanemaskLe, 0}},
          {"SR_GTMASK", {ptx::Special::kLanemaskGt, 0}}, {"SR_GEMASK", {ptx::Special::kLanemaskGe, 0}},
          {"SR_EQMASK", {ptx::Special::kLanemaskEq, 0}}, {"SR_CLOCKLO", {ptx::Special::kClock, 0}},
          {"SR_GLOBALTIMERLO", {ptx::Special::kClock, 0}}, {"SR_SMID", {ptx::Special::kSmid, 0}},
          {"SR_VIRTUALSMID", {ptx::Special::kSmid, 0}}, {"SR_WARPID", {ptx::Special::kWarpid, 0}}};
      const auto it = kSpecials.find(o.name);
      if (it == kSpecials.end()) fail("special register " + o.name + " is not one the emulator knows");
      e.kind = EmuOperand::Kind::kSpecial;
      e.special = it->second.first;
      e.dim = it->second.second;
      return e;
    }
    default:
      fail("operand " + std::to_string(i + 1) + " of " + opcode() + " ('" + o.text + "') is not a value");
  }
  e.sass_mods = static_cast<uint8_t>((o.negate ? kModNeg : 0) | (o.absolute ? kModAbs : 0) | (o.invert ? kModNot : 0));
  if (o.selector == "H0_H0") e.sass_mods |= kModH0;
  else if (o.selector == "H1_H1") e.sass_mods |= kModH1;
  else if (o.selector == "H1") e.sass_mods |= kModH1Only;
  return e;
}

EmuOperand SassLowering::result(size_t i, uint32_t words) {
  const SassOperand& o = op(i);
  if (o.kind != SassOperand::Kind::kReg || o.reg.file == RegFile::kB) fail("operand " + std::to_string(i + 1) + " of " + opcode() + " must be a register");
  EmuOperand e;
  if (words > 1) return registers(o.reg, words, true);
  if (o.reg.zero()) {
    e.kind = EmuOperand::Kind::kSink;
    return e;
  }
  e.kind = EmuOperand::Kind::kReg;
  e.reg = reg_id(o.reg);
  return e;
}

EmuOperand SassLowering::address(size_t i) {
  const SassOperand& o = op(i);
  if (o.kind != SassOperand::Kind::kAddress) fail("operand " + std::to_string(i + 1) + " of " + opcode() + " must be an address, got '" + o.text + "'");
  EmuOperand e;
  e.kind = EmuOperand::Kind::kAddr;
  e.sass_address = true;
  e.bits = static_cast<uint64_t>(o.value);
  e.scale = o.scale;
  if (o.reg.valid() && !o.reg.zero()) {
    e.reg = reg_id(o.reg);
    if (o.wide) e.reg_hi = reg_id(SassReg{o.reg.file, o.reg.index + 1});
  }
  if (o.uniform.valid() && !o.uniform.zero()) {
    e.uniform = reg_id(o.uniform);
    if (o.wide && !o.reg.valid()) e.uniform_hi = reg_id(SassReg{o.uniform.file, o.uniform.index + 1});
  }
  e.address32 = !o.wide;
  // Every address but a thread's local memory's may name shared memory, by CTA rank in bits
  // 24-31 (global addresses lie outside the shared window, where nothing is changed).
  e.cluster_window = base() != "LDL" && base() != "STL";
  return e;
}

uint32_t SassLowering::target_of(size_t i) const {
  const SassOperand& o = op(i);
  if (o.kind != SassOperand::Kind::kLabel) fail("operand " + std::to_string(i + 1) + " of " + opcode() + " must be a label");
  const auto it = f_.labels.find(o.name);
  if (it == f_.labels.end()) fail("no label '" + o.name + "' in " + f_.name);
  return it->second / 16;
}

void SassLowering::as_ptx(EmuInst& e, const std::string& mnemonic, std::vector<EmuOperand> operands) {
  std::string error;
  if (!decode_mnemonic(mnemonic, e.op, error)) fail("internal: " + opcode() + " lowered to '" + mnemonic + "': " + error);
  ptx::set_mnemonic(e, mnemonic);
  e.operands = std::move(operands);
  ptx::decode_operation(e);
}

EmuInst SassLowering::lower(const SassInstruction& in) {
  in_ = &in;
  ops_.clear();
  data_immediates_ = 0;
  for (size_t i = 0; i < in.operands.size(); ++i) {
    std::string why;
    auto o = parse_operand(in.operands[i], why);
    if (!o) fail("operand " + std::to_string(i + 1) + " of " + in.opcode + ": " + why);
    ops_.push_back(std::move(*o));
  }
  mods_.clear();
  const size_t dot = in.opcode.find('.');
  base_ = in.opcode.substr(0, dot);
  for (size_t at = dot; at != std::string::npos;) {
    const size_t next = in.opcode.find('.', at + 1);
    mods_.push_back(in.opcode.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1));
    at = next;
  }
  EmuInst e;
  e.line = in.line;
  e.source_line = in.source_line;
  e.source_file = in.source_file;
  e.control = in.control().pack();
  if (!in.guard.empty()) {
    const bool negated = in.guard[0] == '!';
    const SassReg g = parse_register(negated ? in.guard.substr(1) : in.guard);
    if (g.file != RegFile::kP && g.file != RegFile::kUP) fail("the guard @" + in.guard + " is not a predicate");
    if (g.zero()) {
      if (negated) e.guard = hidden("never", 1);  // @!PT: a predicate that stays false
    } else {
      e.guard = reg_id(g);
      e.guard_negated = negated;
    }
  }
  if (!(lower_flow(e) || lower_arithmetic(e) || lower_memory(e) || lower_warp(e) || lower_async(e) || lower_warpgroup(e) || lower_texture(e))) {
    fail("the SASS emulator cannot run " + in.opcode + " yet (run with --isa ptx, or --isa auto to fall back to the PTX)");
  }
  finish(e);
  return e;
}

// The timing model's view: the SASS opcode's pipe (for the instructions lowered to a PTX one,
// that one's, which describes the same access), the opcode as the name, and the registers the
// scoreboard tracks.
void SassLowering::finish(EmuInst& e) {
  const bool own = e.code == EmuOp::kSass || e.code == EmuOp::kSassFlow || e.code == EmuOp::kSassVote || e.code == EmuOp::kNop ||
                   e.code == EmuOp::kMembar || e.code == EmuOp::kSassRuntimeCall;
  if (own) {
    const SassMapping m = map_sass_opcode(inst().opcode, 0, compute_capability());
    std::string error;
    if (!decode_mnemonic(m.mnemonic, e.op, error)) fail("internal: " + inst().opcode + " timed as '" + m.mnemonic + "': " + error);
    e.dsts.clear(), e.srcs.clear();
    for (size_t i = 0; i < e.operands.size(); ++i) {
      const EmuOperand& o = e.operands[i];
      const bool written = i < e.sass_results;
      auto add = [&](int32_t r) {
        if (r >= 0) (written ? e.dsts : e.srcs).push_back(static_cast<RegId>(r));
      };
      if (o.kind == EmuOperand::Kind::kReg) add(o.reg);
      if (o.kind == EmuOperand::Kind::kVector)
        for (int32_t r : o.regs) add(r);
    }
    if (e.guard >= 0) e.srcs.push_back(static_cast<RegId>(e.guard));
    e.timing_regs = e.dsts;
    e.timing_regs.insert(e.timing_regs.end(), e.srcs.begin(), e.srcs.end());
  }
  // Address registers beyond the base (the pair's high word, the uniform addend) are read too.
  for (const EmuOperand& o : e.operands) {
    if (!o.sass_address) continue;
    for (int32_t r : {o.reg_hi, o.uniform, o.uniform_hi})
      if (r >= 0) e.srcs.push_back(static_cast<RegId>(r)), e.timing_regs.push_back(static_cast<RegId>(r));
  }
  // Arithmetic runs on the pipe its opcode counts on; memory, tensor and control instructions
  // keep the unit that times them (the LSU's queues, the tensor pipe's rate, the branch unit).
  const Pipe counted = counted_pipe(inst(), compute_capability());
  if (counted != Pipe::kCount) e.op.counted_pipe = counted;
  const bool arithmetic = e.op.op_class == OpClass::kFp32 || e.op.op_class == OpClass::kFp16 || e.op.op_class == OpClass::kFp64 ||
                          e.op.op_class == OpClass::kInt || e.op.op_class == OpClass::kSpecial || e.op.op_class == OpClass::kConvert ||
                          e.op.op_class == OpClass::kMove;
  if (arithmetic && (counted == Pipe::kFma || counted == Pipe::kAlu || counted == Pipe::kFp16 || counted == Pipe::kFp64 || counted == Pipe::kXu))
    e.op.pipe = counted;
  e.op.mnemonic = inst().opcode;
  e.op.from_sass = true;
  e.opcode = inst().opcode;
  // A generic access times as the space its addresses turn out to name; each of those counts on
  // the opcode's pipe too.
  if (e.space_ops) {
    auto ops = std::make_shared<std::array<OpInfo, 3>>(*e.space_ops);
    for (OpInfo& o : *ops) {
      if (counted != Pipe::kCount) o.counted_pipe = counted;
      o.mnemonic = inst().opcode;
      o.from_sass = true;
    }
    e.space_ops = std::move(ops);
  }
}

ptx::Program SassLowering::run() {
  p_.name = f_.name;
  p_.sass = true;
  build_constant_image();
  for (const SassInstruction& in : f_.insts) p_.insts.push_back(lower(in));
  in_ = nullptr;
  for (EmuInst& in : p_.insts) in.register_only = ptx::keeps_to_registers(in), in.grid_register_only = ptx::keeps_to_grid(in);
  p_.storage_bits = p_.register_bits;
  p_.register_slots = ptx::register_slots(p_.storage_bits, p_.register_words);
  p_.async_copy_reg_base = static_cast<RegId>(p_.register_names.size());
  p_.static_shared_bytes = reserved_shared_bytes(launch_.compute_capability) + launch_.static_shared_bytes;
  p_.dynamic_shared_offset = p_.static_shared_bytes;
  for (size_t i = 1; i < listing_.source_files.size(); ++i) p_.source_files[static_cast<uint32_t>(i)] = listing_.source_files[i];
  const std::string clone = "$" + f_.name + "$";  // ptxas's name for its copy of a function in this kernel
  for (const auto& [label, address] : f_.labels) {
    const std::string name = label.rfind(clone, 0) == 0 ? label.substr(clone.size()) : label;
    if (const auto it = launch_.functions.find(name); it != launch_.functions.end()) p_.sass_call_targets[it->second] = address / 16;
  }
  return std::move(p_);
}

ptx::Program lower_sass(const SassListing& listing, const std::string& kernel, const SassLaunch& launch) {
  const SassFunction* f = listing.find(kernel);
  if (!f) throw InputError(SourceLocation{listing.file, 0, 0}, "no kernel '" + kernel + "' in the SASS listing");
  return SassLowering(listing, *f, launch).run();
}

}  // namespace warpsim::sass
