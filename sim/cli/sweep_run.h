#pragma once
// Runs sweep points, each as its own `warpsim run` process (a point that crashes or runs out of
// memory fails alone), several at once, and writes one result file per point:
// <results>/<point_id>.json, atomically. A point whose result says "ok" is not run again, so a
// sweep that was interrupted, or a Slurm array task that is resubmitted, picks up where it was;
// unless the files its run read have changed since (the result keeps their digest).
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sweep/sweep_plan.h"

namespace warpsim::cli {

struct SweepRunOptions {
  std::string results_dir;
  std::optional<uint64_t> index;  // run only chunk `index` (a Slurm array task id)
  uint64_t chunk = 1;             // points per chunk
  unsigned jobs = 1;              // points run at once
  bool force = false;             // rerun points that already have a result
};

struct SweepRunTally {
  uint64_t ran = 0, skipped = 0, failed = 0;
  uint64_t stale = 0;  // of those run: points whose result was made from files that have changed
};

// The points chunk `index` covers: [index x chunk, (index + 1) x chunk). Throws UsageError when
// the chunk is past the end (the array was sized for a different points file).
std::vector<SweepPoint> select_chunk(const std::vector<SweepPoint>& points, const SweepRunOptions& options);

// `progress` gets one line per finished point.
SweepRunTally run_sweep(const std::vector<SweepPoint>& points, const SweepRunOptions& options, std::ostream& progress);

}  // namespace warpsim::cli
