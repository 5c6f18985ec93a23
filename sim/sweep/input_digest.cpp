#include "sweep/input_digest.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "sweep/fnv1a.h"

namespace warpsim {
namespace fs = std::filesystem;

namespace {

// Scalars under `ptx` and `file` keys anywhere in a launch file (launches, buffers' init, expect).
void named_files(const YAML::Node& node, std::vector<std::string>& out) {
  if (node.IsMap()) {
    for (const auto& kv : node) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if ((key == "ptx" || key == "file") && kv.second.IsScalar()) out.push_back(kv.second.Scalar());
      named_files(kv.second, out);
    }
  } else if (node.IsSequence()) {
    for (const auto& item : node) named_files(item, out);
  }
}

// A PTX path with {sm} stands for every file the GPU's compute capability may pick.
void expand_sm(const fs::path& path, std::vector<std::string>& out) {
  const std::string name = path.filename().string();
  const size_t at = name.find("{sm}");
  if (at == std::string::npos) {
    out.push_back(path.lexically_normal().string());
    return;
  }
  const std::regex pattern(std::regex_replace(name.substr(0, at), std::regex(R"([.^$|()\[\]*+?\\{}])"), R"(\$&)") + "[0-9]+[a-z]?" +
                           std::regex_replace(name.substr(at + 4), std::regex(R"([.^$|()\[\]*+?\\{}])"), R"(\$&)"));
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path.parent_path(), ec))
    if (entry.is_regular_file(ec) && std::regex_match(entry.path().filename().string(), pattern)) out.push_back(entry.path().lexically_normal().string());
}

}  // namespace

std::vector<std::string> files_read_by(const std::string& input) {
  std::vector<std::string> files{fs::path(input).lexically_normal().string()};
  const fs::path dir = fs::path(input).parent_path();
  if (input.ends_with(".yaml") || input.ends_with(".yml")) {
    std::vector<std::string> named;
    try {
      named_files(YAML::LoadFile(input), named);
    } catch (const YAML::Exception&) {
      // The run reports the error; the file's own bytes are digested.
    }
    for (const auto& n : named) expand_sm(fs::path(n).is_absolute() ? fs::path(n) : dir / n, files);
  } else if (input.ends_with(".g")) {
    std::ifstream in(input);
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.rfind("kernel", 0) == 0) files.push_back((dir / line).lexically_normal().string());
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

std::string digest_files(const std::vector<std::string>& files) {
  Fnv1a h;
  std::vector<char> buffer(1 << 16);
  for (const auto& f : files) {
    h.add(f.data(), f.size() + 1);  // with its terminating zero: names and contents cannot run together
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      h.add("missing", 8);
      continue;
    }
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) h.add(buffer.data(), static_cast<size_t>(in.gcount()));
  }
  return h.hex();
}

}  // namespace warpsim
