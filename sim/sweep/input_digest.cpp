#include "sweep/input_digest.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

namespace warpsim {
namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& e) { return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0; }

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
  if (ends_with(input, ".yaml") || ends_with(input, ".yml")) {
    std::vector<std::string> named;
    try {
      named_files(YAML::LoadFile(input), named);
    } catch (const YAML::Exception&) {
      // The run reports the error; the file's own bytes are digested.
    }
    for (const auto& n : named) expand_sm(fs::path(n).is_absolute() ? fs::path(n) : dir / n, files);
  } else if (ends_with(input, ".g")) {
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
  uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&](const char* data, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      h ^= static_cast<unsigned char>(data[i]);
      h *= 0x100000001b3ULL;
    }
  };
  std::vector<char> buffer(1 << 16);
  for (const auto& f : files) {
    mix(f.data(), f.size() + 1);  // with its terminating zero: names and contents cannot run together
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      mix("missing", 8);
      continue;
    }
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) mix(buffer.data(), static_cast<size_t>(in.gcount()));
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace warpsim
