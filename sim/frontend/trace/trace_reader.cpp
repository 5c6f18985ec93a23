#include "frontend/trace/trace_reader.h"

#include <charconv>
#include <unordered_map>
#include <vector>

#include "common/error.h"
#include "frontend/buffered_cta.h"
#include "frontend/trace/instruction_parser.h"
#include "frontend/trace/line_cursor.h"
#include "frontend/trace/line_source.h"

namespace warpsim {

bool parse_u64(std::string_view s, uint64_t& out) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Shared by the workload and the kernel it has open: the file and the interned opcodes.
class TraceReaderState {
 public:
  explicit TraceReaderState(const std::string& path) : source(path) {}
  LineSource source;
  OpcodeCache opcodes;
  bool kernel_open = false;
  bool skipping_unread_kernel = false;

  // Next line that is not blank or a comment; false at end of file.
  bool next_content(std::string& line) {
    while (source.next(line)) {
      size_t i = line.find_first_not_of(" \t");
      if (i == std::string::npos || line[i] == '#') continue;
      return true;
    }
    return false;
  }
};

namespace {

bool is_directive(const std::string& line, std::string_view name) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line.compare(i, name.size(), name) != 0) return false;
  size_t end = i + name.size();
  return end == line.size() || is_space(line[end]);
}

uint64_t read_count(LineCursor& c, const char* what, uint64_t min, uint64_t max) {
  c.skip_space();
  size_t at = c.pos();
  std::string_view w = c.word();
  uint64_t v = 0;
  if (w.empty()) c.fail_at(at, std::string("expected ") + what);
  if (!parse_u64(w, v)) c.fail_at(at, std::string("expected ") + what + ", got '" + std::string(w) + "'");
  if (v < min || v > max) {
    c.fail_at(at, std::string(what) + " " + std::string(w) + " is out of range; expected " + std::to_string(min) + " to " +
                      std::to_string(max));
  }
  return v;
}

Dim3 read_dim3(LineCursor& c, const char* what, uint32_t min) {
  Dim3 d;
  d.x = static_cast<uint32_t>(read_count(c, what, min, 0x7fffffff));
  c.skip_space();
  if (!c.at_end() && c.peek() != '#') d.y = static_cast<uint32_t>(read_count(c, what, min, 65535));
  c.skip_space();
  if (!c.at_end() && c.peek() != '#') d.z = static_cast<uint32_t>(read_count(c, what, min, 65535));
  return d;
}

void expect_line_end(LineCursor& c) {
  c.skip_space();
  if (!c.at_end() && c.peek() != '#') c.fail("unexpected '" + std::string(c.rest()) + "', expected end of line");
}

class TraceKernel : public KernelSource {
 public:
  TraceKernel(std::shared_ptr<TraceReaderState> state, KernelInfo info, SourceLocation where)
      : state_(std::move(state)), info_(std::move(info)), where_(std::move(where)), seen_(info_.grid.count(), false) {}
  ~TraceKernel() override {
    if (finished_) return;  // the reader moved on when it was (a later kernel may be open now)
    state_->kernel_open = false;
    state_->skipping_unread_kernel = true;
  }
  const KernelInfo& info() const override { return info_; }

  bool ctas_share_nothing() const override { return true; }  // each CTA owns its parsed instructions
  bool parses_ctas() const override { return true; }
  std::unique_ptr<CtaWork> next_cta() override {
    std::string line;
    while (!finished_) {
      line.clear();  // at the end of the file next_content leaves it as it was
      if (!state_->next_content(line) || is_directive(line, ".kernel")) {
        if (!line.empty()) state_->source.unread(line);
        finished_ = true;
        state_->kernel_open = false;  // the next kernel may be read while this one's CTAs run (streams)
        if (ctas_read_ + cancelled_.size() != info_.grid.count()) {
          throw InputError(where_, "kernel '" + info_.name + "' has a grid of " + std::to_string(info_.grid.count()) +
                                       " CTAs but the trace lists " + std::to_string(ctas_read_) +
                                       (cancelled_.empty() ? "" : " and " + std::to_string(cancelled_.size()) + " cancelled"));
        }
        return nullptr;
      }
      const std::string& file = state_->source.path();
      LineCursor c(line, file, state_->source.line_number());
      c.skip_space();
      const bool cancelled = is_directive(line, ".cancelled");
      if (!cancelled && !is_directive(line, ".cta")) {
        c.fail("unexpected '" + std::string(c.rest()) + "', expected .cta x y z, .cancelled x y z or .kernel");
      }
      c.word();
      SourceLocation cta_at = c.location(0);
      Dim3 id = read_dim3(c, "CTA index", 0);
      expect_line_end(c);
      if (id.x >= info_.grid.x || id.y >= info_.grid.y || id.z >= info_.grid.z) {
        throw InputError(cta_at, "CTA " + id.str() + " lies outside the grid " + info_.grid.str());
      }
      uint64_t linear = linear_index(id, info_.grid);
      if (seen_[linear]) throw InputError(cta_at, "CTA " + id.str() + " is listed twice");
      seen_[linear] = true;
      if (cancelled) {  // its launch was cancelled: it never runs
        cancelled_.push_back(id);
        continue;
      }
      ++ctas_read_;
      return read_cta_body(id, cta_at);
    }
    return nullptr;
  }
  const std::vector<Dim3>& cancelled_ctas() const override { return cancelled_; }

 private:
  std::unique_ptr<CtaWork> read_cta_body(Dim3 id, const SourceLocation& cta_at) {
    const uint32_t warps = info_.warps_per_cta();
    auto cta = std::make_unique<BufferedCta>(id, warps);
    std::vector<bool> warp_seen(warps, false);
    int32_t current = -1;
    std::string line;
    const std::string& file = state_->source.path();
    while (state_->next_content(line)) {
      if (is_directive(line, ".cta") || is_directive(line, ".cancelled") || is_directive(line, ".kernel")) {
        state_->source.unread(line);
        break;
      }
      LineCursor c(line, file, state_->source.line_number());
      if (is_directive(line, ".warp")) {
        c.word();
        size_t at = c.pos();
        uint64_t w = read_count(c, "warp index", 0, warps - 1);
        expect_line_end(c);
        if (warp_seen[w]) c.fail_at(at + 1, "warp " + std::to_string(w) + " is listed twice in CTA " + id.str());
        warp_seen[w] = true;
        current = static_cast<int32_t>(w);
        continue;
      }
      c.skip_space();
      if (c.peek() == '.') {
        size_t at = c.pos();
        c.fail_at(at, "unknown directive '" + std::string(c.word()) + "' inside a CTA; expected .warp, .cta, .cancelled or .kernel");
      }
      if (current < 0) c.fail("instruction before any .warp line; expected .warp N");
      cta->add(static_cast<uint32_t>(current),
               parse_instruction(c, info_.full_mask(static_cast<uint32_t>(current)), state_->opcodes, registers_, cta->pools()));
    }
    for (uint32_t w = 0; w < warps; ++w) {
      if (!warp_seen[w]) {
        throw InputError(cta_at, "CTA " + id.str() + " has no .warp " + std::to_string(w) + "; a block of " +
                                     std::to_string(info_.block.count()) + " threads has " + std::to_string(warps) + " warps");
      }
    }
    cta->finish();
    return cta;
  }

  std::shared_ptr<TraceReaderState> state_;
  KernelInfo info_;
  SourceLocation where_;
  std::vector<bool> seen_;
  uint64_t ctas_read_ = 0;
  std::vector<Dim3> cancelled_;  // .cancelled lines read so far
  bool finished_ = false;
  RegisterNames registers_;
};

}  // namespace

TraceWorkload::TraceWorkload(const std::string& path) : state_(std::make_shared<TraceReaderState>(path)) {
  std::string line;
  if (!state_->next_content(line)) {
    throw InputError(SourceLocation{path, 1, 1}, "empty trace; expected '.version 1' as the first directive");
  }
  LineCursor c(line, path, state_->source.line_number());
  c.skip_space();
  size_t at = c.pos();
  if (c.word() != ".version") c.fail_at(at, "expected '.version 1' as the first directive of a warpsim trace");
  c.skip_space();
  size_t vat = c.pos();
  std::string_view v = c.word();
  if (v != "1") c.fail_at(vat, "unsupported trace version '" + std::string(v) + "'; this warpsim reads version 1");
  expect_line_end(c);
}

TraceWorkload::~TraceWorkload() = default;

std::unique_ptr<KernelSource> TraceWorkload::next_kernel() {
  if (state_->kernel_open) throw SimulationError("trace reader: previous kernel still open");
  std::string line;
  while (state_->next_content(line)) {
    if (is_directive(line, ".kernel")) break;
    if (state_->skipping_unread_kernel) continue;  // the caller stopped reading a kernel early
    LineCursor c(line, state_->source.path(), state_->source.line_number());
    c.skip_space();
    c.fail("unexpected '" + std::string(c.rest()) + "', expected .kernel NAME");
  }
  state_->skipping_unread_kernel = false;
  if (!is_directive(line, ".kernel")) return nullptr;
  const std::string& file = state_->source.path();
  LineCursor c(line, file, state_->source.line_number());
  c.word();
  SourceLocation where = c.location(line.find_first_not_of(" \t"));
  KernelInfo info;
  info.source_file = file;
  info.name = std::string(c.word());
  if (info.name.empty()) c.fail("expected a kernel name after .kernel");
  expect_line_end(c);
  bool have_grid = false, have_block = false;
  while (state_->next_content(line)) {
    LineCursor d(line, file, state_->source.line_number());
    d.skip_space();
    size_t at = d.pos();
    std::string_view key = d.word();
    if (key == ".cta" || key == ".cancelled" || key == ".kernel") {
      state_->source.unread(line);
      break;
    }
    if (key == ".grid") {
      info.grid = read_dim3(d, "grid dimension", 1);
      have_grid = true;
    } else if (key == ".block") {
      info.block = read_dim3(d, "block dimension", 1);
      have_block = true;
      if (info.block.count() > 65536) d.fail_at(at, "block of " + std::to_string(info.block.count()) + " threads; expected at most 65536");
    } else if (key == ".cluster") {
      info.cluster = read_dim3(d, "cluster dimension", 1);
      if (info.cluster.count() > 64) d.fail_at(at, "cluster of " + std::to_string(info.cluster.count()) + " CTAs; expected at most 64");
    } else if (key == ".shared") {
      info.shared_bytes = static_cast<uint32_t>(read_count(d, "shared memory bytes", 0, 1u << 30));
    } else if (key == ".stream") {
      d.skip_space();
      const size_t name_at = d.pos();
      info.stream = std::string(d.word());
      if (info.stream.empty()) d.fail_at(name_at, "expected a stream name after .stream");
    } else if (key == ".wait_for") {
      for (d.skip_space(); !d.at_end() && d.peek() != '#'; d.skip_space()) info.waits_for.emplace_back(d.word());
      if (info.waits_for.empty()) d.fail("expected the streams it waits for after .wait_for");
    } else if (key == ".regs") {
      info.registers_per_thread = static_cast<uint32_t>(read_count(d, "registers per thread", 0, 65535));
    } else {
      d.fail_at(at, "unknown kernel directive '" + std::string(key) + "'; expected .grid, .block, .cluster, .shared, .regs, .stream, .wait_for or .cta");
    }
    expect_line_end(d);
  }
  if (!have_grid) throw InputError(where, "kernel '" + info.name + "' has no .grid line");
  if (!info.waits_for.empty() && info.stream.empty()) {
    throw InputError(where, "kernel '" + info.name + "' has .wait_for but no .stream: a kernel of the default stream waits for every kernel before it");
  }
  if (!have_block) throw InputError(where, "kernel '" + info.name + "' has no .block line");
  state_->kernel_open = true;
  return std::make_unique<TraceKernel>(state_, std::move(info), where);
}

}  // namespace warpsim
