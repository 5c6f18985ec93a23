#include "frontend/ptx/function_addresses.h"

#include <set>

namespace warpsim::ptx {

RuntimeFunction runtime_function_named(const std::string& name) {
  if (name == "vprintf") return RuntimeFunction::kVprintf;
  if (name == "malloc") return RuntimeFunction::kMalloc;
  if (name == "free") return RuntimeFunction::kFree;
  if (name == "__assertfail") return RuntimeFunction::kAssertFail;
  return RuntimeFunction::kNone;
}

RuntimeFunction runtime_function_at(uint64_t address) {
  for (auto f : {RuntimeFunction::kVprintf, RuntimeFunction::kMalloc, RuntimeFunction::kFree, RuntimeFunction::kAssertFail})
    if (address == runtime_function_address(f)) return f;
  return RuntimeFunction::kNone;
}

std::optional<uint64_t> function_address(const Module& module, const std::string& name) {
  for (size_t k = 0; k < module.functions.size(); ++k) {
    const Function& f = module.functions[k];
    if (f.name == name && !f.is_entry) return kFunctionAddressBase + 16 * k;
  }
  return std::nullopt;
}

namespace {

void collect_symbols(const Operand& o, std::set<std::string>& names) {
  if (o.kind == Operand::Kind::kSymbol) names.insert(o.name);
  for (const Operand& item : o.items) collect_symbols(item, names);
}

}  // namespace

std::vector<const Function*> address_taken_functions(const Module& module) {
  std::set<std::string> named;
  for (const Variable& v : module.globals)
    for (const Operand& o : v.initializer) collect_symbols(o, named);
  for (const Function& f : module.functions) {
    for (const Instruction& in : f.body) {
      // A direct call names its callee as the first symbol after the return list; that is a
      // call, not an address taken. Its argument lists hold .param names only.
      const bool call = in.opcode.rfind("call", 0) == 0;
      for (const Operand& o : in.operands) {
        if (call && o.kind == Operand::Kind::kSymbol) continue;
        collect_symbols(o, named);
      }
    }
  }
  std::vector<const Function*> taken;
  for (const Function& f : module.functions)
    if (!f.is_entry && !f.is_declaration && named.count(f.name)) taken.push_back(&f);
  return taken;
}

}  // namespace warpsim::ptx
