// Decoding an mma mnemonic as the PTX lowering does (its dotted suffixes after "mma"), for the
// mma.sync and mma.sp layout tests.
#pragma once

#include <string>
#include <vector>

#include "frontend/ptx/mma_sync_form.h"

namespace warpsim::test {

// Returns "" when the emulator runs the form, else why not (ptx::decode_mma_sync's message).
inline std::string decode_mma(const std::string& opcode, ptx::MmaSyncForm& form) {
  std::vector<std::string> suffixes;
  for (size_t p = opcode.find('.'); p != std::string::npos;) {
    const size_t q = opcode.find('.', p + 1);
    suffixes.push_back(opcode.substr(p + 1, q == std::string::npos ? std::string::npos : q - p - 1));
    p = q;
  }
  return ptx::decode_mma_sync(opcode, suffixes, form);
}

}  // namespace warpsim::test
