#include "frontend/ptx/compiled_cuda.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "common/error.h"
#include "config/map_reader.h"

namespace warpsim::ptx {
namespace {

struct Compiled {
  std::string source, ptx;
};

// Every file compiled by this process, and whether they outlive it.
struct CompiledFiles {
  std::vector<Compiled> files;
  bool keep = false;
  ~CompiledFiles() {
    if (keep) return;
    for (const auto& f : files) std::remove(f.ptx.c_str());
  }
};

CompiledFiles& compiled() {
  static CompiledFiles files;
  return files;
}

}  // namespace

std::string ptx_target_for(uint32_t cc) {
  if (cc >= 100) return "100";
  if (cc >= 90) return "90";
  if (cc >= 80) return "80";
  return "75";  // nvcc 13 no longer targets sm_70; Volta runs compute_75 PTX here
}

std::string cuda_target_for(const std::string& source, uint32_t cc) {
  const std::string base = ptx_target_for(cc);
  // Code for the architecture-specific features is guarded by this macro, which only the "a"
  // target defines: compiled for the plain one, the guarded code is left out without a word.
  const std::string feature_macro = "__CUDA_ARCH_FEAT_SM" + base + "_ALL";
  bool tests_feature_macro = false;
  std::ifstream in(source);
  std::string line;
  while (std::getline(in, line)) {
    tests_feature_macro = tests_feature_macro || line.find(feature_macro) != std::string::npos;
    const size_t at = line.find("ptx-targets:");
    if (at == std::string::npos) continue;
    // An explicit list decides.
    std::istringstream targets(line.substr(at + 12));
    for (std::string t; targets >> t;)
      if (t == base + "a") return t;
    return base;
  }
  return tests_feature_macro ? base + "a" : base;
}

std::string compile_cuda(const std::string& source, const std::string& target, const SourceLocation& where) {
  namespace fs = std::filesystem;
  std::string nvcc;
  for (const char* candidate : {"nvcc", "/usr/local/cuda/bin/nvcc"}) {
    std::string probe = std::string("command -v ") + candidate + " >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) {
      nvcc = candidate;
      break;
    }
  }
  if (nvcc.empty()) config_error(where, "'" + source + "' is CUDA source, and nvcc is not installed; give the PTX instead");
  auto& made = compiled();
  // Named after the source, so that a kept file says what it is.
  const std::string out = (fs::temp_directory_path() / ("warpsim_" + std::to_string(::getpid()) + "_" + std::to_string(made.files.size()) + "_" +
                                                        fs::path(source).stem().string() + ".compute_" + target + ".ptx"))
                              .string();
  std::string cmd = nvcc + " -arch=compute_" + target + " -lineinfo -ptx '" + source + "' -o '" + out + "' 2>&1";
  std::string log;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) log += buf;
    if (::pclose(p) != 0) {
      std::remove(out.c_str());
      config_error(where, "nvcc could not compile " + source + ":\n" + log);
    }
  }
  made.files.push_back({source, out});
  return out;
}

void keep_compiled_cuda() {
  auto& made = compiled();
  if (made.keep) return;
  made.keep = true;
  for (const auto& f : made.files) std::cerr << "warpsim: the PTX nvcc made of " << f.source << " is kept at " << f.ptx << "\n";
}

}  // namespace warpsim::ptx
