#pragma once

#include <cstdint>

#include "frontend/ptx/ptx_module.h"

namespace warpsim::ptx {

// Inlines every call to a .func with a body, so the emulator sees one flat instruction list.
// Callee registers, labels and call-site parameters get a per-call prefix; the callee's
// parameters and return values become the call site's .param variables; `ret` becomes a branch
// to the end of the inlined body. Calls to the CUDA runtime's vprintf and __assertfail stay calls
// (the emulator runs them), with the call-site .param variables as address operands.
// An indirect call (function pointer, virtual function) becomes a dispatch on the pointer to
// inlined copies of each function it could reach; a pointer that matches none calls
// kBadIndirectCall, which the emulator reports.
// Throws InputError for calls to bodiless functions, argument count mismatches, recursion and
// calls nested deeper than 32.
// Its operands: the pointer, then why: no function of the call's signature has that address, or
// the one that has is a function the call is already inside (recursion).
inline constexpr const char* kBadIndirectCall = "__warpsim_bad_indirect_call";
inline constexpr int64_t kNoTarget = 0, kRecursiveTarget = 1;
Function inline_calls(const Module& module, const Function& entry);

}  // namespace warpsim::ptx
