#include "frontend/ptx/kernel_names.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace warpsim::ptx {
namespace {

// Where the bracketed group that ends at `close` (a ')' or '>') opens, or npos.
size_t opening_of(const std::string& s, size_t close) {
  const char open = s[close] == ')' ? '(' : '<', shut = s[close];
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (s[i] == shut) ++depth;
    if (s[i] == open && --depth == 0) return i;
  }
  return std::string::npos;
}

// The last occurrence of `what` in s[0, end) outside any <...> or (...).
size_t last_top_level(const std::string& s, size_t end, const std::string& what) {
  int depth = 0;
  size_t found = std::string::npos;
  for (size_t i = 0; i < end; ++i) {
    if (s[i] == '<' || s[i] == '(') ++depth;
    if (s[i] == '>' || s[i] == ')') --depth;
    if (depth == 0 && s.compare(i, what.size(), what) == 0) found = i;
  }
  return found;
}

}  // namespace

std::string demangled_name(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return "";
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && text ? std::string(text.get()) : "";
}

std::vector<std::string> names_for(const std::string& demangled) {
  if (demangled.empty() || demangled.back() != ')') return {};
  std::vector<std::string> names = {demangled};
  const size_t params = opening_of(demangled, demangled.size() - 1);
  if (params == std::string::npos || params == 0) return names;
  // A function template's declaration starts with its return type: "void scale<float>(...)".
  const size_t space = last_top_level(demangled, params, " ");
  const std::string scoped = demangled.substr(space == std::string::npos ? 0 : space + 1, params - (space == std::string::npos ? 0 : space + 1));
  names.push_back(scoped);
  names.push_back(scoped + demangled.substr(params));  // the signature without a return type
  std::string plain = scoped;
  if (!plain.empty() && plain.back() == '>') {
    if (const size_t open = opening_of(plain, plain.size() - 1); open != std::string::npos && open > 0) plain.resize(open);
    names.push_back(plain);
  }
  for (const std::string& n : std::vector<std::string>(names.begin() + 1, names.end())) {
    if (n.back() == ')') continue;  // a signature keeps its scope
    const size_t scope = last_top_level(n, n.size(), "::");
    if (scope != std::string::npos) names.push_back(n.substr(scope + 2));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

KernelMatch find_kernel(const Module& module, const std::string& name) {
  KernelMatch match;
  if (const Function* f = module.find(name); f && f->is_entry) {
    match.kernel = f;
    match.candidates = {f};
    return match;
  }
  for (const auto& fn : module.functions) {
    if (!fn.is_entry) continue;
    const auto names = names_for(demangled_name(fn.name));
    if (std::find(names.begin(), names.end(), name) != names.end()) match.candidates.push_back(&fn);
  }
  if (match.candidates.size() == 1) match.kernel = match.candidates.front();
  return match;
}

std::string describe_kernel(const Function& entry) {
  const std::string d = demangled_name(entry.name);
  return d.empty() ? entry.name : entry.name + " (" + d + ")";
}

}  // namespace warpsim::ptx
