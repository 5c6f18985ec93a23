#pragma once
// Every registered counter, per kernel: what gem5's stats.txt or ChampSim's end-of-run dump give,
// for the questions the summary and the Nsight Compute metrics do not answer.
#include <string>
#include <vector>

#include "gpu/gpu.h"
#include "stats/stat_registry.h"

namespace warpsim {

// CSV, one row per kernel and counter: Kernel, Kernel Index, Counter, Value, Unit, Description.
// A counter with several instances ("gpu.sm[3].inst_executed") also has a row for its group
// ("gpu.sm[*].inst_executed"), valued at the sum of the instances, before them.
std::string stats_csv(const StatRegistry& registry, const std::vector<KernelRun>& kernels);

// The same as JSON: {"units": {group: {unit, description}}, "kernels": [{name, counters: {name: value}}]},
// group sums included as in the CSV.
std::string stats_json(const StatRegistry& registry, const std::vector<KernelRun>& kernels);

}  // namespace warpsim
