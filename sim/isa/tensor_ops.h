// Tensor-core mnemonics, decoded for op_info.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "isa/op_info.h"

namespace warpsim {

// Fills `out` for an MMA mnemonic already split at its dots; false when `base` and `parts` are
// not a tensor-core MMA, or (with `error` set) when they are one with a bad shape or kind.
bool decode_tensor(std::string_view base, const std::vector<std::string_view>& parts, OpInfo& out, std::string& error);

// The tensor precision of an MMA input type as PTX names it ("f16", "e4m3", "e2m1", "s8", ...);
// kNone for anything else.
TensorPrecision tensor_precision_of_type(std::string_view type);

}  // namespace warpsim
