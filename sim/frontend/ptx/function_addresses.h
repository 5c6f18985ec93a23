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

// The CUDA runtime's device functions a kernel calls: by name from PTX, and from SASS through
// the addresses the driver puts in constant bank 4 (CALL.ABS), which here are addresses of their
// own, 2^40 bytes above the module's functions.
enum class RuntimeFunction : uint8_t { kNone, kVprintf, kMalloc, kFree, kAssertFail };
inline constexpr uint64_t kRuntimeFunctionBase = kFunctionAddressBase + (uint64_t{1} << 40);
RuntimeFunction runtime_function_named(const std::string& name);  // kNone: not one of them
inline uint64_t runtime_function_address(RuntimeFunction f) { return kRuntimeFunctionBase + 16 * static_cast<uint64_t>(f); }
RuntimeFunction runtime_function_at(uint64_t address);  // kNone: no runtime function there

// The address of the .func `name` of `module`, or nothing if the module has no such function.
std::optional<uint64_t> function_address(const Module& module, const std::string& name);

// The functions with a body whose address the module takes (in an instruction's operand other
// than a direct call's callee, or in a variable's initializer: a virtual table, a table of
// function pointers), in module order: what an indirect call can reach.
std::vector<const Function*> address_taken_functions(const Module& module);

}  // namespace warpsim::ptx
