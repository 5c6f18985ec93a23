#include "frontend/accelsim/accelsim_workload.h"

#include <bit>
#include <filesystem>
#include <fstream>
#include <unordered_map>
#include <unordered_set>

#include "common/error.h"
#include "frontend/accelsim/sass_opcodes.h"
#include "frontend/buffered_cta.h"
#include "frontend/trace/instruction_parser.h"
#include "frontend/trace/line_cursor.h"
#include "frontend/trace/line_source.h"

namespace warpsim {
namespace fs = std::filesystem;

class AccelSimState {
 public:
  std::vector<std::string> kernel_files;
  size_t next_kernel = 0;
  uint64_t memcpys = 0, memcpy_bytes = 0;
  std::map<std::string, uint64_t> unknown;
  std::unordered_map<std::string, std::unique_ptr<OpInfo>> ops;  // key: opcode + '/' + width
  std::unordered_map<const OpInfo*, std::string> sass_of;
  bool kernel_open = false;

  const OpInfo* op_for(const std::string& opcode, uint32_t width, uint32_t version, const SourceLocation& at) {
    std::string key = opcode + "/" + std::to_string(width);
    auto it = ops.find(key);
    if (it != ops.end()) {
      if (unknown_ops_.count(it->second.get())) ++unknown[opcode];
      return it->second.get();
    }
    SassMapping m = map_sass_opcode(opcode, width, version);
    auto info = std::make_unique<OpInfo>();
    std::string error;
    if (!decode_mnemonic(m.mnemonic, *info, error)) {
      throw InputError(at, "internal: SASS opcode '" + opcode + "' maps to '" + m.mnemonic + "', which does not decode: " + error);
    }
    info->from_sass = true;
    const OpInfo* p = info.get();
    ops.emplace(key, std::move(info));
    sass_of[p] = opcode;
    if (!m.known) {
      unknown_ops_.insert(p);
      ++unknown[opcode];
    }
    return p;
  }

 private:
  std::unordered_set<const OpInfo*> unknown_ops_;
};

namespace {

// Whitespace-separated tokens of a line, with their columns.
struct Tokens {
  std::vector<std::string_view> text;
  std::vector<size_t> column;  // 0-based
  Tokens(std::string_view line) {
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && is_space(line[i])) ++i;
      size_t start = i;
      while (i < line.size() && !is_space(line[i])) ++i;
      if (i > start) {
        text.push_back(line.substr(start, i - start));
        column.push_back(start);
      }
    }
  }
};

bool parse_hex(std::string_view s, uint64_t& v) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return false;
  v = 0;
  for (char c : s) {
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) >= 'a' && std::tolower(c) <= 'f') ? std::tolower(c) - 'a' + 10 : -1;
    if (d < 0) return false;
    v = v * 16 + static_cast<uint64_t>(d);
  }
  return true;
}

// What follows the first '=' of "key = value", without leading spaces ("" when there is none).
std::string_view value_after_equals(std::string_view line) {
  const size_t eq = line.find('=');
  if (eq == std::string_view::npos) return {};
  const size_t start = line.find_first_not_of(' ', eq + 1);
  return start == std::string_view::npos ? std::string_view{} : line.substr(start);
}

bool parse_dec(std::string_view s, int64_t& v) {
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  if (s.empty() || s.size() > 18) return false;
  v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  if (neg) v = -v;
  return true;
}

struct Header {
  std::string name;
  std::string stream;  // the cudaStream_t's value; empty for the default stream (0)
  Dim3 grid, block;
  uint32_t shmem = 0, nregs = 0, binary_version = 0, tracer_version = 0;
  bool lineinfo = false;
  uint64_t shmem_base = 0, local_base = 0;
  bool have_grid = false, have_block = false, have_version = false;
};

class AccelSimKernel : public KernelSource {
 public:
  AccelSimKernel(std::shared_ptr<AccelSimState> state, const std::string& path) : state_(std::move(state)), source_(path) {
    read_header();
    info_.source_file = path;
    info_.name = header_.name.empty() ? fs::path(path).filename().string() : header_.name;
    info_.grid = header_.grid;
    info_.block = header_.block;
    info_.shared_bytes = header_.shmem;
    info_.registers_per_thread = header_.nregs;
    info_.stream = header_.stream;
    seen_.assign(info_.grid.count(), false);
  }
  ~AccelSimKernel() override {
    if (!done_) state_->kernel_open = false;  // else a later kernel may be open now
  }
  const KernelInfo& info() const override { return info_; }

  bool ctas_share_nothing() const override { return true; }  // each CTA owns its parsed instructions
  bool parses_ctas() const override { return true; }
  std::unique_ptr<CtaWork> next_cta() override {
    std::string line;
    while (true) {
      if (!source_.next(line)) {
        if (ctas_ != info_.grid.count()) {
          throw InputError(SourceLocation{source_.path(), source_.line_number(), 0},
                           "the grid has " + std::to_string(info_.grid.count()) + " thread blocks but the trace has " +
                               std::to_string(ctas_) + " (truncated trace?)");
        }
        state_->kernel_open = false;  // the next kernel may be read while this one's CTAs run (streams)
        done_ = true;
        return nullptr;
      }
      Tokens t(line);
      if (t.text.empty()) continue;
      if (t.text[0] == "#BEGIN_TB") break;
      if (t.text[0][0] == '#') continue;  // format comments
      fail(t.column[0], "unexpected '" + std::string(t.text[0]) + "'; expected #BEGIN_TB");
    }
    return read_block();
  }

 private:
  [[noreturn]] void fail(size_t column, const std::string& message) const {
    throw InputError(SourceLocation{source_.path(), source_.line_number(), static_cast<uint32_t>(column + 1)}, message);
  }

  void read_header() {
    std::string line;
    while (source_.next(line)) {
      Tokens t(line);
      if (t.text.empty()) continue;
      if (line[0] == '#') {
        if (t.text[0] == "#BEGIN_TB") {
          source_.unread(line);
          break;
        }
        continue;  // "#traces format = ..." ends the header
      }
      if (line[0] != '-') fail(t.column[0], "unexpected '" + std::string(t.text[0]) + "' in the kernel header; expected -key = value");
      size_t eq = line.find(" = ");
      if (eq == std::string::npos) fail(0, "expected '-key = value' in the kernel header");
      std::string key = line.substr(1, eq - 1);
      std::string value = line.substr(eq + 3);
      size_t vcol = eq + 3;
      auto dims = [&](Dim3& d) {
        unsigned x = 0, y = 0, z = 0;
        char tail = 0;
        if (std::sscanf(value.c_str(), "(%u,%u,%u)%c", &x, &y, &z, &tail) != 3 || x == 0 || y == 0 || z == 0) {
          fail(vcol, "expected (x,y,z) with positive sizes, got '" + value + "'");
        }
        d = Dim3{x, y, z};
      };
      auto number = [&]() {
        int64_t v = 0;
        if (!parse_dec(value, v) || v < 0) fail(vcol, "expected a non-negative number, got '" + value + "'");
        return static_cast<uint64_t>(v);
      };
      auto hex = [&]() {
        uint64_t v = 0;
        if (!parse_hex(value, v)) fail(vcol, "expected a hex address, got '" + value + "'");
        return v;
      };
      if (key == "kernel name") {
        header_.name = value;
      } else if (key == "grid dim") {
        dims(header_.grid);
        header_.have_grid = true;
      } else if (key == "block dim") {
        dims(header_.block);
        header_.have_block = true;
        if (header_.block.count() > 65536) fail(vcol, "block of " + std::to_string(header_.block.count()) + " threads; expected at most 65536");
      } else if (key == "shmem") {
        header_.shmem = static_cast<uint32_t>(number());
      } else if (key == "nregs") {
        header_.nregs = static_cast<uint32_t>(number());
      } else if (key == "binary version") {
        header_.binary_version = static_cast<uint32_t>(number());
      } else if (key == "accelsim tracer version") {
        header_.tracer_version = static_cast<uint32_t>(number());
        header_.have_version = true;
        if (header_.tracer_version < 3 || header_.tracer_version > 5) {
          fail(vcol, "tracer version " + value + " is not supported; expected 3, 4 or 5");
        }
      } else if (key == "enable lineinfo") {
        header_.lineinfo = number() != 0;
      } else if (key == "shmem base_addr") {
        header_.shmem_base = hex();
      } else if (key == "local mem base_addr") {
        header_.local_base = hex();
      } else if (key == "cuda stream id") {
        // The tracer writes the cudaStream_t handle as a number: 0 is the default stream, any
        // other names a stream (docs/streams.md).
        header_.stream = number() == 0 ? "" : value;
      } else if (key == "kernel id" || key == "nvbit version") {
        // informational
      } else {
        fail(1, "unknown header key '" + key +
                    "'; expected kernel name, kernel id, grid dim, block dim, shmem, nregs, binary version, cuda stream id, "
                    "shmem base_addr, local mem base_addr, nvbit version, accelsim tracer version or enable lineinfo");
      }
    }
    SourceLocation at{source_.path(), source_.line_number(), 0};
    if (!header_.have_grid) throw InputError(at, "the kernel header has no '-grid dim = (x,y,z)'");
    if (!header_.have_block) throw InputError(at, "the kernel header has no '-block dim = (x,y,z)'");
    if (!header_.have_version) throw InputError(at, "the kernel header has no '-accelsim tracer version' (versions 3 to 5 write it)");
  }

  std::unique_ptr<CtaWork> read_block() {
    const uint32_t warps = info_.warps_per_cta();
    auto cta = std::make_unique<BufferedCta>(Dim3{}, warps);
    bool have_id = false;
    int64_t warp = -1;
    int64_t expected = -1, got = 0;
    size_t insts_column = 0;
    uint32_t insts_line = 0;
    std::string line;
    auto check_count = [&]() {
      if (warp >= 0 && expected >= 0 && got != expected) {
        throw InputError(SourceLocation{source_.path(), insts_line, static_cast<uint32_t>(insts_column + 1)},
                         "warp " + std::to_string(warp) + " declares insts = " + std::to_string(expected) + " but has " +
                             std::to_string(got));
      }
    };
    while (true) {
      if (!source_.next(line)) {
        throw InputError(SourceLocation{source_.path(), source_.line_number(), 0}, "the trace ends inside a thread block; expected #END_TB");
      }
      Tokens t(line);
      if (t.text.empty()) continue;
      std::string_view first = t.text[0];
      if (first == "#END_TB") break;
      if (first == "#BEGIN_TB") fail(t.column[0], "#BEGIN_TB before the previous block's #END_TB");
      if (first == "thread" && t.text.size() >= 2 && t.text[1] == "block") {
        unsigned x, y, z;
        size_t eq = line.find('=');
        if (eq == std::string::npos || std::sscanf(line.c_str() + eq + 1, " %u,%u,%u", &x, &y, &z) != 3) {
          fail(t.column[0], "expected 'thread block = x,y,z'");
        }
        cta->set_id(Dim3{x, y, z});
        if (x >= info_.grid.x || y >= info_.grid.y || z >= info_.grid.z) {
          fail(t.column[0], "thread block " + cta->id().str() + " lies outside the grid " + info_.grid.str());
        }
        uint64_t linear = linear_index(cta->id(), info_.grid);
        if (seen_[linear]) fail(t.column[0], "thread block " + cta->id().str() + " appears twice");
        seen_[linear] = true;
        have_id = true;
        continue;
      }
      if (first == "warp") {
        check_count();
        int64_t w = -1;
        if (!parse_dec(value_after_equals(line), w) || w < 0 || w >= warps) {
          fail(t.column[0], "expected 'warp = N' with N from 0 to " + std::to_string(warps - 1));
        }
        warp = w;
        expected = -1;
        got = 0;
        continue;
      }
      if (first == "insts") {
        if (warp < 0) fail(t.column[0], "'insts =' before 'warp ='");
        if (!parse_dec(value_after_equals(line), expected) || expected < 0) {
          fail(t.column[0], "expected 'insts = N'");
        }
        insts_column = t.column[0];
        insts_line = source_.line_number();
        continue;
      }
      if (!have_id) fail(t.column[0], "instruction before 'thread block = x,y,z'");
      if (warp < 0 || expected < 0) fail(t.column[0], "instruction before 'warp = N' and 'insts = N'");
      cta->add(static_cast<uint32_t>(warp), parse_instruction_line(t, info_.full_mask(static_cast<uint32_t>(warp)), cta->pools()));
      ++got;
    }
    check_count();
    if (!have_id) fail(0, "thread block without 'thread block = x,y,z'");
    cta->finish();
    ++ctas_;
    return cta;
  }

  // [line] PC mask dst_num [Rd..] opcode src_num [Rs..] mem_width [mode addresses..] [immediate]
  WarpInst parse_instruction_line(const Tokens& t, uint32_t full_mask, InstructionPools& pools) {
    size_t i = 0;
    auto need = [&](const char* what) {
      if (i >= t.text.size()) {
        fail(t.column.empty() ? 0 : t.column.back() + t.text.back().size(), std::string("line ends early; expected ") + what);
      }
      return t.text[i];
    };
    int64_t dummy;
    if (header_.lineinfo) {
      if (!parse_dec(need("a line number"), dummy)) fail(t.column[i], "expected a line number");
      ++i;
    }
    uint64_t pc = 0, mask = 0;
    if (!parse_hex(need("a hex PC"), pc)) fail(t.column[i], "expected a hex PC, got '" + std::string(t.text[i]) + "'");
    ++i;
    if (!parse_hex(need("a hex active mask"), mask) || mask > 0xffffffffull) fail(t.column[i], "expected a 32-bit hex active mask");
    if (mask & ~uint64_t{full_mask}) fail(t.column[i], "active mask names lanes the warp does not have");
    ++i;
    auto registers = [&](const char* what, std::vector<RegId>& out) {
      int64_t n = 0;
      if (!parse_dec(need(what), n) || n < 0 || n > 32) fail(t.column[i], std::string("expected ") + what);
      ++i;
      for (int64_t k = 0; k < n; ++k) {
        std::string_view r = need("a register such as R12");
        int64_t id = -1;
        if (r == "RZ") {
          id = 255;
        } else if (r.size() > 1 && r[0] == 'R' && parse_dec(r.substr(1), id) && id >= 0 && id <= 255) {
        } else if (r.size() > 2 && r.substr(0, 2) == "UR") {
          id = 255;  // uniform registers are not tracked (docs/accelsim.md)
        } else {
          fail(t.column[i], "expected a register such as R12, got '" + std::string(r) + "'");
        }
        if (id != 255) out.push_back(static_cast<RegId>(id));  // RZ carries no dependency
        ++i;
      }
    };
    std::vector<RegId> dsts, srcs;
    registers("the destination count", dsts);
    std::string opcode(need("the opcode"));
    size_t opcode_column = t.column[i];
    ++i;
    registers("the source count", srcs);
    int64_t width = 0;
    if (!parse_dec(need("the memory width"), width) || width < 0 || width > 255) fail(t.column[i], "expected the memory width in bytes");
    ++i;
    const OpInfo* op = state_->op_for(opcode, static_cast<uint32_t>(width), header_.binary_version,
                                       SourceLocation{source_.path(), source_.line_number(), static_cast<uint32_t>(opcode_column + 1)});
    WarpInst inst;
    inst.op = op;
    inst.active_mask = static_cast<uint32_t>(mask);
    inst.line = source_.line_number();
    const int lanes = std::popcount(inst.active_mask);
    if (width > 0) {
      int64_t mode = -1;
      if (!parse_dec(need("the address mode (0 list, 1 base+stride, 2 base+delta)"), mode) || mode < 0 || mode > 2) {
        fail(t.column[i], "expected the address mode: 0 (list), 1 (base+stride) or 2 (base+delta)");
      }
      size_t mode_column = t.column[i];
      ++i;
      size_t first = pools.addresses.size();
      auto address = [&](uint64_t a) {
        if (op->space == MemSpace::kShared && header_.shmem_base && a >= header_.shmem_base) a -= header_.shmem_base;
        pools.addresses.push_back(a);
      };
      auto count_error = [&](int64_t got_count) {
        fail(mode_column, "expected " + std::to_string(lanes) + " addresses (one per active lane), got " + std::to_string(got_count));
      };
      if (mode == 0) {
        for (int k = 0; k < lanes; ++k) {
          uint64_t a;
          if (i >= t.text.size()) count_error(k);
          if (!parse_hex(t.text[i], a)) fail(t.column[i], "expected a hex address, got '" + std::string(t.text[i]) + "'");
          address(a);
          ++i;
        }
      } else if (lanes > 0) {
        uint64_t base;
        if (!parse_hex(need("the base address"), base)) fail(t.column[i], "expected a hex base address");
        ++i;
        if (mode == 1) {
          int64_t stride;
          if (!parse_dec(need("the stride"), stride)) fail(t.column[i], "expected a decimal stride");
          ++i;
          const int first_lane = std::countr_zero(inst.active_mask);
          const bool contiguous = std::has_single_bit((inst.active_mask >> first_lane) + 1ull);
          if (contiguous) {
            // The tracer's stride steps over consecutive active lanes; with no gaps that is
            // warpsim's lane-indexed form, which needs no per-lane storage.
            if (op->space == MemSpace::kShared && header_.shmem_base && base >= header_.shmem_base) base -= header_.shmem_base;
            inst.addr.base = base - static_cast<uint64_t>(stride * first_lane);
            inst.addr.stride = stride;
          } else {
            for (int k = 0; k < lanes; ++k) address(base + static_cast<uint64_t>(stride * k));
          }
        } else {
          uint64_t a = base;
          address(a);
          for (int k = 1; k < lanes; ++k) {
            int64_t delta;
            if (i >= t.text.size()) count_error(k);
            if (!parse_dec(t.text[i], delta)) fail(t.column[i], "expected a decimal delta, got '" + std::string(t.text[i]) + "'");
            a += static_cast<uint64_t>(delta);
            address(a);
            ++i;
          }
        }
      }
      if (pools.addresses.size() > first) inst.addr.list = reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(first + 1));
    }
    // What is left is the immediate (tracer 4 and 5 write one; older ones may not).
    if (t.text.size() > i + 1) {
      fail(t.column[i + 1], std::to_string(t.text.size() - i - 1) + " more value(s) than expected after " +
                                (width > 0 ? "the addresses; is the address count or mode wrong?" : "the immediate"));
    }
    if (t.text.size() == i + 1 && !parse_dec(t.text[i], dummy)) fail(t.column[i], "expected the immediate, got '" + std::string(t.text[i]) + "'");
    inst.num_dst = static_cast<uint8_t>(dsts.size());
    inst.num_src = static_cast<uint8_t>(srcs.size());
    inst.regs = reinterpret_cast<const RegId*>(static_cast<uintptr_t>(pools.regs.size()));
    pools.regs.insert(pools.regs.end(), dsts.begin(), dsts.end());
    pools.regs.insert(pools.regs.end(), srcs.begin(), srcs.end());
    return inst;
  }

  std::shared_ptr<AccelSimState> state_;
  LineSource source_;
  Header header_;
  KernelInfo info_;
  std::vector<bool> seen_;
  uint64_t ctas_ = 0;
  bool done_ = false;  // every block read
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool AccelSimWorkload::accepts(const std::string& path) {
  return ends_with(path, ".g") || ends_with(path, ".traceg") || ends_with(path, ".traceg.xz");
}

AccelSimWorkload::AccelSimWorkload(const std::string& path) : state_(std::make_shared<AccelSimState>()) {
  if (!ends_with(path, ".g")) {
    state_->kernel_files.push_back(path);
    return;
  }
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "cannot open the command list");
  fs::path dir = fs::path(path).parent_path();
  std::string line;
  uint32_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line.rfind("MemcpyHtoD", 0) == 0) {
      // MemcpyHtoD,<hex address>,<bytes>: data the kernels read; not timed (docs/accelsim.md).
      size_t c1 = line.find(','), c2 = line.find(',', c1 == std::string::npos ? 0 : c1 + 1);
      int64_t bytes = 0;
      if (c1 == std::string::npos || c2 == std::string::npos || !parse_dec(std::string_view(line).substr(c2 + 1), bytes)) {
        throw InputError(SourceLocation{path, number, 1}, "expected MemcpyHtoD,<address>,<bytes>");
      }
      ++state_->memcpys;
      state_->memcpy_bytes += static_cast<uint64_t>(bytes);
    } else if (line.rfind("MemcpyDtoH", 0) == 0) {
      continue;
    } else if (line.rfind("kernel", 0) == 0) {
      state_->kernel_files.push_back((dir / line).string());
    } else {
      throw InputError(SourceLocation{path, number, 1}, "unexpected '" + line + "'; expected a kernel trace file (kernel-N.traceg) or MemcpyHtoD,<address>,<bytes>");
    }
  }
}

AccelSimWorkload::~AccelSimWorkload() = default;

std::unique_ptr<KernelSource> AccelSimWorkload::next_kernel() {
  if (state_->kernel_open) throw SimulationError("accel-sim reader: previous kernel still open");
  if (state_->next_kernel >= state_->kernel_files.size()) return nullptr;
  auto k = std::make_unique<AccelSimKernel>(state_, state_->kernel_files[state_->next_kernel++]);
  state_->kernel_open = true;
  return k;
}

const std::map<std::string, uint64_t>& AccelSimWorkload::unknown_opcodes() const { return state_->unknown; }

const std::string& AccelSimWorkload::sass_opcode(const OpInfo* op) const {
  static const std::string kNone;
  auto it = state_->sass_of.find(op);
  return it == state_->sass_of.end() ? kNone : it->second;
}

uint64_t AccelSimWorkload::memcpy_commands() const { return state_->memcpys; }
uint64_t AccelSimWorkload::memcpy_bytes() const { return state_->memcpy_bytes; }

}  // namespace warpsim
