#include "config/config_node.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "common/error.h"

namespace warpsim {
namespace {

SourceLocation at(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return SourceLocation{file, 0, 0};
  return SourceLocation{file, static_cast<uint32_t>(mark.line + 1), static_cast<uint32_t>(mark.column + 1)};
}

ConfigNode convert(const YAML::Node& node, const std::string& file) {
  ConfigNode out;
  out.where = at(file, node.Mark());
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out.kind = ConfigNode::Kind::kNull;
      break;
    case YAML::NodeType::Scalar:
      out.kind = ConfigNode::Kind::kScalar;
      out.scalar = node.Scalar();
      break;
    case YAML::NodeType::Sequence:
      out.kind = ConfigNode::Kind::kSequence;
      for (const auto& item : node) out.items.push_back(convert(item, file));
      break;
    case YAML::NodeType::Map:
      out.kind = ConfigNode::Kind::kMap;
      for (const auto& kv : node) {
        SourceLocation key_at = at(file, kv.first.Mark());
        if (!kv.first.IsScalar()) throw InputError(key_at, "map keys must be plain names");
        std::string key = kv.first.Scalar();
        if (out.find(key)) throw InputError(key_at, "duplicate key '" + key + "'");
        out.entries.emplace_back(key, convert(kv.second, file));
        out.key_locations.push_back(key_at);
      }
      break;
  }
  return out;
}

ConfigNode parse(const std::string& text, const std::string& file, uint32_t line_offset) {
  try {
    YAML::Node root = YAML::Load(text);
    return convert(root, file);
  } catch (const YAML::Exception& e) {
    SourceLocation where = at(file, e.mark);
    where.line += line_offset;
    throw InputError(where, "invalid YAML: " + e.msg);
  }
}

}  // namespace

const ConfigNode* ConfigNode::find(const std::string& key) const {
  for (const auto& [k, v] : entries)
    if (k == key) return &v;
  return nullptr;
}

ConfigNode* ConfigNode::find(const std::string& key) {
  for (auto& [k, v] : entries)
    if (k == key) return &v;
  return nullptr;
}

const ConfigNode* ConfigNode::find_path(const std::string& dotted) const {
  const ConfigNode* node = this;
  for (size_t start = 0; node;) {
    const size_t dot = dotted.find('.', start);
    node = node->kind == Kind::kMap ? node->find(dotted.substr(start, dot == std::string::npos ? dot : dot - start)) : nullptr;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node;
}

const SourceLocation& ConfigNode::key_location(const std::string& key) const {
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].key == key) return key_locations[i];
  return where;
}

std::string ConfigNode::kind_name() const {
  switch (kind) {
    case Kind::kNull: return "nothing";
    case Kind::kScalar: return "a scalar '" + scalar + "'";
    case Kind::kMap: return "a map";
    case Kind::kSequence: return "a list";
  }
  return "?";
}

ConfigNode load_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "cannot open config file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse(buffer.str(), path, 0);
}

ConfigNode parse_yaml_text(const std::string& text, const SourceLocation& origin) {
  ConfigNode n = parse(text, origin.file, 0);
  // Values from the command line have no lines of their own: point at the argument.
  std::vector<ConfigNode*> stack{&n};
  while (!stack.empty()) {
    ConfigNode* c = stack.back();
    stack.pop_back();
    c->where = origin;
    for (auto& l : c->key_locations) l = origin;
    for (auto& [k, v] : c->entries) stack.push_back(&v);
    for (auto& i : c->items) stack.push_back(&i);
  }
  return n;
}

void merge_config(ConfigNode& parent, const ConfigNode& child) {
  if (parent.kind != ConfigNode::Kind::kMap || child.kind != ConfigNode::Kind::kMap) {
    parent = child;
    return;
  }
  for (size_t i = 0; i < child.entries.size(); ++i) {
    const auto& [key, value] = child.entries[i];
    if (ConfigNode* existing = parent.find(key)) {
      merge_config(*existing, value);
    } else {
      parent.entries.emplace_back(key, value);
      parent.key_locations.push_back(child.key_locations[i]);
    }
  }
}

void apply_override(ConfigNode& root, const std::string& assignment, const SourceLocation& origin) {
  size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(origin, "expected key.path=value, got '" + assignment + "'");
  }
  std::string path = assignment.substr(0, eq);
  std::string value = assignment.substr(eq + 1);
  ConfigNode* node = &root;
  std::string walked;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (node->kind != ConfigNode::Kind::kMap) {
      throw InputError(origin, "'" + walked + "' is " + node->kind_name() + ", not a section with key '" + key + "'");
    }
    ConfigNode* next = node->find(key);
    if (!next && dot == std::string::npos) {
      // A leaf the config does not state (an optional key at its default, such as h100's
      // memory.hbm.fetch_bytes) is added; the config's reader rejects it, at `origin`, if no
      // section reads such a key.
      node->entries.emplace_back(key, ConfigNode{});
      node->key_locations.push_back(origin);
      next = &node->entries.back().value;
    }
    if (!next) {
      std::string known;
      for (const auto& [k, v] : node->entries) known += (known.empty() ? "" : ", ") + k;
      throw InputError(origin, "unknown key '" + (walked.empty() ? key : walked + "." + key) +
                                   "'; expected one of: " + known);
    }
    walked = walked.empty() ? key : walked + "." + key;
    node = next;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (node->kind == ConfigNode::Kind::kMap) {
    throw InputError(origin, "'" + path + "' is a section; --set needs a leaf such as '" + path + "." +
                                 (node->entries.empty() ? "key" : node->entries.front().key) + "'");
  }
  ConfigNode replacement = parse_yaml_text(value, origin);
  if (replacement.kind == ConfigNode::Kind::kNull) replacement.kind = ConfigNode::Kind::kScalar;
  *node = replacement;
}

}  // namespace warpsim
