#pragma once
// warpsim trace's recording of a run (trace_recording.cpp).
#include <functional>
#include <ostream>
#include <string>

#include "frontend/trace/trace_writer.h"
#include "gpu/gpu.h"

namespace warpsim::cli {

using NameOf = std::function<std::string(RegId)>;

// Runs `workload` through the timing model on `gpu` and writes through `writer` (whose stream is
// `out`) every kernel, CTA and warp in launch order, each warp's instructions as the timing model
// took them from its stream. Throws what simulate() throws.
void record_trace(Gpu& gpu, Workload& workload, TraceWriter& writer, std::ostream& out, const NameOf& name_of);

}  // namespace warpsim::cli
