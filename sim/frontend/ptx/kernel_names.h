#pragma once
// Kernel names as a launch file may give them. A kernel declared `extern "C"` keeps its name in
// the PTX; any other C++ kernel is there under its mangled name (`_Z5conv3PKfPfii`), which nobody
// writes by hand. So a launch file may name a kernel as its source does: `conv3`, `img::blur`,
// `scale<float>`, or the whole signature `conv3(float const*, float*, int, int)`, as long as
// one entry of the module answers to it.
#include <string>
#include <vector>

#include "frontend/ptx/ptx_module.h"

namespace warpsim::ptx {

// The C++ declaration a mangled name stands for ("img::blur(float*, int)"), or "" for a name
// that is not a mangled C++ name.
std::string demangled_name(const std::string& name);

// The names a demangled declaration answers to: the whole declaration, the signature without a
// return type ("scale<float>(float*, float)"), the name with its scope and template arguments
// ("img::blur", "scale<float>"), without the template arguments ("scale"), and without the scope
// ("blur"). Empty for "".
std::vector<std::string> names_for(const std::string& demangled);

struct KernelMatch {
  const Function* kernel = nullptr;        // the one entry `name` names, if exactly one does
  std::vector<const Function*> candidates;  // every entry it names (more than one: ambiguous)
};

// The entry `name` names: its own name first, else the names_for of each entry's demangled name.
KernelMatch find_kernel(const Module& module, const std::string& name);

// "name" for an extern "C" entry, "mangled (demangled)" for a C++ one: for lists in messages.
std::string describe_kernel(const Function& entry);

}  // namespace warpsim::ptx
