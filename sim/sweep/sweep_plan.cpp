#include "sweep/sweep_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/error.h"
#include "common/format.h"
#include "config/config_node.h"
#include "config/load_config.h"
#include "gpu/cta_sampler.h"
#include "report/json_report.h"
#include "sweep/fnv1a.h"

namespace warpsim {
namespace fs = std::filesystem;

namespace {

std::string stable_hash(const std::string& text) {
  Fnv1a h;
  h.add(text.data(), text.size());
  return h.hex();
}

constexpr uint64_t kMaxPoints = 1'000'000;

std::string joined(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

bool looks_like_path(const std::string& s) { return s.find('/') != std::string::npos || s.ends_with(".yaml"); }

// A path written in the sweep file is relative to that file's folder. Points carry absolute
// paths, so a points file works from any folder (a Slurm job's, say) on the same file system.
std::string beside(const std::string& sweep_file, const std::string& path) {
  fs::path p(path);
  if (p.is_relative()) p = fs::path(sweep_file).parent_path() / p;
  return fs::absolute(p).lexically_normal().string();
}

std::vector<const ConfigNode*> scalars(const ConfigNode& n, const std::string& what) {
  std::vector<const ConfigNode*> out;
  if (n.kind == ConfigNode::Kind::kScalar) {
    out.push_back(&n);
  } else if (n.kind == ConfigNode::Kind::kSequence) {
    for (const auto& item : n.items) {
      if (item.kind != ConfigNode::Kind::kScalar) throw InputError(item.where, what + " must be a list of names, got " + item.kind_name());
      out.push_back(&item);
    }
  } else {
    throw InputError(n.where, what + " must be a name or a list of names, got " + n.kind_name());
  }
  if (out.empty()) throw InputError(n.where, what + " is empty; expected at least one");
  return out;
}

// The text after '=' in a --set override: a scalar, or a flow list of scalars.
std::string value_text(const ConfigNode& v) {
  if (v.kind == ConfigNode::Kind::kScalar) return v.scalar;
  if (v.kind == ConfigNode::Kind::kSequence) {
    std::string s = "[";
    for (const auto& item : v.items) {
      if (item.kind != ConfigNode::Kind::kScalar) throw InputError(item.where, "a list value must hold scalars, got " + item.kind_name());
      s += (s.size() > 1 ? ", " : "") + item.scalar;
    }
    return s + "]";
  }
  throw InputError(v.where, "expected a value (a number, a word or a list), got " + v.kind_name());
}

struct Override {
  std::string assignment;
  SourceLocation where;
};

std::vector<Override> overrides_of(const ConfigNode& map, const std::string& what) {
  if (map.kind == ConfigNode::Kind::kNull) return {};  // `base: {}` or `base:` is the unmodified config
  if (map.kind != ConfigNode::Kind::kMap) throw InputError(map.where, what + " must be a map of config keys to values, got " + map.kind_name());
  std::vector<Override> out;
  for (size_t i = 0; i < map.entries.size(); ++i)
    out.push_back({map.entries[i].key + "=" + value_text(map.entries[i].value), map.key_locations[i]});
  return out;
}

// "key=x2" scales the key's current value (so "twice the L2" is one modifier on every GPU); the
// point's --set carries the product. Anything else is returned as it is.
std::string with_scale_applied(const ConfigNode& root, const Override& o) {
  const size_t eq = o.assignment.find('=');
  const std::string key = o.assignment.substr(0, eq), value = o.assignment.substr(eq + 1);
  if (value.size() < 2 || value[0] != 'x' || value.find_first_not_of("0123456789.", 1) != std::string::npos) return o.assignment;
  const ConfigNode* leaf = root.find_path(key);
  if (!leaf) {
    throw InputError(o.where, "'" + value + "' scales the value of " + key +
                                  ", which this config does not state (a key left at its default, or a misspelt one); give a value instead");
  }
  char* end = nullptr;
  const double factor = std::strtod(value.c_str() + 1, &end);
  if (*end != '\0') throw InputError(o.where, "'" + value + "' is not a scale factor; expected x and a number, such as x2 or x0.5");
  const double base = leaf->kind == ConfigNode::Kind::kScalar ? std::strtod(leaf->scalar.c_str(), &end) : 0;
  if (leaf->kind != ConfigNode::Kind::kScalar || leaf->scalar.empty() || *end != '\0')
    throw InputError(o.where, "'" + value + "' scales a number, but " + key + " is not one");
  const double product = base * factor;
  if (leaf->scalar.find_first_of(".eE") != std::string::npos) {
    char text[64];
    std::snprintf(text, sizeof text, "%.12g", product);
    return key + "=" + text;
  }
  if (!(std::abs(product) < 9e18)) throw InputError(o.where, value + " of " + key + " (" + leaf->scalar + ") is out of range");
  if (std::abs(product - std::round(product)) > 1e-9 * std::max(1.0, std::abs(product)))
    throw InputError(o.where, key + " takes whole numbers: " + value + " of " + leaf->scalar + " is " + std::to_string(product));
  return key + "=" + std::to_string(std::llround(product));
}

// One axis: the choices a point makes along it, each a label and the overrides it applies.
struct Axis {
  std::string name;
  std::vector<std::pair<std::string, std::vector<Override>>> choices;
};

Axis read_axis(const ConfigEntry& e, const SourceLocation& key_where) {
  if (is_sweep_table_column(e.key))
    throw InputError(key_where, "'" + e.key + "' names a column of the merged table; give this axis another name");
  Axis axis{e.key, {}};
  if (e.value.kind == ConfigNode::Kind::kSequence) {  // a config key swept over values
    for (const auto& v : e.value.items) axis.choices.push_back({value_text(v), {{e.key + "=" + value_text(v), v.where}}});
  } else if (e.value.kind == ConfigNode::Kind::kMap) {  // named modifiers
    for (size_t i = 0; i < e.value.entries.size(); ++i) {
      const auto& m = e.value.entries[i];
      axis.choices.push_back({m.key, overrides_of(m.value, "modifier '" + m.key + "'")});
    }
  } else {
    throw InputError(key_where, "axis '" + e.key + "' must be a list of values (for a config key) or a map of named modifiers, got " + e.value.kind_name());
  }
  if (axis.choices.empty()) throw InputError(key_where, "axis '" + e.key + "' has no values; expected at least one");
  return axis;
}

std::string option(const ConfigNode& options, const std::string& key, const std::vector<std::string>& allowed, const std::string& fallback) {
  const ConfigNode* n = options.find(key);
  if (!n) return fallback;
  if (n->kind != ConfigNode::Kind::kScalar || std::find(allowed.begin(), allowed.end(), n->scalar) == allowed.end()) {
    throw InputError(n->where, "options." + key + " must be one of: " + joined(allowed));
  }
  return n->scalar;
}

// options.sample: off (default), on (the default tolerance) or a tolerance in (0, 1); what
// SweepPoint::sample holds.
std::string sample_option(const ConfigNode& options) {
  const ConfigNode* n = options.find("sample");
  if (!n || (n->kind == ConfigNode::Kind::kScalar && (n->scalar == "off" || n->scalar == "false"))) return "";
  if (n->kind == ConfigNode::Kind::kScalar && (n->scalar == "on" || n->scalar == "true")) return fmt("%g", SamplingOptions{}.tolerance);
  if (n->kind == ConfigNode::Kind::kScalar) {
    char* end = nullptr;
    const double t = std::strtod(n->scalar.c_str(), &end);
    if (!n->scalar.empty() && *end == '\0' && t > 0 && t < 1) return n->scalar;
  }
  throw InputError(n->where, "options.sample must be off, on, or a tolerance between 0 and 1 (exclusive), as warpsim run --sample-tolerance takes");
}

void check_keys(const ConfigNode& map, const std::vector<std::string>& known, const std::string& what) {
  for (size_t i = 0; i < map.entries.size(); ++i) {
    if (std::find(known.begin(), known.end(), map.entries[i].key) != known.end()) continue;
    throw InputError(map.key_locations[i], "unknown key '" + map.entries[i].key + "' in " + what + "; expected one of: " + joined(known));
  }
}

// The arch as `warpsim run --arch` takes it; a file that is not there is reported where the
// sweep names it.
std::string resolve_arch(const std::string& sweep_file, const ConfigNode& name) {
  if (looks_like_path(name.scalar)) {
    const std::string path = beside(sweep_file, name.scalar);
    std::error_code ec;
    if (!fs::exists(path, ec)) throw InputError(name.where, "no config file '" + path + "'");
    return path;
  }
  const auto shipped = shipped_config_names();
  if (std::find(shipped.begin(), shipped.end(), name.scalar) == shipped.end()) {
    throw InputError(name.where, "unknown config '" + name.scalar + "'; expected a YAML file or one of: " + joined(shipped));
  }
  return name.scalar;
}

}  // namespace

bool is_sweep_table_column(const std::string& name) {
  static const char* const kOwn[] = {"index", "point_id", "input", "arch", "status", "exit_code", "kernel", "tensor_flops", "check",
                                     "check_error", "timed_fraction", "wall_seconds", "speedup"};
  auto in = [&](const auto& list) { return std::find(std::begin(list), std::end(list), name) != std::end(list); };
  return in(kOwn) || in(kSweepMetrics);
}

nlohmann::ordered_json SweepPoint::to_json() const {
  nlohmann::ordered_json a = nlohmann::ordered_json::object();
  for (const auto& [k, v] : axes) a[k] = v;
  nlohmann::ordered_json j{{"index", index}, {"point_id", id},       {"input", input},   {"arch", arch},
                           {"axes", a},      {"set", sets},          {"checks", checks}, {"reconvergence", reconvergence}};
  if (!sample.empty()) j["sample"] = sample;
  if (!isa.empty()) j["isa"] = isa;
  return j;
}

SweepPoint SweepPoint::from_json(const nlohmann::ordered_json& j, const SourceLocation& where) {
  SweepPoint p;
  try {
    p.index = j.at("index").get<uint64_t>();
    p.id = j.at("point_id").get<std::string>();
    p.input = j.at("input").get<std::string>();
    p.arch = j.at("arch").get<std::string>();
    for (const auto& [k, v] : j.at("axes").items()) p.axes.emplace_back(k, v.get<std::string>());
    p.sets = j.at("set").get<std::vector<std::string>>();
    p.checks = j.at("checks").get<std::string>();
    p.reconvergence = j.at("reconvergence").get<std::string>();
    p.sample = j.value("sample", "");  // absent from points files written before sampling
    p.isa = j.value("isa", "");        // absent from points files written before SASS
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where, std::string("not a sweep point (") + e.what() + "); expected a line written by 'warpsim sweep plan'");
  }
  if (p.id.size() != 16 || p.id.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw InputError(where, "point_id '" + p.id + "' is not 16 hex digits");
  return p;
}

std::vector<std::string> SweepPoint::run_arguments(const std::string& json_path) const {
  std::vector<std::string> args{"run", "--arch", arch};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  args.insert(args.end(), {input, "--json", json_path, "--quiet", "--checks", checks});
  if (!reconvergence.empty()) args.insert(args.end(), {"--reconvergence", reconvergence});
  if (!sample.empty()) args.insert(args.end(), {"--sample", "--sample-tolerance", sample});
  if (!isa.empty()) args.insert(args.end(), {"--isa", isa});
  return args;
}

std::vector<SweepPoint> plan_sweep(const std::string& sweep_file) {
  const ConfigNode root = load_yaml_file(sweep_file);
  if (root.kind != ConfigNode::Kind::kMap) throw InputError(root.where, "a sweep file must be a map with inputs:, arch: and axes:");
  check_keys(root, {"inputs", "arch", "axes", "set", "options"}, "a sweep file");
  const ConfigNode* inputs_node = root.find("inputs");
  const ConfigNode* arch_node = root.find("arch");
  if (!inputs_node) throw InputError(SourceLocation{sweep_file, 1, 1}, "missing 'inputs:' (the traces or launch files to run)");
  if (!arch_node) throw InputError(SourceLocation{sweep_file, 1, 1}, "missing 'arch:' (a config name, a YAML file, or a list of them)");

  std::vector<std::string> inputs;
  for (const ConfigNode* n : scalars(*inputs_node, "inputs")) {
    std::string path = beside(sweep_file, n->scalar);
    std::error_code ec;
    if (!fs::exists(path, ec)) throw InputError(n->where, "no input file '" + path + "'");
    inputs.push_back(path);
  }
  const ConfigNode empty;
  const ConfigNode* options = root.find("options");
  if (options && options->kind != ConfigNode::Kind::kMap) throw InputError(options->where, "options must be a map (checks:, reconvergence:, sample:, isa:)");
  if (options) check_keys(*options, {"checks", "reconvergence", "sample", "isa"}, "options");
  const std::string checks = option(options ? *options : empty, "checks", {"error", "warn", "off"}, "error");
  const std::string reconvergence = option(options ? *options : empty, "reconvergence", {"stack", "independent"}, "");
  const std::string sample = sample_option(options ? *options : empty);
  const std::string isa = option(options ? *options : empty, "isa", {"sass", "ptx", "auto"}, "");

  const ConfigNode* set_node = root.find("set");
  const std::vector<Override> common = set_node ? overrides_of(*set_node, "set") : std::vector<Override>{};
  std::vector<Axis> axes;
  if (const ConfigNode* a = root.find("axes")) {
    if (a->kind != ConfigNode::Kind::kMap) throw InputError(a->where, "axes must be a map: a config key to a list of values, or an axis name to named modifiers");
    for (size_t i = 0; i < a->entries.size(); ++i) axes.push_back(read_axis(a->entries[i], a->key_locations[i]));
  }

  // A sweep is meant to be run: refuse one too large to run before building it.
  const auto archs = scalars(*arch_node, "arch");
  double count = double(inputs.size()) * double(archs.size());
  for (const auto& a : axes) count *= double(a.choices.size());
  if (count > double(kMaxPoints))
    throw InputError(root.find("axes") ? root.find("axes")->where : arch_node->where,
                     "the sweep has " + fmt("%.3g", count) + " points; at most " + std::to_string(kMaxPoints) + " (split it into several sweeps)");

  // Every config is loaded once; each point's overrides go onto a copy, so an override's errors
  // point at its line in the sweep file.
  std::vector<SweepPoint> points;
  std::map<std::string, LoadedConfig> bases;
  for (const std::string& input : inputs) {
    for (const ConfigNode* arch_name : archs) {
      const std::string arch = resolve_arch(sweep_file, *arch_name);
      if (!bases.count(arch)) bases.emplace(arch, load_gpu_config(arch));
      std::vector<size_t> at(axes.size(), 0);  // an odometer over the axes, the last one fastest
      while (true) {
        ConfigNode resolved = bases.at(arch).resolved;
        SweepPoint p;
        p.index = points.size();
        p.input = input;
        p.arch = arch;
        p.checks = checks;
        p.reconvergence = reconvergence;
        p.sample = sample;
        p.isa = isa;
        std::vector<Override> applied = common;
        for (size_t k = 0; k < axes.size(); ++k) {
          const auto& [label, overrides] = axes[k].choices[at[k]];
          p.axes.emplace_back(axes[k].name, label);
          applied.insert(applied.end(), overrides.begin(), overrides.end());
        }
        for (const auto& o : applied) {
          const std::string assignment = with_scale_applied(resolved, o);
          apply_override(resolved, assignment, o.where);
          p.sets.push_back(assignment);
        }
        read_gpu_spec(resolved, arch);  // range and consistency checks, at the override's line
        p.id = stable_hash("warpsim sweep point v1\n" + input + "\n" + config_json(resolved).dump() + "\n" + checks + "\n" + reconvergence +
                          (sample.empty() ? "" : "\nsample " + sample) + (isa.empty() ? "" : "\nisa " + isa));  // points without these keep the ids they had
        points.push_back(std::move(p));
        size_t k = axes.size();
        for (; k > 0; --k) {
          if (++at[k - 1] < axes[k - 1].choices.size()) break;
          at[k - 1] = 0;
        }
        if (k == 0) break;
      }
    }
  }
  return points;
}

std::vector<SweepPoint> read_points(const std::string& points_file) {
  std::ifstream in(points_file);
  if (!in) throw InputError(SourceLocation{points_file, 0, 0}, "cannot read the points file");
  std::vector<SweepPoint> points;
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::ordered_json j;  // keeps the axes in the order the sweep file gave them
    try {
      j = nlohmann::ordered_json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(SourceLocation{points_file, n, static_cast<uint32_t>(e.byte)}, "not JSON; expected one sweep point per line");
    } catch (const nlohmann::json::exception& e) {  // valid syntax the parser still refuses: a number out of range
      throw InputError(SourceLocation{points_file, n, 1}, std::string("not a sweep point (") + e.what() + ")");
    }
    points.push_back(SweepPoint::from_json(j, SourceLocation{points_file, n, 1}));
  }
  if (points.empty()) throw InputError(SourceLocation{points_file, 0, 0}, "no points; expected the output of 'warpsim sweep plan'");
  return points;
}

}  // namespace warpsim
