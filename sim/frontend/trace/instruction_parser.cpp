#include "frontend/trace/instruction_parser.h"

#include <algorithm>
#include <bit>
#include <cctype>

namespace warpsim {

const OpInfo* OpcodeCache::get(std::string_view mnemonic, std::string& error) {
  auto it = ops_.find(mnemonic);
  if (it != ops_.end()) return it->second.get();
  auto info = std::make_unique<OpInfo>();
  if (!decode_mnemonic(mnemonic, *info, error)) return nullptr;
  const OpInfo* p = info.get();
  ops_.emplace(std::string(mnemonic), std::move(info));
  return p;
}

bool RegisterNames::id(std::string_view name, RegId& out) {
  auto it = ids_.find(name);
  if (it != ids_.end()) {
    out = it->second;
    return true;
  }
  if (names_.size() >= 0xffff) return false;
  out = static_cast<RegId>(names_.size());
  names_.emplace_back(name);
  ids_.emplace(std::string(name), out);
  return true;
}

void InstructionPools::resolve(WarpInst& inst) const {
  auto reg_offset = reinterpret_cast<uintptr_t>(inst.regs);
  inst.regs = regs.data() + reg_offset;
  if (inst.addr.list) inst.addr.list = addresses.data() + (reinterpret_cast<uintptr_t>(inst.addr.list) - 1);
}

namespace {

bool is_special_register(std::string_view name) {
  static constexpr std::string_view kSpecial[] = {
      "%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
      "%clock", "%clock64", "%globaltimer", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge",
      "%lanemask_gt", "%dynamic_smem_size", "%total_smem_size", "%clusterid", "%nclusterid", "%cluster_ctaid",
      "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster", "%envreg", "%pm"};
  // Every register name comes here: the first letter rules out nearly all (%r, %f, %rd) before
  // any compare.
  if (name.size() < 2) return false;
  for (auto s : kSpecial)
    if (s[1] == name[1] &&
        (name == s || (name.size() > s.size() && name.substr(0, s.size()) == s && std::isdigit(static_cast<unsigned char>(name[s.size()])))))
      return true;
  return false;
}

// ASCII letters and digits (the C locale's isalnum, without a library call per character), _ and $.
bool is_name_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '$';
}

struct OperandScan {
  std::vector<RegId> dst, src;
};

// Splits the operand text at top-level commas and files each register as a destination (first
// operand of an instruction that writes one, unless it is an address in brackets) or a source.
void scan_operands(LineCursor& c, size_t end, bool first_is_destination, RegisterNames& registers, OperandScan& out) {
  int depth = 0;
  int operand = 0;
  bool bracketed = false;
  for (size_t i = c.pos(); i < end; ++i) {
    char ch = c.text()[i];
    if (ch == '[' || ch == '{' || ch == '(') {
      if (ch == '[') bracketed = true;
      ++depth;
    } else if (ch == ']' || ch == '}' || ch == ')') {
      if (--depth < 0) c.fail_at(i, std::string("unbalanced '") + ch + "'");
    } else if (ch == ',' && depth == 0) {
      ++operand;
      bracketed = false;
    } else if (ch == '%') {
      size_t start = i++;
      while (i < end && is_name_char(c.text()[i])) ++i;
      std::string_view name = c.text().substr(start, i - start);
      if (name.size() == 1) c.fail_at(start, "expected a register name after '%'");
      if (is_special_register(name)) {
        if (i < end && c.text()[i] == '.') {  // %tid.x
          ++i;
          while (i < end && is_name_char(c.text()[i])) ++i;
        }
        --i;
        continue;
      }
      RegId id;
      if (!registers.id(name, id)) c.fail_at(start, "more than 65535 distinct registers in one kernel");
      bool is_dst = first_is_destination && operand == 0 && !bracketed;
      (is_dst ? out.dst : out.src).push_back(id);
      --i;
    }
  }
  if (depth != 0) c.fail_at(end, "unbalanced brackets in operands");
}

bool parse_signed(std::string_view s, int64_t& out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  uint64_t v = 0;
  if (!parse_u64(s, v) || v > (1ull << 62)) return false;
  out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

// bar.sync 1, 64 (and bar.arrive, bar.red after its destination) written with literals: the
// barrier and its thread count, as the PTX names them. Registers leave them to bar= and threads=.
void barrier_literals(LineCursor& c, size_t end, const OpInfo& op, WarpInst& inst) {
  std::vector<std::pair<size_t, std::string_view>> operands;  // start column, trimmed text
  for (size_t i = c.pos(), start = i; i <= end; ++i) {
    if (i < end && c.text()[i] != ',') continue;
    size_t from = start, to = i;
    while (from < to && is_space(c.text()[from])) ++from;
    while (to > from && is_space(c.text()[to - 1])) --to;
    operands.emplace_back(from, c.text().substr(from, to - from));
    start = i + 1;
  }
  const size_t first = op.writes_destination ? 1 : 0;  // bar.red's destination
  auto literal = [&](size_t k, int64_t& value) {
    return k < operands.size() && !operands[k].second.empty() && operands[k].second[0] != '%' && parse_signed(operands[k].second, value);
  };
  int64_t id = 0, threads = 0;
  if (literal(first, id)) {
    if (id < 0 || id > 15) c.fail_at(operands[first].first, "barrier " + std::to_string(id) + ": a CTA's barriers are 0 to 15 (PTX ISA)");
    inst.barrier_id = static_cast<uint8_t>(id);
  }
  if (literal(first + 1, threads)) {
    if (threads <= 0 || threads % 32 != 0 || threads > 1024) {
      c.fail_at(operands[first + 1].first, "barrier thread count " + std::to_string(threads) + ": expected a multiple of 32 from 32 to 1024");
    }
    inst.barrier_warps = static_cast<uint8_t>(threads / 32);
  }
}

// addr=BASE[+-STRIDE]  or  addr=A0,A1,...  (one per active lane, lane order)
void parse_addresses(LineCursor& c, std::string_view value, size_t value_at, const OpInfo& op, uint32_t mask,
                     WarpInst& inst, InstructionPools& pools) {
  const int lanes = std::popcount(mask);
  // A texture fetch's bytes may be two texels of a filtered row, aligned to one (OpInfo::tex_path).
  const uint64_t align = op.access_bytes && op.tex_path != TexPath::kTexture ? op.access_bytes : 1;
  // A plain loop: string_view::find_first_of calls memchr on "+-" once per character (11% of
  // a trace replay's time).
  size_t sign_at = std::string_view::npos;
  for (size_t i = 1; i < value.size(); ++i) {
    if (value[i] == '+' || value[i] == '-') {
      sign_at = i;
      break;
    }
  }
  if (value.find(',') != std::string_view::npos || sign_at == std::string_view::npos) {
    size_t first = pools.addresses.size();
    size_t start = 0;
    while (start <= value.size()) {
      // A loop, not find(): a memchr call per address of ten-odd characters cost more than the scan.
      size_t comma = start;
      while (comma < value.size() && value[comma] != ',') ++comma;
      if (comma == value.size()) comma = std::string_view::npos;
      std::string_view item = value.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      uint64_t a = 0;
      if (!parse_u64(item, a)) {
        c.fail_at(value_at + start, "expected an address (decimal or 0x hex), got '" + std::string(item) + "'");
      }
      if (a % align != 0) {
        c.fail_at(value_at + start, "address " + std::string(item) + " is not aligned to the " + std::to_string(align) + "-byte access");
      }
      pools.addresses.push_back(a);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    size_t count = pools.addresses.size() - first;
    if (count != static_cast<size_t>(lanes)) {
      c.fail_at(value_at, "expected " + std::to_string(lanes) + " addresses (one per active lane), got " + std::to_string(count) + "; BASE+STRIDE (0x1000+4, or 0x1000+0 for one shared address) covers all lanes");
    }
    inst.addr.list = reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(first + 1));
    return;
  }
  const size_t sign = sign_at;
  uint64_t base = 0;
  int64_t stride = 0;
  if (!parse_u64(value.substr(0, sign), base)) {
    c.fail_at(value_at, "expected BASE+STRIDE or a comma-separated address list, got '" + std::string(value) + "'");
  }
  if (!parse_signed(value.substr(sign), stride)) {
    c.fail_at(value_at + sign, "expected a stride such as +4 or -0x10, got '" + std::string(value.substr(sign)) + "'");
  }
  if (base % align != 0 || static_cast<uint64_t>(stride < 0 ? -stride : stride) % align != 0) {
    c.fail_at(value_at, "base and stride must be multiples of the " + std::to_string(align) + "-byte access");
  }
  inst.addr.base = base;
  inst.addr.stride = stride;
}

bool needs_addresses(const OpInfo& op) {
  bool memory_class = op.op_class == OpClass::kLoad || op.op_class == OpClass::kStore ||
                      op.op_class == OpClass::kAtomic || op.op_class == OpClass::kReduction;
  return memory_class && op.space != MemSpace::kParam && op.space != MemSpace::kNone;
}

// rows=R1[xR2[xR3[xR4]]] or stride=S1[xS2...]: a tensor copy's in-bounds rows along the box's
// dimensions 1 to 4 and the bytes between them (docs/trace-format.md).
void parse_box_rows(LineCursor& c, size_t at, std::string_view value, bool rows, MbarrierUse& out) {
  const std::string_view whole = value;
  size_t d = 0;
  while (true) {
    const size_t x = value.find('x');
    const std::string_view part = value.substr(0, x);
    int64_t v = 0;
    const bool ok = d < MbarrierUse::kRowDims && parse_signed(part, v) && v >= 0 &&
                    (rows ? v <= 65535 : out.set_row_stride(static_cast<int>(d), static_cast<uint64_t>(v)));
    if (!ok) {
      c.fail_at(at, std::string("expected ") + (rows ? "rows=R1[xR2[xR3[xR4]]], counts up to 65535," : "stride=S1[xS2[xS3[xS4]]], byte strides (multiples of 16 below 64 GiB),") +
                        " one per box dimension above the first (at most 4); got '" + std::string(whole) + "'");
    }
    if (rows) out.rows[d] = static_cast<uint16_t>(v);
    ++d;
    if (x == std::string_view::npos) return;
    value.remove_prefix(x + 1);
    at += x + 1;
  }
}

bool is_hex_mask(std::string_view w) {
  if (w.size() != 8) return false;
  for (char ch : w)
    if (!std::isxdigit(static_cast<unsigned char>(ch))) return false;
  return true;
}

}  // namespace

WarpInst parse_instruction(LineCursor& c, uint32_t full_mask, OpcodeCache& opcodes, RegisterNames& registers,
                           InstructionPools& pools) {
  WarpInst inst;
  inst.line = c.line_number();
  c.skip_space();
  size_t at = c.pos();
  std::string_view w = c.word();
  uint32_t mask = full_mask;
  if (is_hex_mask(w)) {
    mask = static_cast<uint32_t>(std::stoul(std::string(w), nullptr, 16));
    if (mask & ~full_mask) c.fail_at(at, "active mask " + std::string(w) + " names lanes the warp does not have");
    c.skip_space();
    at = c.pos();
    w = c.word();
  }
  // Reused, so that an instruction's registers allocate nothing (two vectors per line were 2% of
  // a replay's instructions); per thread, as a trace may be read ahead on another.
  static thread_local OperandScan regs;
  regs.dst.clear();
  regs.src.clear();
  if (!w.empty() && w[0] == '@') {
    std::string_view pred = w.substr(1);
    if (!pred.empty() && pred[0] == '!') pred.remove_prefix(1);
    if (pred.size() < 2 || pred[0] != '%') c.fail_at(at, "expected a predicate such as @%p1 or @!%p1");
    RegId id;
    if (!registers.id(pred, id)) c.fail_at(at, "more than 65535 distinct registers in one kernel");
    regs.src.push_back(id);
    c.skip_space();
    at = c.pos();
    w = c.word();
  }
  if (w.empty()) c.fail_at(at, "expected an instruction mnemonic");
  std::string error;
  const OpInfo* op = opcodes.get(w, error);
  if (!op) c.fail_at(at, error);
  inst.op = op;
  inst.active_mask = mask;

  size_t operands_end = c.text().find(';', c.pos());
  if (operands_end == std::string_view::npos) operands_end = c.text().size();
  size_t comment = c.text().find('#', c.pos());
  if (comment < operands_end) operands_end = comment;
  if (op->op_class == OpClass::kBarrier) barrier_literals(c, operands_end, *op, inst);
  scan_operands(c, operands_end, op->writes_destination, registers, regs);
  if (regs.dst.size() > 255 || regs.src.size() > 255) c.fail("too many register operands");

  bool have_addr = false, have_mbar = false;
  if (operands_end < c.text().size() && c.text()[operands_end] == ';') {
    c.set_pos(operands_end + 1);
    while (true) {
      c.skip_space();
      if (c.at_end() || c.peek() == '#') break;
      size_t key_at = c.pos();
      std::string_view token = c.word();
      size_t eq = token.find('=');
      std::string_view key = token.substr(0, eq);
      if (eq != std::string_view::npos && key == "elem") {  // a bulk reduction's element size
        int64_t v = 0;
        if (!op->bulk_reduce || !parse_signed(token.substr(eq + 1), v) || (v != 1 && v != 2 && v != 4 && v != 8)) {
          c.fail_at(key_at, "elem= is a bulk reduction's element size in bytes: 1, 2, 4 or 8");
        }
        inst.mbar.elem_bytes = static_cast<uint8_t>(v);
        continue;
      }
      if (eq != std::string_view::npos && (key == "bar" || key == "threads")) {  // which CTA barrier, how many threads
        int64_t v = 0;
        const bool is_bar = key == "bar";
        if (op->op_class != OpClass::kBarrier) c.fail_at(key_at, std::string(key) + "= given for '" + std::string(w) + "', which is not a CTA barrier (bar/barrier)");
        if (!parse_signed(token.substr(eq + 1), v) || (is_bar ? v < 0 || v > 15 : v <= 0 || v > 1024 || v % 32 != 0)) {
          c.fail_at(key_at + eq + 1, is_bar ? "bar= is the barrier's number, 0 to 15 (the PTX ISA's sixteen per CTA)"
                                             : "threads= is the barrier's thread count: a multiple of 32 from 32 to 1024");
        }
        if (is_bar) inst.barrier_id = static_cast<uint8_t>(v);
        if (!is_bar) inst.barrier_warps = static_cast<uint8_t>(v / 32);
        continue;
      }
      if (eq != std::string_view::npos && key == "ns") {  // nanosleep: how long the warp sleeps
        int64_t v = 0;
        if (!op->sleep || !parse_signed(token.substr(eq + 1), v) || v < 0 || v > 1'000'000) {
          c.fail_at(key_at, "ns= is nanosleep's duration in nanoseconds, 0 to 1000000 (the PTX ISA's bound)");
        }
        inst.sleep_ns = static_cast<uint32_t>(v);
        continue;
      }
      if (eq != std::string_view::npos && (key == "mbar" || key == "arrive" || key == "count" || key == "tx" || key == "phase" || key == "rows" ||
                                        key == "row_bytes" || key == "stride" || key == "mcast")) {
        if (op->mbarrier == MbarrierOp::kNone && !(op->bulk_store && key != "mbar" && key != "arrive" && key != "count" && key != "phase")) {
          c.fail_at(key_at, std::string(key) + "= given for '" + std::string(w) + "', which is not an mbarrier operation or bulk copy");
        }
        const std::string_view value = token.substr(eq + 1);
        if (key == "rows" || key == "stride") {  // one value per box dimension above the first: AxBxC
          parse_box_rows(c, key_at + eq + 1, value, key == "rows", inst.mbar);
          continue;
        }
        int64_t v = 0;
        const bool ok = key == "phase" ? parse_signed(value, v) && v >= -1 && v < INT32_MAX
                                       : parse_signed(value, v) && v >= 0 && v <= UINT32_MAX;
        if (!ok) c.fail_at(key_at + eq + 1, "expected " + std::string(key == "phase" ? "a phase number (or -1)" : "an unsigned 32-bit number") + ", got '" + std::string(value) + "'");
        if (key == "mbar") inst.mbar.address = static_cast<uint32_t>(v), have_mbar = true;
        if (key == "arrive" || key == "count") inst.mbar.arrivals = static_cast<uint32_t>(v);
        if (key == "tx") inst.mbar.tx_bytes = static_cast<uint32_t>(v);
        if (key == "phase") inst.mbar.phase = static_cast<int32_t>(v);
        if (key == "row_bytes") inst.mbar.row_bytes = static_cast<uint32_t>(v);
        if (key == "mcast") {
          const bool commit = op->mbarrier == MbarrierOp::kArrive && op->after_tensor;  // tcgen05.commit .multicast::cluster
          if ((op->mbarrier != MbarrierOp::kBulkCopy && !commit && !op->cancels_launch) || v == 0 || v > 0xffff) {
            c.fail_at(key_at, "mcast= is the multicast CTA mask of a bulk copy, tcgen05.commit or clusterlaunchcontrol.try_cancel: 16 bits, not zero");
          }
          inst.mbar.multicast = static_cast<uint16_t>(v);
        }
        continue;
      }
      if (eq == std::string_view::npos || key != "addr") {
        c.fail_at(key_at, "unknown annotation '" + std::string(token) + "'; expected addr=BASE+STRIDE, addr=A0,A1,... or, for mbarrier operations and bulk copies, mbar=, count=, arrive=, tx=, phase=, rows=, row_bytes=, stride= and mcast=, elem= for bulk reductions, bar= and threads= for barriers, or ns= for nanosleep");
      }
      if (have_addr) c.fail_at(key_at, "addr= given twice");
      if (!needs_addresses(*op) && op->space != MemSpace::kParam) {
        c.fail_at(key_at, "addr= given for '" + std::string(w) + "', which does not access memory");
      }
      have_addr = true;
      parse_addresses(c, token.substr(eq + 1), key_at + eq + 1, *op, mask, inst, pools);
    }
  }
  if (op->barrier_arrive && inst.barrier_warps == 0) {
    c.fail_at(at, "'" + std::string(w) + "' arrives without waiting and needs '; threads=N', the number of threads its barrier expects (the PTX ISA requires one)");
  }
  if (!have_addr && needs_addresses(*op) && mask != 0) {
    c.fail_at(at, "'" + std::string(w) + "' accesses " + std::string(mem_space_name(op->space)) +
                      " memory and needs '; addr=BASE+STRIDE' or '; addr=A0,A1,...' with one address per active lane");
  }
  if (op->mbarrier != MbarrierOp::kNone && !have_mbar && mask != 0) {
    c.fail_at(at, "'" + std::string(w) + "' needs '; mbar=ADDRESS' (the mbarrier's shared-memory address)" +
                      (op->mbarrier == MbarrierOp::kBulkCopy ? " and tx=BYTES (the bytes each issuing lane copies)" : ""));
  }
  // clusterlaunchcontrol.try_cancel writes a 16-byte answer (PTX ISA), unless tx= says otherwise.
  if (op->cancels_launch && inst.mbar.tx_bytes == 0) inst.mbar.tx_bytes = 16;
  // st.async / red.async complete what their active lanes store, unless tx= says otherwise.
  if (op->mbarrier == MbarrierOp::kCompleteTx && op->space != MemSpace::kNone && inst.mbar.tx_bytes == 0) {
    inst.mbar.tx_bytes = static_cast<uint32_t>(std::popcount(mask)) * op->access_bytes;
  }
  if ((op->mbarrier == MbarrierOp::kBulkCopy || op->bulk_store) && mask != 0 && (inst.mbar.tx_bytes == 0 || inst.mbar.tx_bytes % 16 != 0)) {
    c.fail_at(at, "'" + std::string(w) + "' needs tx=BYTES, a positive multiple of 16 (the bytes each issuing lane copies)");
  }
  inst.num_dst = static_cast<uint8_t>(regs.dst.size());
  inst.num_src = static_cast<uint8_t>(regs.src.size());
  inst.regs = reinterpret_cast<const RegId*>(static_cast<uintptr_t>(pools.regs.size()));
  pools.regs.insert(pools.regs.end(), regs.dst.begin(), regs.dst.end());
  pools.regs.insert(pools.regs.end(), regs.src.begin(), regs.src.end());
  return inst;
}

}  // namespace warpsim
