#pragma once
// Addresses of device functions, for function pointers and virtual tables. The emulator runs no
// machine code, so a function's address is a number of its own: in a window that no memory
// lives in (below the generic local window, program.h), so that a load through a function
// pointer is reported as out of bounds, 16 bytes apart in the module's order of functions.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ptx/ptx_module.h"

namespace warpsim::ptx {

inline constexpr uint64_t kFunctionAddressBase = uint64_t{1} << 44;

// The address of the .func `name` of `module`, or nothing if the module has no such function.
std::optional<uint64_t> function_address(const Module& module, const std::string& name);

// The functions with a body whose address the module takes (in an instruction's operand other
// than a direct call's callee, or in a variable's initializer: a virtual table, a table of
// function pointers), in module order: what an indirect call can reach.
std::vector<const Function*> address_taken_functions(const Module& module);

}  // namespace warpsim::ptx
