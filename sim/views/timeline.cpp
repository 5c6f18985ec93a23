#include "views/timeline.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "common/format.h"
#include "views/json_text.h"

namespace warpsim {

namespace {
// Room kept under the cap for the metadata and counters written at the end.
constexpr uint64_t kReserveBytes = 1u << 20;

std::string dim(const Dim3& d) { return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")"; }
}  // namespace

std::vector<uint32_t> parse_index_list(const std::string& text) {
  std::vector<uint32_t> out;
  size_t i = 0;
  auto number = [&]() {
    size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (start == i || i - start > 9) throw std::invalid_argument("'" + text + "': expected a number at position " + std::to_string(start + 1));
    return static_cast<uint32_t>(std::stoul(text.substr(start, i - start)));
  };
  while (i < text.size()) {
    uint32_t a = number(), b = a;
    if (i < text.size() && text[i] == '-') {
      ++i;
      b = number();
      if (b < a) throw std::invalid_argument("'" + text + "': range " + std::to_string(a) + "-" + std::to_string(b) + " runs backwards");
      if (b - a > 1u << 20) throw std::invalid_argument("'" + text + "': range too large");
    }
    for (uint32_t v = a; v <= b; ++v) out.push_back(v);
    if (i < text.size()) {
      if (text[i] != ',') throw std::invalid_argument("'" + text + "': expected ',' or '-' at position " + std::to_string(i + 1));
      ++i;
    }
  }
  if (out.empty()) throw std::invalid_argument("empty list; expected numbers like 0,2,5-7");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

uint64_t Timeline::Gauge::read() const {
  uint64_t v = 0;
  for (const uint64_t* p : values) v += *p;
  return v;
}

Timeline::Gauge Timeline::gauge(const std::string& group) const {
  Gauge g;
  if (const StatRegistry::Group* counters = stats_.find_group(group)) {
    for (size_t i : counters->entries) g.values.push_back(stats_.entries()[i].value);
  }
  g.last = g.read();
  return g;
}

Timeline::Timeline(TimelineOptions options, const GpuSpec& spec, const StatRegistry& stats)
    : options_(std::move(options)), gpu_name_(spec.name), clock_mhz_(spec.clocks.boost_mhz), stats_(stats) {
  const uint32_t sms = spec.topology.sms;
  slots_.assign(sms, std::vector<Slot>(spec.limits.max_warps_per_sm));
  active_warps_.assign(sms, 0);
  issued_.assign(sms, 0);
  sm_used_.assign(sms, false);
  if (options_.counter_interval == 0) options_.counter_interval = 1000;
  l1_hits_ = gauge("gpu.sm[*].l1.sector_hits");
  l1_misses_ = gauge("gpu.sm[*].l1.sector_misses");
  l2_hits_ = gauge("gpu.l2.sector_read_hits");
  l2_reads_ = gauge("gpu.l2.sector_reads");
  dram_read_ = gauge("gpu.dram.bytes_read");
  dram_written_ = gauge("gpu.dram.bytes_written");
}

namespace {
bool listed(const std::vector<uint32_t>& list, uint32_t v) { return list.empty() || std::binary_search(list.begin(), list.end(), v); }
}  // namespace

bool Timeline::shows_sm(uint32_t sm) const { return listed(options_.sms, sm); }
bool Timeline::shows(uint32_t sm, uint32_t slot) const { return listed(options_.sms, sm) && listed(options_.slots, slot); }

void Timeline::append(const std::string& event) {
  if (body_.size() + event.size() + kReserveBytes > options_.max_bytes) {
    ++dropped_;
    return;
  }
  if (written_++) body_ += ",\n";
  body_ += event;
}

void Timeline::counter(uint32_t pid, const char* name, Cycle at, double value) {
  char buf[160];
  std::snprintf(buf, sizeof buf, R"J({"ph":"C","pid":%u,"ts":%llu,"name":"%s","args":{"value":%.4g}})J", pid,
                static_cast<unsigned long long>(at), name, value);
  append(buf);
}

void Timeline::sample(Cycle now) {
  if (now < next_sample_) return;
  const Cycle begin = last_sample_, span = now - begin;
  auto delta = [](Gauge& g) {
    uint64_t v = g.read(), d = v - g.last;
    g.last = v;
    return d;
  };
  const uint64_t h1 = delta(l1_hits_), m1 = delta(l1_misses_), h2 = delta(l2_hits_), r2 = delta(l2_reads_);
  const uint64_t bytes = delta(dram_read_) + delta(dram_written_);
  const bool visible = span > 0 && begin >= options_.from && begin < options_.to;
  if (visible) {
    for (uint32_t sm = 0; sm < issued_.size(); ++sm) {
      if (sm_used_[sm] && shows_sm(sm)) counter(sm + 1, "IPC", begin, double(issued_[sm]) / double(span));
    }
    if (h1 + m1) counter(0, "L1 hit rate (%)", begin, 100.0 * double(h1) / double(h1 + m1));
    if (r2) counter(0, "L2 hit rate (%)", begin, 100.0 * double(h2) / double(r2));
    // bytes per cycle x cycles per microsecond / 1000 = GB/s
    counter(0, "DRAM bandwidth (GB/s)", begin, double(bytes) / double(span) * clock_mhz_ / 1000.0);
  }
  std::fill(issued_.begin(), issued_.end(), 0);
  last_sample_ = now;
  next_sample_ = now - now % options_.counter_interval + options_.counter_interval;
}

void Timeline::kernel_started(const KernelInfo& kernel, Cycle start) {
  // A track per stream, as Nsight Systems draws them (a stream's kernels never overlap): the
  // default stream's is "kernels", track 0. The counters restart only when nothing else runs.
  uint32_t track = 0;
  if (!kernel.stream.empty()) {
    auto it = std::find(streams_.begin(), streams_.end(), kernel.stream);
    if (it == streams_.end()) it = streams_.insert(streams_.end(), kernel.stream);
    track = static_cast<uint32_t>(it - streams_.begin()) + 1;
  }
  bool others = false;
  for (const auto& k : kernels_) others |= k.running;
  kernels_.push_back({kernel.name, start, start, &kernel, track, true});
  if (others) return;
  last_sample_ = start;
  next_sample_ = start - start % options_.counter_interval + options_.counter_interval;
  for (auto& g : {&l1_hits_, &l1_misses_, &l2_hits_, &l2_reads_, &dram_read_, &dram_written_}) g->last = g->read();
}

void Timeline::kernel_finished(const KernelInfo& kernel, Cycle end) {
  next_sample_ = 0;
  sample(end);
  for (auto& k : kernels_) {
    if (k.running && k.info == &kernel) {
      k.end = end;
      k.running = false;
      k.info = nullptr;
    }
  }
}

void Timeline::warp_launched(uint32_t sm, uint32_t slot, const KernelInfo& kernel, Dim3 cta, uint32_t warp_in_cta, Cycle first) {
  sample(first);
  Slot& s = slots_[sm][slot];
  s.cta = cta;
  s.warp = warp_in_cta;
  s.used = true;
  sm_used_[sm] = true;
  if (s.occupants.size() < 3) {
    // Kernels of streams may share an SM: theirs say whose CTA it is.
    s.occupants.push_back((kernel.stream.empty() ? "" : kernel.name + " ") + "CTA " + dim(cta) + " warp " + std::to_string(warp_in_cta));
  } else {
    ++s.more_occupants;
  }
  ++active_warps_[sm];
  if (shows_sm(sm) && first >= options_.from && first < options_.to) counter(sm + 1, "active warps", first, active_warps_[sm]);
}

void Timeline::emit_span(uint32_t sm, uint32_t slot, const Slot& s, Cycle begin, Cycle end) {
  begin = std::max(begin, options_.from);
  end = std::min(end, options_.to);
  if (begin >= end || !shows(sm, slot)) return;
  std::string e = R"J({"ph":"X","pid":)J" + std::to_string(sm + 1) + R"J(,"tid":)J" + std::to_string(slot) + R"J(,"ts":)J" +
                  std::to_string(begin) + R"J(,"dur":)J" + std::to_string(end - begin) + R"J(,"name":")J";
  const Open& o = s.state;
  if (o.reason == StallReason::kSelected) {
    char mask[16];
    std::snprintf(mask, sizeof mask, "0x%08x", o.mask);
    e += json_escape(o.opcode) + R"J(","cat":"issue","args":{"pc":)J" + std::to_string(o.pc) + R"J(,"line":)J" + std::to_string(o.line);
    if (o.source_line) e += R"J(,"source_line":)J" + std::to_string(o.source_line);
    e += R"J(,"mask":")J" + std::string(mask) + R"J(","active_lanes":)J" + std::to_string(__builtin_popcount(o.mask));
  } else {
    e += std::string(stall_reason_name(o.reason)) + R"J(","cat":"stall","args":{"cycles":)J" + std::to_string(end - begin);
  }
  e += R"J(,"cta":")J" + dim(s.cta) + R"J(","warp":)J" + std::to_string(s.warp) + "}}";
  append(e);
}

void Timeline::close(uint32_t sm, uint32_t slot, Slot& s, Cycle end) {
  if (!s.state.open) return;
  emit_span(sm, slot, s, s.state.since, end);
  s.state.open = false;
}

void Timeline::warp_state(uint32_t sm, uint32_t slot, Cycle at, StallReason reason, const WarpInst* issued) {
  sample(at);
  Slot& s = slots_[sm][slot];
  if (reason == StallReason::kSelected) ++issued_[sm];
  // A stall that continues is one interval; every issue is its own event.
  if (s.state.open && s.state.reason == reason && reason != StallReason::kSelected) return;
  close(sm, slot, s, at);
  s.state.open = true;
  s.state.reason = reason;
  s.state.since = at;
  if (issued) {
    s.state.opcode = issued->op->mnemonic;
    s.state.pc = issued->pc;
    s.state.line = issued->line;
    s.state.source_line = issued->source_line;
    s.state.mask = issued->active_mask;
  }
}

void Timeline::warp_retired(uint32_t sm, uint32_t slot, Cycle end) {
  Slot& s = slots_[sm][slot];
  close(sm, slot, s, end);
  --active_warps_[sm];
  if (shows_sm(sm) && end >= options_.from && end < options_.to) counter(sm + 1, "active warps", end, active_warps_[sm]);
}

std::string Timeline::note() const {
  if (!dropped_) return "";
  return "timeline reached its " + std::to_string(options_.max_bytes >> 20) + " MiB cap: " + std::to_string(dropped_) +
         " events were dropped after " + std::to_string(written_) +
         " (pick SMs, warp slots or a cycle window with --timeline-sms, --timeline-warps, --timeline-window, or raise --timeline-max-mb)";
}

std::string Timeline::finish() {
  std::string meta;
  auto add = [&](const std::string& e) { meta += e + ",\n"; };
  add(R"J({"ph":"M","pid":0,"name":"process_name","args":{"name":"GPU )J" + json_escape(gpu_name_) + R"J( (kernels, memory)"}})J");
  add(R"J({"ph":"M","pid":0,"name":"process_sort_index","args":{"sort_index":0}})J");
  for (uint32_t t = 0; t <= streams_.size(); ++t) {
    add(R"J({"ph":"M","pid":0,"tid":)J" + std::to_string(t) + R"J(,"name":"thread_name","args":{"name":")J" +
        (t ? "stream " + json_escape(streams_[t - 1]) : std::string("kernels")) + R"J("}})J");
  }
  for (const auto& k : kernels_) {
    add(R"J({"ph":"X","pid":0,"tid":)J" + std::to_string(k.track) + R"J(,"ts":)J" + std::to_string(k.start) + R"J(,"dur":)J" + std::to_string(k.end - k.start) +
        R"J(,"name":")J" + json_escape(k.name) + R"J(","cat":"kernel"})J");
  }
  for (uint32_t sm = 0; sm < slots_.size(); ++sm) {
    if (!sm_used_[sm] || !shows_sm(sm)) continue;
    const std::string pid = std::to_string(sm + 1);
    add(R"J({"ph":"M","pid":)J" + pid + R"J(,"name":"process_name","args":{"name":"SM )J" + std::to_string(sm) + R"J("}})J");
    add(R"J({"ph":"M","pid":)J" + pid + R"J(,"name":"process_sort_index","args":{"sort_index":)J" + pid + "}}");
    for (uint32_t slot = 0; slot < slots_[sm].size(); ++slot) {
      const Slot& s = slots_[sm][slot];
      if (!s.used || !shows(sm, slot)) continue;
      std::string name = "slot " + std::to_string(slot) + ": ";
      for (size_t i = 0; i < s.occupants.size(); ++i) name += (i ? ", " : "") + s.occupants[i];
      if (s.more_occupants) name += " and " + std::to_string(s.more_occupants) + " more";
      add(R"J({"ph":"M","pid":)J" + pid + R"J(,"tid":)J" + std::to_string(slot) + R"J(,"name":"thread_name","args":{"name":")J" +
          json_escape(name) + R"J("}})J");
      add(R"J({"ph":"M","pid":)J" + pid + R"J(,"tid":)J" + std::to_string(slot) + R"J(,"name":"thread_sort_index","args":{"sort_index":)J" +
          std::to_string(slot) + "}}");
    }
  }
  if (dropped_) {
    add(R"J({"ph":"i","s":"g","pid":0,"tid":0,"ts":0,"name":"TRUNCATED: )J" + json_escape(note()) + R"J("})J");
  }
  std::string head = R"J({"otherData":{"generator":"warpsim","gpu":")J" + json_escape(gpu_name_) +
                     R"J(","time_axis":"1 us on the time axis = 1 core cycle ()J" + fmt("%g", clock_mhz_) +
                     R"J( MHz)","events_written":)J" + std::to_string(written_) + R"J(,"events_dropped":)J" + std::to_string(dropped_) +
                     "},\n\"traceEvents\":[\n";
  if (written_ == 0 && !meta.empty()) meta.resize(meta.size() - 2);
  return head + meta + body_ + "\n]}\n";
}

}  // namespace warpsim
