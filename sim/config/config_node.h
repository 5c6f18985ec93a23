#pragma once
// A YAML-free tree of configuration values, each remembering where it was written. Only
// sim/config touches yaml-cpp; everything downstream sees ConfigNode or typed *Spec structs.
#include <string>
#include <utility>
#include <vector>

#include "common/source_location.h"

namespace warpsim {

struct ConfigEntry;

struct ConfigNode {
  enum class Kind { kNull, kScalar, kMap, kSequence };
  Kind kind = Kind::kNull;
  std::string scalar;
  std::vector<ConfigEntry> entries;                         // kMap, in file order
  std::vector<SourceLocation> key_locations;                // kMap: where each key was written
  std::vector<ConfigNode> items;                            // kSequence
  SourceLocation where;

  const ConfigNode* find(const std::string& key) const;
  ConfigNode* find(const std::string& key);
  // The node a dotted path ("memory.l2.size_kib") names under this map; null if none does.
  const ConfigNode* find_path(const std::string& dotted) const;
  const SourceLocation& key_location(const std::string& key) const;
  std::string kind_name() const;
};

// A map's key and value. (Not a std::pair: a pair may not hold the still-incomplete ConfigNode,
// which clang's standard library checks.)
struct ConfigEntry {
  ConfigEntry(std::string k, ConfigNode v) : key(std::move(k)), value(std::move(v)) {}
  std::string key;
  ConfigNode value;
};

// Parses a YAML file; syntax errors become InputError at file:line:col.
ConfigNode load_yaml_file(const std::string& path);
// Parses YAML text (used for --set values such as "[0, 8, 16]"); `origin` names the source.
ConfigNode parse_yaml_text(const std::string& text, const SourceLocation& origin);

// Overlays `child` onto `parent`: maps merge key by key, anything else is replaced.
void merge_config(ConfigNode& parent, const ConfigNode& child);

// Applies one "a.b.c=value" override. The path must name an existing leaf (so typos fail);
// `origin` is where the override came from, e.g. "--set #1".
void apply_override(ConfigNode& root, const std::string& assignment, const SourceLocation& origin);

}  // namespace warpsim
