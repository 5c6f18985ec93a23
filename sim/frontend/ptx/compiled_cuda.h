#pragma once
// A launch file's `ptx:` may name a CUDA source: nvcc compiles it to PTX for the simulated GPU
// into a temporary file. The file is removed when the process ends, unless the run failed:
// messages about the kernel cite lines of that PTX, so it is kept for the user to read.
#include <cstdint>
#include <string>

#include "common/source_location.h"

namespace warpsim::ptx {

// The PTX target a GPU of compute capability `cc` (times 10) runs: "75", "80", "90" or "100".
std::string ptx_target_for(uint32_t cc);

// The target `source` is compiled for: ptx_target_for(cc), or its architecture-specific form
// ("90a", "100a") when the source's `// ptx-targets:` line lists that form or, without such a
// line, when the source mentions that form's feature macro (`__CUDA_ARCH_FEAT_SM90_ALL`):
// wgmma, tcgen05 and the like exist only there, and for plain compute_90 nvcc leaves them out
// without a word.
std::string cuda_target_for(const std::string& source, uint32_t cc);

// Compiles `source` with nvcc (on PATH or in /usr/local/cuda/bin) for compute_<target> (from
// cuda_target_for) and returns the PTX file's path; an InputError at `where` if nvcc is missing
// or fails.
std::string compile_cuda(const std::string& source, const std::string& target, const SourceLocation& where);

// Called once a run has failed: the PTX compiled so far is kept, and a line to stderr says where.
void keep_compiled_cuda();

}  // namespace warpsim::ptx
