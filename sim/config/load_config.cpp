#include "config/load_config.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "common/error.h"

#ifndef WARPSIM_DEFAULT_CONFIG_DIR
#define WARPSIM_DEFAULT_CONFIG_DIR "configs"
#endif

namespace warpsim {
namespace fs = std::filesystem;

std::string config_directory() {
  if (const char* env = std::getenv("WARPSIM_CONFIG_DIR"); env && *env) return env;
  return WARPSIM_DEFAULT_CONFIG_DIR;
}

std::vector<std::string> shipped_config_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(config_directory(), ec)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

std::string resolve_path(const std::string& name_or_path, const std::string& relative_to) {
  bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                         (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".yaml");
  if (looks_like_path) {
    fs::path p(name_or_path);
    if (p.is_relative() && !relative_to.empty()) p = fs::path(relative_to).parent_path() / p;
    return p.string();
  }
  return (fs::path(config_directory()) / (name_or_path + ".yaml")).string();
}

ConfigNode load_with_extends(const std::string& path, std::set<std::string>& chain, const SourceLocation& from) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    std::string known;
    for (const auto& n : shipped_config_names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError(from.file.empty() ? SourceLocation{path, 0, 0} : from,
                     "no config '" + path + "'; shipped configs are: " + known);
  }
  std::string canonical = fs::weakly_canonical(path, ec).string();
  if (!chain.insert(canonical).second) throw InputError(from, "extends: cycle through '" + path + "'");
  ConfigNode node = load_yaml_file(path);
  if (node.kind != ConfigNode::Kind::kMap) throw InputError(node.where, "a GPU config must be a map of sections");
  const ConfigNode* ext = node.find("extends");
  if (!ext) return node;
  if (ext->kind != ConfigNode::Kind::kScalar) throw InputError(ext->where, "'extends' must name a config");
  ConfigNode parent = load_with_extends(resolve_path(ext->scalar, path), chain, ext->where);
  // The child's own keys win; `extends` itself is consumed here.
  ConfigNode child = node;
  for (size_t i = 0; i < child.entries.size(); ++i) {
    if (child.entries[i].key == "extends") {
      child.entries.erase(child.entries.begin() + static_cast<long>(i));
      child.key_locations.erase(child.key_locations.begin() + static_cast<long>(i));
      break;
    }
  }
  if (ConfigNode* pn = parent.find("name")) pn->kind = ConfigNode::Kind::kNull;  // a child must name itself
  merge_config(parent, child);
  return parent;
}

}  // namespace

LoadedConfig load_gpu_config(const std::string& name_or_path, const std::vector<std::string>& overrides) {
  std::string path = resolve_path(name_or_path, "");
  std::set<std::string> chain;
  LoadedConfig out;
  out.resolved = load_with_extends(path, chain, SourceLocation{});
  for (size_t i = 0; i < overrides.size(); ++i) {
    apply_override(out.resolved, overrides[i], SourceLocation{"--set #" + std::to_string(i + 1) + " '" + overrides[i] + "'", 0, 0});
  }
  out.spec = read_gpu_spec(out.resolved, path);
  return out;
}

}  // namespace warpsim
