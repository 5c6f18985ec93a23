#pragma once
// warpsim trace's recording of a run (trace_recording.cpp).
#include <functional>
#include <ostream>
#include <string>

#include "frontend/trace/trace_writer.h"
#include "gpu/gpu.h"

namespace warpsim::cli {

using NameOf = std::function<std::string(RegId)>;
// Asked once per kernel, right after the workload hands it out: how to name that kernel's
// registers (kernels of streams run side by side, so one kernel's instructions may be recorded
// after the next kernel was read).
using NamesForKernel = std::function<NameOf()>;

// Runs `workload` through the timing model on `gpu` and writes through `writer` (whose stream is
// `out`) every kernel, CTA and warp in launch order, each warp's instructions as the timing model
// took them from its stream. Throws what simulate() throws.
void record_trace(Gpu& gpu, Workload& workload, TraceWriter& writer, std::ostream& out, const NamesForKernel& names);

}  // namespace warpsim::cli
