#include "cli/sweep_merge.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cli/cli_common.h"
#include "common/error.h"
#include "sweep/sweep_plan.h"
#include "views/sweep_chart.h"

namespace warpsim::cli {
namespace fs = std::filesystem;

namespace {

std::string csv_field(const nlohmann::ordered_json& v) {
  std::string s = v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

struct Result {
  SweepPoint point;
  nlohmann::ordered_json json;
};

std::map<std::string, Result> read_results(const std::string& dir) {
  std::map<std::string, Result> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(SourceLocation{dir, 0, 0}, "no results folder; expected the --results of 'warpsim sweep run'");
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".") || entry.path().extension() != ".json") continue;  // runs in progress
    std::ifstream in(entry.path());
    std::ostringstream text;
    text << in.rdbuf();
    const SourceLocation where{entry.path().string(), 1, 1};
    nlohmann::ordered_json j;
    try {
      j = nlohmann::ordered_json::parse(text.str());
    } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number out of range
      throw InputError(where, std::string("not JSON (") + e.what() + "); expected a result of 'warpsim sweep run'");
    }
    if (!j.is_object() || !j.contains("point") || !j.contains("status"))
      throw InputError(where, "not a sweep result; expected 'point' and 'status' (written by 'warpsim sweep run')");
    SweepPoint p = SweepPoint::from_json(j["point"], where);
    const std::string id = p.id;
    out.emplace(id, Result{std::move(p), std::move(j)});
  }
  return out;
}

// Adds "speedup": the baseline row's time over this row's, where the baseline row has the
// baseline values and otherwise the same input, arch and axes.
void add_speedups(nlohmann::ordered_json& rows, const std::vector<std::string>& axes, const std::vector<SweepBaseline>& baselines) {
  std::vector<std::string> columns{"input", "arch"};
  columns.insert(columns.end(), axes.begin(), axes.end());
  if (!rows.empty() && rows[0].contains("kernel")) columns.push_back("kernel");
  auto is_baseline_column = [&](const std::string& c) {
    return std::any_of(baselines.begin(), baselines.end(), [&](const SweepBaseline& b) { return b.column == c; });
  };
  auto group_of = [&](const nlohmann::ordered_json& row) {  // the columns a baseline does not fix
    std::string key;
    for (const auto& c : columns)
      if (!is_baseline_column(c)) key += csv_field(row[c]) + "\x1f";
    return key;
  };
  std::map<std::string, const nlohmann::ordered_json*> base;
  for (const auto& row : rows)
    if (std::all_of(baselines.begin(), baselines.end(), [&](const SweepBaseline& b) { return csv_field(row[b.column]) == b.value; }))
      base[group_of(row)] = &row;
  for (auto& row : rows) {
    auto it = base.find(group_of(row));
    const bool usable = it != base.end() && row["time_us"].is_number() && (*it->second)["time_us"].is_number() && row["time_us"].get<double>() > 0;
    row["speedup"] = usable ? nlohmann::ordered_json((*it->second)["time_us"].get<double>() / row["time_us"].get<double>()) : nlohmann::ordered_json(nullptr);
  }
}

}  // namespace

SweepTable merge_sweep(const std::string& results_dir, const std::vector<SweepPoint>* points, const SweepMergeOptions& options) {
  const auto& baselines = options.baselines;
  const std::map<std::string, Result> results = read_results(results_dir);
  std::vector<SweepPoint> rows;
  if (points) {
    rows = *points;
  } else {
    for (const auto& [id, r] : results) rows.push_back(r.point);
    std::stable_sort(rows.begin(), rows.end(), [](const SweepPoint& a, const SweepPoint& b) { return a.index < b.index; });
  }
  std::vector<std::string> axes;  // in the order they first appear
  for (const auto& p : rows)
    for (const auto& [axis, value] : p.axes)
      if (std::find(axes.begin(), axes.end(), axis) == axes.end()) axes.push_back(axis);

  SweepTable table;
  auto list = nlohmann::ordered_json::array();
  for (const auto& p : rows) {
    nlohmann::ordered_json row{{"index", p.index}, {"point_id", p.id}, {"input", p.input}, {"arch", p.arch}};
    for (const auto& axis : axes) {
      auto it = std::find_if(p.axes.begin(), p.axes.end(), [&](const auto& a) { return a.first == axis; });
      row[axis] = it == p.axes.end() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(it->second);
    }
    auto r = results.find(p.id);
    const nlohmann::ordered_json none;
    const auto& j = r == results.end() ? none : r->second.json;
    const std::string status = r == results.end() ? "missing" : j.value("status", "failed");
    (status == "ok" ? table.ok : status == "missing" ? table.missing : table.failed) += 1;
    row["status"] = status;
    row["exit_code"] = r == results.end() ? nlohmann::ordered_json(nullptr) : j["exit_code"];
    const bool has_run = r != results.end() && j.contains("run") && j["run"].is_object();
    // The run's summary, or with per_kernel each kernel's (a point that did not run keeps one row).
    std::vector<std::pair<nlohmann::ordered_json, const nlohmann::ordered_json*>> parts;
    if (options.per_kernel && has_run && j["run"].contains("kernels") && !j["run"]["kernels"].empty()) {
      for (const auto& k : j["run"]["kernels"]) parts.push_back({k["name"], &k["summary"]});
    } else {
      parts.push_back({nullptr, has_run ? &j["run"]["summary"] : &none});
    }
    for (const auto& [kernel, summary_ptr] : parts) {
      nlohmann::ordered_json out = row;
      if (options.per_kernel) out["kernel"] = kernel;
      const auto& summary = *summary_ptr;
      for (const char* m : kSweepMetrics) out[m] = summary.is_object() && summary.contains(m) ? summary[m] : nlohmann::ordered_json(nullptr);
      out["tensor_flops"] = summary.is_object() ? summary["flops"]["tensor"] : nlohmann::ordered_json(nullptr);
      out["check"] = has_run && j["run"].contains("check") ? nlohmann::ordered_json(j["run"]["check"]["passed"] ? "passed" : "FAILED")
                                                           : nlohmann::ordered_json(nullptr);
      // The largest |output - reference|: what a sweep over arithmetic (tensor.block_sum) changes.
      out["check_error"] = has_run && j["run"].contains("check") && j["run"]["check"].contains("largest_error")
                               ? j["run"]["check"]["largest_error"]
                               : nlohmann::ordered_json(nullptr);
      // The share of CTAs the timing model ran: below 1 where cycles and time_us are a sampled
      // run's projection (docs/sampling.md).
      out["timed_fraction"] = nlohmann::ordered_json(nullptr);
      if (summary.is_object() && summary.contains("sampling")) {
        const auto& sampled = summary["sampling"];
        const double timed = sampled["ctas_timed"].get<double>(), all = timed + sampled["ctas_untimed"].get<double>();
        out["timed_fraction"] = all > 0 ? timed / all : 1.0;
        // Counts are the whole kernel's in every row, so that sampled and whole rows compare:
        // FLOPs counted, DRAM bytes scaled from the timed part (rates stay the timed part's).
        if (sampled.contains("whole_kernel")) {
          const auto& whole = sampled["whole_kernel"];
          out["dram_bytes_read"] = std::llround(whole["dram_bytes_read_estimate"].get<double>());
          out["dram_bytes_written"] = std::llround(whole["dram_bytes_written_estimate"].get<double>());
          out["tensor_flops"] = whole["flops"]["tensor"];
        }
      } else if (summary.is_object() && summary.contains("cycles")) {
        out["timed_fraction"] = 1.0;
      }
      out["wall_seconds"] = r == results.end() ? nlohmann::ordered_json(nullptr) : j["wall_seconds"];
      list.push_back(std::move(out));
    }
  }
  for (const auto& b : baselines)
    if (b.column != "arch" && std::find(axes.begin(), axes.end(), b.column) == axes.end())
      throw UsageError{"--baseline " + b.column + "=" + b.value + ": '" + b.column + "' is neither arch nor an axis of this sweep"};
  if (!baselines.empty()) add_speedups(list, axes, baselines);
  table.rows = list;
  table.axes = axes;
  if (options.as_json) {
    table.text = list.dump(2) + "\n";
    return table;
  }
  std::ostringstream csv;
  if (!list.empty()) {  // every row has the same columns in the same order: the header is the first's
    size_t i = 0;
    for (const auto& [k, v] : list.front().items()) csv << (i++ ? "," : "") << csv_field(k);
    csv << "\n";
  }
  for (const auto& row : list) {
    size_t i = 0;
    for (const auto& [k, v] : row.items()) csv << (i++ ? "," : "") << csv_field(v);
    csv << "\n";
  }
  table.text = csv.str();
  return table;
}

std::string sweep_chart(const SweepTable& table, const std::string& x, const std::string& y) {
  if (std::find(table.axes.begin(), table.axes.end(), x) == table.axes.end() && x != "arch")
    throw UsageError{"--x " + x + ": not an axis of this sweep (nor arch)"};
  const auto& rows = table.rows;
  const bool numeric = !rows.empty() && rows[0].contains(y) &&
                       std::all_of(rows.begin(), rows.end(), [&](const auto& r) { return r[y].is_number() || r[y].is_null(); });
  if (!numeric)
    throw UsageError{"--y " + y + ": not a numeric column of this table (cycles, time_us, ipc, l2_hit_rate, dram_bandwidth_gbps, ...; speedup with --baseline)"};
  // The other columns that vary name the lines.
  std::vector<std::string> others{"input", "arch"};
  others.insert(others.end(), table.axes.begin(), table.axes.end());
  if (!table.rows.empty() && table.rows[0].contains("kernel")) others.push_back("kernel");
  others.erase(std::remove(others.begin(), others.end(), x), others.end());
  std::vector<std::string> varying;
  for (const auto& c : others)
    for (const auto& row : table.rows)
      if (row[c] != table.rows[0][c]) {
        varying.push_back(c);
        break;
      }
  std::vector<std::string> choices;
  std::vector<SweepSeries> series;
  for (const auto& row : table.rows) {
    const std::string choice = csv_field(row[x]);
    auto xi = std::find(choices.begin(), choices.end(), choice);
    if (xi == choices.end()) xi = choices.insert(choices.end(), choice);
    std::string label;
    for (const auto& c : varying) {
      std::string v = csv_field(row[c]);
      if (c == "input") v = fs::path(v).filename().string();
      label += (label.empty() ? "" : ", ") + (c == "input" || c == "arch" ? v : c + "=" + v);
    }
    if (label.empty()) label = y;
    auto si = std::find_if(series.begin(), series.end(), [&](const SweepSeries& s) { return s.label == label; });
    if (si == series.end()) si = series.insert(series.end(), SweepSeries{label, {}});
    const size_t at = static_cast<size_t>(xi - choices.begin());
    if (si->y.size() <= at) si->y.resize(at + 1);
    if (row["status"] == "ok" && row[y].is_number()) si->y[at] = row[y].get<double>();
  }
  for (auto& s : series) s.y.resize(choices.size());
  return sweep_chart_svg(y + " against " + x, x, choices, y, series);
}

}  // namespace warpsim::cli
