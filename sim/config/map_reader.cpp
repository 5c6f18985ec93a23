#include "config/map_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "common/error.h"

namespace warpsim {

void config_error(const SourceLocation& where, const std::string& message) { throw InputError(where, message); }

MapReader::MapReader(const ConfigNode& node, std::string path) : node_(node), path_(std::move(path)) {
  if (node.kind != ConfigNode::Kind::kMap) {
    config_error(node.where, "'" + (path_.empty() ? std::string("config") : path_) + "' must be a map of keys, got " +
                                 node.kind_name());
  }
}

void MapReader::ask(const std::string& key) const {
  if (std::find(asked_.begin(), asked_.end(), key) == asked_.end()) asked_.push_back(key);
}

bool MapReader::has(const std::string& key) const {
  ask(key);
  return node_.find(key) != nullptr;
}

const SourceLocation& MapReader::location(const std::string& key) const {
  const ConfigNode* n = node_.find(key);
  return n ? n->where : node_.where;
}

const SourceLocation& MapReader::key_location(const std::string& key) const { return node_.key_location(key); }

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

void MapReader::missing(const std::string& key) const {
  // A missing key is most often a misspelt one: point at the misspelling if there is one.
  for (size_t i = 0; i < node_.entries.size(); ++i) {
    const std::string& other = node_.entries[i].key;
    if (!used_.count(other) && edit_distance(other, key) <= 2) {
      config_error(node_.key_locations[i], "unknown key '" + full(other) + "'; did you mean '" + key + "'?");
    }
  }
  config_error(node_.where, "missing required key '" + full(key) + "'");
}

const ConfigNode& MapReader::require(const std::string& key, ConfigNode::Kind kind) {
  ask(key);
  const ConfigNode* n = node_.find(key);
  if (!n) missing(key);
  used_.insert(key);
  if (n->kind != kind) {
    std::string want = kind == ConfigNode::Kind::kMap        ? "a map"
                       : kind == ConfigNode::Kind::kSequence ? "a list"
                                                             : "a value";
    config_error(n->where, "'" + full(key) + "' must be " + want + ", got " + n->kind_name());
  }
  return *n;
}

MapReader MapReader::section(const std::string& key) {
  return MapReader(require(key, ConfigNode::Kind::kMap), full(key));
}

const ConfigNode& MapReader::raw(const std::string& key) {
  ask(key);
  const ConfigNode* n = node_.find(key);
  if (!n) missing(key);
  used_.insert(key);
  return *n;
}

namespace {
bool parse_int(const std::string& s, int64_t& v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}
bool parse_double(const std::string& s, double& v) {
  if (s.empty()) return false;
  std::istringstream in(s);
  in.imbue(std::locale::classic());
  in >> v;
  return in && in.peek() == EOF && std::isfinite(v);
}
}  // namespace

int64_t MapReader::integer(const std::string& key, int64_t min, int64_t max) {
  const ConfigNode& n = require(key, ConfigNode::Kind::kScalar);
  int64_t v = 0;
  if (!parse_int(n.scalar, v)) config_error(n.where, "'" + full(key) + "' must be an integer, got '" + n.scalar + "'");
  if (v < min || v > max) {
    config_error(n.where, "'" + full(key) + "' = " + n.scalar + " is out of range; expected " + std::to_string(min) +
                              " to " + std::to_string(max));
  }
  return v;
}

int64_t MapReader::integer_or(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  return has(key) ? integer(key, min, max) : fallback;
}

double MapReader::number(const std::string& key, double min, double max) {
  const ConfigNode& n = require(key, ConfigNode::Kind::kScalar);
  double v = 0;
  if (!parse_double(n.scalar, v)) config_error(n.where, "'" + full(key) + "' must be a number, got '" + n.scalar + "'");
  if (v < min || v > max) {
    std::ostringstream msg;
    msg << "'" << full(key) << "' = " << n.scalar << " is out of range; expected " << min << " to " << max;
    config_error(n.where, msg.str());
  }
  return v;
}

double MapReader::number_or(const std::string& key, double fallback, double min, double max) {
  return has(key) ? number(key, min, max) : fallback;
}

bool MapReader::boolean_or(const std::string& key, bool fallback) {
  if (!has(key)) return fallback;
  const ConfigNode& n = require(key, ConfigNode::Kind::kScalar);
  if (n.scalar == "true") return true;
  if (n.scalar == "false") return false;
  config_error(n.where, "'" + full(key) + "' must be true or false, got '" + n.scalar + "'");
}

std::string MapReader::string(const std::string& key) { return require(key, ConfigNode::Kind::kScalar).scalar; }

std::string MapReader::string_or(const std::string& key, std::string fallback) {
  return has(key) ? string(key) : fallback;
}

std::string MapReader::choice(const std::string& key, const std::vector<std::string>& allowed, std::string fallback) {
  if (!has(key)) return fallback;
  const ConfigNode& n = require(key, ConfigNode::Kind::kScalar);
  std::string list;
  for (const auto& a : allowed) {
    if (a == n.scalar) return a;
    list += (list.empty() ? "" : ", ") + a;
  }
  config_error(n.where, "'" + full(key) + "' = '" + n.scalar + "' is not valid; expected one of: " + list);
}

std::vector<int64_t> MapReader::integer_list(const std::string& key, int64_t min, int64_t max) {
  const ConfigNode& n = require(key, ConfigNode::Kind::kSequence);
  std::vector<int64_t> out;
  for (const auto& item : n.items) {
    int64_t v = 0;
    if (item.kind != ConfigNode::Kind::kScalar || !parse_int(item.scalar, v)) {
      config_error(item.where, "'" + full(key) + "' must list integers, got " + item.kind_name());
    }
    if (v < min || v > max) {
      config_error(item.where, "'" + full(key) + "' entry " + item.scalar + " is out of range; expected " +
                                   std::to_string(min) + " to " + std::to_string(max));
    }
    out.push_back(v);
  }
  return out;
}

std::vector<std::pair<std::string, SourceLocation>> MapReader::string_list(const std::string& key) {
  const ConfigNode& n = require(key, ConfigNode::Kind::kSequence);
  std::vector<std::pair<std::string, SourceLocation>> out;
  for (const auto& item : n.items) {
    if (item.kind != ConfigNode::Kind::kScalar) config_error(item.where, "'" + full(key) + "' must list names, got " + item.kind_name());
    out.emplace_back(item.scalar, item.where);
  }
  return out;
}

std::vector<std::string> MapReader::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : node_.entries) out.push_back(k);
  return out;
}

void MapReader::finish() const {
  for (size_t i = 0; i < node_.entries.size(); ++i) {
    const std::string& key = node_.entries[i].key;
    if (used_.count(key)) continue;
    // The closest key this section reads, if close enough to be a misspelling of it.
    std::string hint = "; see docs/configs.md for the keys this section accepts";
    size_t best = key.size() < 6 ? 2 : 3;
    for (const std::string& asked : asked_) {
      const size_t d = edit_distance(asked, key);
      if (d < best) best = d, hint = "; did you mean '" + asked + "'?";
    }
    config_error(node_.key_locations[i], "unknown key '" + full(key) + "'" +
                                             (path_.empty() ? "" : " in section '" + path_ + "'") + hint);
  }
}

}  // namespace warpsim
