// Where an emulated access lands (global, shared, local, parameter or constant memory), the
// faults for accesses that land nowhere, and the shared-memory checkers (races: accesses no barrier orders;
// reads of never-written words), and the short base + stride form of a warp's addresses.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/error.h"
#include "common/format.h"
#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {

std::string CtaEmulator::thread_name(const WarpState& w, uint32_t lane) const {
  const uint32_t t = w.index * 32 + lane;
  const Dim3& b = launch_.block;
  return "thread (" + std::to_string(t % b.x) + "," + std::to_string((t / b.x) % b.y) + "," + std::to_string(t / (b.x * b.y)) +
         ") of CTA " + id_.str();
}

template <bool kPartial>
void CtaEmulator::check_shared_words(const WarpState& w, uint32_t exec, const std::array<uint64_t, 32>& lane_address, uint32_t size, bool write,
                                     bool atomic, const EmuInst& in) {
  // What this warp has acquired of each warp's clock. Its own entry is its clock now, so its own
  // earlier accesses are always ordered, and a clock of 0 (never accessed) is ordered too.
  const uint32_t* known = w.clock_row;
  const uint32_t now = known[w.index];
  const uint32_t instruction = WordAccess::pack(w.index * 32, static_cast<uint32_t>(&in - launch_.program->insts.data()));
  for (uint32_t m = exec; m; m &= m - 1) {
    const auto lane = static_cast<uint32_t>(std::countr_zero(m));
    const uint64_t address = lane_address[lane];
    const uint32_t me = instruction + lane;  // the thread is the packing's low field
    const uint64_t first_word = address / 4, last_word = (address + size - 1) / 4;
    // The bytes of each word the access covers, as a 4-bit mask: all four but at the ends.
    const uint32_t head = kPartial ? (0xfu << (address & 3)) & 0xf : 0xf, tail = kPartial ? 0xfu >> (3 - ((address + size - 1) & 3)) : 0xf;
    for (uint64_t word = first_word; word <= last_word && word < shared_words_.size(); ++word) {
      WordAccess& a = shared_words_[word];
      const uint32_t bytes = kPartial ? (word == first_word ? head : 0xf) & (word == last_word ? tail : 0xf) : 0xf;
      const uint32_t mine = me | bytes << WordAccess::kBytesShift;
      const bool uninitialized = !write && !atomic && !(a.write & WordAccess::kWrittenBit);
      // Threads of different warps touching one word, one of them writing, with nothing ordering
      // the earlier access before this one (no barrier phase or mbarrier hand-off between them).
      // Or two lanes of this warp, in different instructions, with no __syncwarp (nor any other
      // release by the warp) between them: under independent thread scheduling (Volta and later)
      // the lanes need not run in step, so warp-synchronous code without __syncwarp is a race
      // (CUDA programming guide; compute-sanitizer's racecheck reports these too).
      // Only accesses sharing a byte conflict; the word remembers its last writer and its readers
      // since (one per warp once two warps' reads are unordered), so a race between two accesses to
      // different bytes and a third may go unseen (never a false one).
      // (The byte test comes last: unordered accesses to a word are rare, and this is hot.)
      const bool after_write = !atomic &&
                               (a.write_clock > known[WordAccess::warp_of(a.write)] || same_warp_unordered(a.write, a.write_clock, me, now)) &&
                               (WordAccess::bytes_of(a.write) & bytes);
      uint32_t racing_read = 0;
      if (!atomic && write) {
        if (a.read_clock == kSharedReads) {
          racing_read = racing_shared_read(a, known, me, now, bytes);
        } else if ((a.read_clock > known[WordAccess::warp_of(a.read)] || same_warp_unordered(a.read, a.read_clock, me, now)) &&
                   (WordAccess::bytes_of(a.read) & bytes)) {
          racing_read = a.read;
        }
      }
      if (uninitialized || after_write || racing_read) report_shared(w, lane, word, write, uninitialized, after_write, racing_read, in);
      if (atomic) {
        a.write |= WordAccess::kWrittenBit;
      } else if (write) {
        const bool merge = kPartial && bytes != 0xf && same_instruction(a.write, a.write_clock, me, now);
        a.write = mine | (merge ? a.write & WordAccess::kBytesBits : 0) | WordAccess::kWrittenBit, a.write_clock = now;
      } else if (a.read_clock == kSharedReads) {
        ReadRecord& r = read_block(a.read)[w.index];
        const bool merge = kPartial && bytes != 0xf && same_instruction(r.read, r.clock, me, now);
        r.read = mine | (merge ? r.read & WordAccess::kBytesBits : 0), r.clock = now;
      } else if (a.read_clock > known[WordAccess::warp_of(a.read)] && share_reads(a, w.index, mine, now)) {
        // Another warp's read this one is not ordered after: both kept (an own-warp read is always
        // ordered, its clock being the warp's own).
      } else {
        const bool merge = kPartial && bytes != 0xf && same_instruction(a.read, a.read_clock, me, now);
        a.read = mine | (merge ? a.read & WordAccess::kBytesBits : 0), a.read_clock = now;
      }
    }
  }
}

bool CtaEmulator::share_reads(WordAccess& a, uint32_t warp, uint32_t read, uint32_t now) {
  const size_t n = read_block_size_;
  uint32_t index;
  if (!free_read_blocks_.empty()) {
    index = free_read_blocks_.back();
    free_read_blocks_.pop_back();
  } else {
    if (read_records_.size() + n > kMaxReadRecords) return false;
    index = static_cast<uint32_t>(read_records_.size() / n);
    read_records_.resize(read_records_.size() + n);
  }
  ReadRecord* block = read_block(index);
  std::fill(block, block + n, ReadRecord{});
  block[WordAccess::warp_of(a.read)] = ReadRecord{a.read_clock, a.read};
  block[warp] = ReadRecord{now, read};
  a.read = index, a.read_clock = kSharedReads;
  return true;
}

uint32_t CtaEmulator::racing_shared_read(WordAccess& a, const uint32_t* known, uint32_t me, uint32_t now, uint32_t bytes) {
  ReadRecord* block = read_block(a.read);
  uint32_t racing = 0;
  for (uint32_t u = 0; u < read_block_size_ && !racing; ++u) {
    const ReadRecord& r = block[u];
    if ((r.clock > known[u] || same_warp_unordered(r.read, r.clock, me, now)) && (WordAccess::bytes_of(r.read) & bytes)) racing = r.read;
  }
  // A store to the whole word ends every read record (FastTrack): a later access ordered after
  // it is ordered after the reads it was ordered after, and one not ordered after it races with
  // the store itself. A store to some bytes leaves the reads of the others to be checked.
  if (bytes == 0xf) {
    free_read_blocks_.push_back(a.read);
    a.read = 0, a.read_clock = 0;
  }
  return racing;
}

template void CtaEmulator::check_shared_words<false>(const WarpState&, uint32_t, const std::array<uint64_t, 32>&, uint32_t, bool, bool, const EmuInst&);
template void CtaEmulator::check_shared_words<true>(const WarpState&, uint32_t, const std::array<uint64_t, 32>&, uint32_t, bool, bool, const EmuInst&);

void CtaEmulator::check_global(const WarpState& w, uint32_t lane, uint64_t address, uint64_t size, bool read, bool write, const EmuInst& in) {
  uint64_t offset = 0;
  if (read) {
    if (const DeviceMemory::Buffer* b = launch_.memory->first_unwritten(address, size, &offset)) {
      // In the device heap, the finding names the malloc block the byte is in.
      const bool in_heap = launch_.heap && b->base == launch_.heap->base();
      const auto [block, length] = in_heap ? launch_.heap->block_at(b->base + offset) : std::pair<uint64_t, uint64_t>{0, 0};
      const std::string what =
          block ? "byte " + std::to_string(b->base + offset - block) + " of the " + std::to_string(length) + "-byte block malloc returned at " +
                      hex(block) + ", which nothing has written (device malloc leaves memory undefined)"
                : "byte " + std::to_string(offset) + " of buffer '" + b->name + "', which nothing has written (the buffer's init is none, as cudaMalloc leaves memory)";
      launch_.findings->add("uninitialized-global-read", in.line, launch_.file + ":" + std::to_string(in.line) + ": " + thread_name(w, lane) + " reads " + what);
    }
  }
  if (write) launch_.memory->mark_written(address, size, in.line);
}

// Out of line, so that the check above (run for every shared access) stays small and string-free.
void CtaEmulator::report_shared(const WarpState& w, uint32_t lane, uint64_t word, bool write, bool uninitialized, bool after_write,
                                uint32_t racing_read, const EmuInst& in) {
  const WordAccess& a = shared_words_[word];
  auto where = [&](uint32_t line) { return launch_.file + ":" + std::to_string(line); };
  auto line_of = [&](uint32_t packed) {  // the earlier access's line, if its instruction's index fitted (0: not)
    const uint32_t i = WordAccess::instruction_plus_one(packed);
    return i ? launch_.program->insts[i - 1].line : 0;
  };
  auto where_packed = [&](uint32_t packed) {
    return line_of(packed) ? where(line_of(packed)) : launch_.file + " (an instruction past the 131070th)";
  };
  // Both accesses' CUDA source lines, where the PTX has .loc: " (kernel.cu:30; the earlier kernel.cu:25)".
  auto sources = [&](uint32_t packed) {
    const uint32_t i = WordAccess::instruction_plus_one(packed);
    const std::string here = source_of(in), there = i ? source_of(launch_.program->insts[i - 1]) : "";
    if (here.empty() && there.empty()) return std::string();
    return " (" + (here.empty() ? "no source line" : here) + "; the earlier " + (there.empty() ? "no source line" : there) + ")";
  };
  auto name_of = [&](uint32_t t) { return thread_name(warps_[t / 32], t % 32); };
  auto unordered_by = [&](uint32_t packed) {
    return std::string(WordAccess::warp_of(packed) == w.index ? "__syncwarp (bar.warp.sync) or barrier" : "barrier");
  };
  char hex[24];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(word * 4));
  if (uninitialized) {
    launch_.findings->add("uninitialized-shared-read", in.line,
                          where(in.line) + ": " + thread_name(w, lane) + " reads shared " + hex + ", which no thread has written" +
                              (in.source_line ? " (" + source_of(in) + ")" : ""));
  }
  if (after_write) {
    launch_.findings->add("race", in.line,
                          where(in.line) + ": " + thread_name(w, lane) + (write ? " writes" : " reads") + " shared " + hex + ", which " +
                              name_of(WordAccess::thread_of(a.write)) + " wrote at " + where_packed(a.write) + " with no " +
                              unordered_by(a.write) + " ordering them" + sources(a.write),
                          line_of(a.write));
  } else if (racing_read) {
    launch_.findings->add("race", in.line,
                          where(in.line) + ": " + thread_name(w, lane) + " writes shared " + hex + ", which " +
                              name_of(WordAccess::thread_of(racing_read)) + " read at " + where_packed(racing_read) + " with no " +
                              unordered_by(racing_read) + " ordering them" + sources(racing_read),
                          line_of(racing_read));
  }
}

void CtaEmulator::fault(const EmuInst& in, const WarpState& w, uint32_t lane, const std::string& message) const {
  const uint32_t t = w.index * 32 + lane;
  const Dim3& b = launch_.block;
  throw InputError(SourceLocation{launch_.file, in.line, 1},
                   message + " by thread (" + std::to_string(t % b.x) + "," + std::to_string((t / b.x) % b.y) + "," +
                       std::to_string(t / (b.x * b.y)) + ") of CTA " + id_.str() + " in '" + in.opcode + "'" +
                       (in.source_line ? " (" + source_of(in) + ")" : ""));
}

std::string CtaEmulator::source_of(const EmuInst& in) const {
  if (!in.source_line) return "";
  const auto& files = launch_.program->source_files;
  const auto f = files.find(in.source_file);
  // The file's name without its directory: nvcc records where it compiled, which is not where
  // this PTX is read.
  if (f == files.end() || f->second.empty()) return "source line " + std::to_string(in.source_line);
  return f->second.substr(f->second.find_last_of('/') + 1) + ":" + std::to_string(in.source_line);
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
    case MemSpace::kSharedCluster:
      return cluster_shared_at(address, size, w, lane, in);
    case MemSpace::kParam:
      if (address + size > launch_.params.size()) fault(in, w, lane, "parameter access beyond the parameters at " + hex());
      return const_cast<uint8_t*>(launch_.params.data()) + address;
    case MemSpace::kLocal: {
      if (local_.empty()) local_.resize(launch_.block.count());
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

// ld and st. Every lane's address is computed first; when the warp's accesses are aligned and
// all fall inside one global buffer or the CTA's shared memory, one bounds check covers the warp
// and the lanes index straight into it. Otherwise (or to report a fault) each lane is checked.
void CtaEmulator::load_store(WarpState& w, const EmuInst& in, uint32_t exec, Record& out) {
  const auto& ops = in.operands;
  const bool load = in.code == EmuOp::kLd;
  const EmuOperand& addr = load ? ops.at(1) : ops.at(0);
  const EmuOperand& data = load ? ops.at(0) : ops.at(1);
  // A call-site .param variable lives in the thread's local memory.
  MemSpace space = addr.symbol_space == MemSpace::kLocal ? MemSpace::kLocal : in.space;
  const uint32_t n = in.vector;
  const uint32_t size = std::max<uint32_t>(1, in.type.bits / 8), bytes = size * n;
  // Per instruction, not per lane: the data registers and whether values are sign-extended.
  std::array<int32_t, 4> data_regs{};
  if (n > data_regs.size()) throw SimulationError("ld/st with more than 4 vector elements");
  for (uint32_t k = 0; k < n; ++k) data_regs[k] = data.kind == EmuOperand::Kind::kVector ? data.regs.at(k) : data.reg;
  const bool sign_extend = in.type.kind == 's', immediate = data.kind == EmuOperand::Kind::kImm;

  std::array<uint64_t, 32> lane_address;
  uint64_t low = UINT64_MAX, high = 0, bits_seen = 0;
  for_lanes(exec, [&](uint32_t l) {
    const uint64_t a = address(w, addr, l);
    lane_address[l] = a;
    low = std::min(low, a), high = std::max(high, a), bits_seen |= a;
  });
  if ((in.generic || space == MemSpace::kSharedCluster) && exec) {
    space = resolve_space(w, in, exec, lane_address, out);
    low = UINT64_MAX, high = 0, bits_seen = 0;
    for_lanes(exec, [&](uint32_t l) {
      const uint64_t a = lane_address[l];
      low = std::min(low, a), high = std::max(high, a), bits_seen |= a;
    });
  }
  uint8_t* base = nullptr;  // where `low` is, when one check covers the warp
  if (exec && std::has_single_bit(bytes) && (bits_seen & (bytes - 1)) == 0 && high + bytes > high) {
    if (space == MemSpace::kGlobal) base = launch_.memory->at(low, high + bytes - low);
    if (space == MemSpace::kShared && high + bytes <= shared_.size()) base = shared_.data() + low;
    if (space == MemSpace::kParam && high + bytes <= launch_.params.size()) base = const_cast<uint8_t*>(launch_.params.data()) + low;
    if (space == MemSpace::kConst && high + bytes <= launch_.program->constant_bank.size()) {
      base = const_cast<uint8_t*>(launch_.program->constant_bank.data()) + low;  // stores to .const are rejected when lowered
    }
  }
  if (space == MemSpace::kShared) check_shared(w, exec, lane_address, bytes, !load, in.strong, in);
  const bool checked_remote = space == MemSpace::kSharedCluster && !shared_words_.empty();
  const bool checked_global = space == MemSpace::kGlobal && checks_global_;
  // Aligned 4- and 8-byte loads into registers of the same width with the warp's range checked at
  // once (most loads of a kernel, parameters included): straight copies, without write()'s
  // per-lane lookup of the register's width.
  bool direct = load && base && (size == 4 || size == 8) && !checked_global && !checked_remote;
  for (uint32_t k = 0; k < n && direct; ++k) direct = data_regs[k] >= 0 && launch_.program->storage_bits[static_cast<size_t>(data_regs[k])] == size * 8;
  if (direct) {
    std::array<uint32_t*, 4> dst{};
    for (uint32_t k = 0; k < n; ++k) dst[k] = w.regs.lanes32(data_regs[k]);  // a 64-bit register's lanes are word pairs
    const uint32_t words = size / 4;
    for_lanes(exec, [&](uint32_t l) {
      const uint64_t a = lane_address[l];
      if (space != MemSpace::kParam) out.addresses.push_back(a);
      const uint8_t* p = base + (a - low);
      for (uint32_t k = 0; k < n; ++k) std::memcpy(dst[k] + words * l, p + size * k, size);
    });
  } else {
    for_lanes(exec, [&](uint32_t l) {
      const uint64_t a = lane_address[l];
      if (space != MemSpace::kParam) out.addresses.push_back(a);
      uint8_t* p = base ? base + (a - low) : memory_at(space, a, bytes, w, l, in);
      if (checked_global) check_global(w, l, a, bytes, load, !load, in);
      if (checked_remote) check_remote_shared(w, l, a, bytes, !load, in);
      for (uint32_t k = 0; k < n; ++k) {
        const int32_t r = data_regs[k];
        if (load) {
          uint64_t v = load_bits(p + k * size, size);
          if (sign_extend) v = static_cast<uint64_t>(as_signed(v, in.type.bits));
          write(w, r, l, v);
        } else {
          store_bits(p + k * size, immediate ? data.bits : (r >= 0 ? w.regs.get(r, l) : 0), size);
        }
      }
    });
  }
  if (in.strong && clocks_.enabled()) sync_through_memory(w, space, lane_address, exec, !load, load);
  if (space != MemSpace::kParam) compress_addresses(out);
}

// Atomics and strong accesses synchronise through their words for the race checker: a store or
// an atomic releases what its warp has seen into the word's clock, a load or an atomic acquires
// it. That is what a flag or a lock in memory does once fences make it release and acquire
// (the PTX memory model); the checker assumes the fences are there, so it may miss a race that
// a missing fence causes, but reports none for a correct flag hand-off.
void CtaEmulator::sync_through_memory(WarpState& w, MemSpace space, const std::array<uint64_t, 32>& lane_address, uint32_t exec,
                                      bool release, bool acquire) {
  if (space != MemSpace::kShared && space != MemSpace::kGlobal) return;
  auto key = [&](uint32_t l) { return (lane_address[l] & ~uint64_t{3}) ^ (space == MemSpace::kShared ? uint64_t{1} << 63 : 0); };
  if (acquire) {
    for_lanes(exec, [&](uint32_t l) {
      if (auto it = memory_clocks_.find(key(l)); it != memory_clocks_.end()) clocks_.acquire(w.index, it->second);
    });
  }
  if (release) {
    for_lanes(exec, [&](uint32_t l) { clocks_.join_into(w.index, memory_clocks_[key(l)]); });
    clocks_.advance(w.index);
  }
}

// Most warp accesses step by one stride from lane to lane; handing those to the timing model as
// base + lane x stride (WarpInst's other address form) saves it reading the list, which is no
// longer in the cache when it gets there.
void CtaEmulator::compress_addresses(Record& out) {
  if (out.addresses.empty()) return;
  out.inst.addr.list = out.addresses.data();
  uint64_t base = 0;
  int64_t stride = 0;
  const bool strided = out.inst.strided_form(base, stride);
  out.inst.addr.list = nullptr;  // Stream::next points it at the list again if one is kept
  if (!strided) return;
  out.inst.addr.base = base;
  out.inst.addr.stride = stride;
  out.addresses.clear();
}

}  // namespace warpsim::ptx
