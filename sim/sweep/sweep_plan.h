#pragma once
// A sweep: many independent runs of warpsim over inputs x configs x named modifiers (the
// Accel-Sim idiom of a base config plus modifiers), expanded once into a list of points, each a
// `warpsim run` command line with a stable id. Points are run locally or as a Slurm job array,
// one result file per point, then merged (docs/sweeps.md).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/source_location.h"

namespace warpsim {

struct SweepPoint {
  uint64_t index = 0;
  std::string id;        // hash of the input, the resolved config and the run options
  std::string input;     // as `warpsim run` takes it
  std::string arch;      // a shipped name or a YAML file
  std::vector<std::pair<std::string, std::string>> axes;  // axis -> the value or modifier name chosen
  std::vector<std::string> sets;                          // --set overrides, in order
  std::string checks = "error";
  std::string reconvergence;
  std::string isa;  // "": warpsim run's default (auto)
  std::string sample;    // empty: time every CTA; else --sample-tolerance for --sample

  nlohmann::ordered_json to_json() const;
  // Reads one line of a points file; errors name `where`.
  static SweepPoint from_json(const nlohmann::ordered_json& j, const SourceLocation& where);
  // The `warpsim run` arguments for this point, writing its JSON to `json_path`.
  std::vector<std::string> run_arguments(const std::string& json_path) const;
};

// Expands a sweep file; every point's config is resolved and checked here, so a typo in a
// modifier is an error at its line before anything runs. Throws InputError.
std::vector<SweepPoint> plan_sweep(const std::string& sweep_file);

// Reads a points file written by `warpsim sweep plan` (one JSON object per line).
std::vector<SweepPoint> read_points(const std::string& points_file);

// The run summary's fields a sweep's merged table shows for each point, in order.
inline constexpr const char* kSweepMetrics[] = {"cycles",          "time_us",           "ipc",          "gpu_ipc",
                                                "achieved_occupancy", "simt_efficiency", "l1_hit_rate",  "l2_hit_rate",
                                                "dram_bytes_read", "dram_bytes_written", "dram_bandwidth_gbps", "bound"};
// Whether `name` is one of the merged table's own columns (an axis may not take such a name).
bool is_sweep_table_column(const std::string& name);

}  // namespace warpsim
