#pragma once
// Reads typed values out of a ConfigNode map, checking type and range, and remembering which
// keys were read so that finish() can reject unknown ones. Every error names file:line:col.
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "config/config_node.h"

namespace warpsim {

class MapReader {
 public:
  // `node` must be a map; `path` is its dotted name for messages ("memory.l1").
  MapReader(const ConfigNode& node, std::string path);
  MapReader(const MapReader&) = delete;
  MapReader(MapReader&&) = default;

  bool has(const std::string& key) const;
  MapReader section(const std::string& key);
  const ConfigNode& raw(const std::string& key);  // marks the key used

  int64_t integer(const std::string& key, int64_t min, int64_t max);
  int64_t integer_or(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  double number(const std::string& key, double min, double max);
  double number_or(const std::string& key, double fallback, double min, double max);
  bool boolean_or(const std::string& key, bool fallback);
  std::string string(const std::string& key);
  std::string string_or(const std::string& key, std::string fallback);
  std::string choice(const std::string& key, const std::vector<std::string>& allowed, std::string fallback);
  std::vector<int64_t> integer_list(const std::string& key, int64_t min, int64_t max);
  // Each item with where it was written, for checks the caller makes.
  std::vector<std::pair<std::string, SourceLocation>> string_list(const std::string& key);
  // Keys of this map that the caller has not read yet (for free-form maps).
  std::vector<std::string> keys() const;

  // Throws InputError at the first key that was never read.
  void finish() const;

  const SourceLocation& location(const std::string& key) const;      // of the value
  const SourceLocation& key_location(const std::string& key) const;  // of the key itself
  const SourceLocation& where() const { return node_.where; }
  const std::string& path() const { return path_; }

 private:
  const ConfigNode& require(const std::string& key, ConfigNode::Kind kind);
  [[noreturn]] void missing(const std::string& key) const;
  std::string full(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  void ask(const std::string& key) const;

  const ConfigNode& node_;
  std::string path_;
  std::unordered_set<std::string> used_;
  // Every key the caller looked for, present or not (the optional ones too): what finish()
  // suggests for a key nobody read.
  mutable std::vector<std::string> asked_;
};

// Throws InputError at `where` with the dotted `path` in the message.
[[noreturn]] void config_error(const SourceLocation& where, const std::string& message);

}  // namespace warpsim
