#include "frontend/ptx/register_packing.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include "frontend/ptx/register_file.h"

namespace warpsim::ptx {
namespace {

using Bits = std::vector<uint64_t>;

// Instruction-level successors, with the same control-flow rules as the reconvergence analysis.
std::vector<std::vector<uint32_t>> successors(const std::vector<EmuInst>& insts) {
  const auto n = static_cast<uint32_t>(insts.size());
  std::vector<std::vector<uint32_t>> succ(n);
  for (uint32_t i = 0; i < n; ++i) {
    const EmuInst& in = insts[i];
    const bool conditional = in.guard >= 0;
    const bool jumps = in.base == "bra" && !in.operands.empty() && in.operands[0].kind == EmuOperand::Kind::kLabel;
    const bool ends = in.base == "ret" || in.base == "exit";
    if (jumps && in.operands[0].target < n) succ[i].push_back(in.operands[0].target);
    if ((!jumps && !ends) || conditional)
      if (i + 1 < n) succ[i].push_back(i + 1);
  }
  return succ;
}

// The first and last instruction at which each register is live or written ({UINT32_MAX, 0}
// when it is never touched). Any point where a register matters lies inside its span, so two
// registers with disjoint spans can share storage.
std::vector<std::pair<uint32_t, uint32_t>> live_spans(const std::vector<EmuInst>& insts, size_t registers) {
  const auto n = static_cast<uint32_t>(insts.size());
  const size_t words = (registers + 63) / 64;
  auto set = [](Bits& b, size_t r) { b[r / 64] |= uint64_t{1} << (r % 64); };
  std::vector<Bits> use(n, Bits(words, 0)), kill(n, Bits(words, 0)), live_in(n, Bits(words, 0));
  for (uint32_t i = 0; i < n; ++i) {
    for (RegId r : insts[i].srcs) set(use[i], r);
    if (insts[i].guard < 0)
      for (RegId r : insts[i].dsts) set(kill[i], r);
  }
  const auto succ = successors(insts);
  Bits out(words);
  for (bool changed = true; changed;) {  // backward dataflow to a fixed point
    changed = false;
    for (uint32_t i = n; i-- > 0;) {
      std::fill(out.begin(), out.end(), 0);
      for (uint32_t s : succ[i])
        for (size_t w = 0; w < words; ++w) out[w] |= live_in[s][w];
      for (size_t w = 0; w < words; ++w) {
        const uint64_t in = use[i][w] | (out[w] & ~kill[i][w]);
        if (in != live_in[i][w]) live_in[i][w] = in, changed = true;
      }
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>> span(registers, {UINT32_MAX, 0});
  auto touch = [&](size_t r, uint32_t i) { span[r] = {std::min(span[r].first, i), std::max(span[r].second, i)}; };
  for (uint32_t i = 0; i < n; ++i) {
    for (size_t w = 0; w < words; ++w)
      for (uint64_t b = live_in[i][w]; b; b &= b - 1) touch(w * 64 + static_cast<size_t>(__builtin_ctzll(b)), i);
    for (RegId r : insts[i].dsts) touch(r, i);
  }
  return span;
}

}  // namespace

void pack_registers(Program& program) {
  const size_t registers = program.register_bits.size();
  const auto span = live_spans(program.insts, registers);
  std::vector<uint32_t> order;
  for (uint32_t r = 0; r < registers; ++r)
    if (span[r].first != UINT32_MAX) order.push_back(r);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return std::pair(span[a].first, a) < std::pair(span[b].first, b); });

  // Greedy interval colouring per width: a register takes the storage register freed earliest,
  // if that one's last occupant ended before this register starts.
  using Busy = std::pair<uint32_t, int32_t>;  // last instruction of the occupant, storage register
  std::vector<std::priority_queue<Busy, std::vector<Busy>, std::greater<>>> busy(65);
  std::vector<int32_t> storage(registers, -1);
  program.storage_bits.clear();
  for (uint32_t r : order) {
    const uint32_t bits = program.register_bits[r];
    auto& q = busy[std::min<uint32_t>(bits, 64)];
    int32_t s;
    if (!q.empty() && q.top().first < span[r].first) {
      s = q.top().second;
      q.pop();
    } else {
      s = static_cast<int32_t>(program.storage_bits.size());
      program.storage_bits.push_back(bits);
    }
    storage[r] = s;
    q.push({span[r].second, s});
  }
  program.register_slots = register_slots(program.storage_bits, program.register_words);

  auto remap = [&](int32_t& r) {
    if (r >= 0) r = storage[static_cast<size_t>(r)];
  };
  for (EmuInst& in : program.insts) {
    remap(in.guard);
    for (EmuOperand& o : in.operands) {
      if (o.kind == EmuOperand::Kind::kReg || o.kind == EmuOperand::Kind::kAddr) remap(o.reg);
      if (o.kind == EmuOperand::Kind::kVector || o.kind == EmuOperand::Kind::kAddr)  // an address's coordinates
        for (int32_t& r : o.regs) remap(r);
    }
  }
}

}  // namespace warpsim::ptx
