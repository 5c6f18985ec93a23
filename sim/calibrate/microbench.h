#pragma once
// The microbenchmarks of `warpsim calibrate`: pointer chases over a ladder of working sets,
// streams at several occupancies, the shared-memory conflict ladder, and FMA and MMA throughput,
// each built in memory for the GPU at hand (sizes follow its caches) and timed by the model.
// Latencies are differences of two runs (2n and n dependent loads, divided by n), so launch and
// drain cancel out.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/gpu_spec.h"

namespace warpsim {

struct MicrobenchResult {
  std::string group;  // latency, shared, bandwidth, compute
  std::string name;
  std::string unit;
  double simulated = 0;
  std::optional<double> reference;
  std::string source;  // of the reference
  std::string note;
};

// Measured values to compare with, per GPU (configs/reference/microbench.yaml).
struct MicrobenchReference {
  double value = 0;
  std::string source;
};
using MicrobenchReferences = std::map<std::string, MicrobenchReference>;  // key -> value
MicrobenchReferences load_microbench_references(const std::string& arch);

struct GeneratedKernel;
// Called with each set of kernels before it runs, named after its benchmark (for writing them
// out as traces: warpsim calibrate --write-traces).
using MicrobenchTraceSink = std::function<void(const std::string& name, const std::vector<GeneratedKernel>& kernels)>;

std::vector<MicrobenchResult> run_microbenchmarks(const GpuSpec& spec, const MicrobenchReferences& refs, const MicrobenchTraceSink& sink = nullptr);

}  // namespace warpsim
