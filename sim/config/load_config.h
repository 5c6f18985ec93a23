#pragma once
#include <string>
#include <vector>

#include "config/config_node.h"
#include "config/gpu_spec.h"

namespace warpsim {

struct LoadedConfig {
  GpuSpec spec;
  ConfigNode resolved;  // after extends: and --set, for writing beside results
};

// Where shipped configs live: $WARPSIM_CONFIG_DIR if set, else the repository's configs/.
std::string config_directory();
// Names of the shipped configs (file stems), sorted.
std::vector<std::string> shipped_config_names();

// `name_or_path` is a shipped name ("a100") or a path to a YAML file. Resolves `extends:`,
// applies `overrides` ("a.b=v") in order, and validates everything. Throws InputError.
LoadedConfig load_gpu_config(const std::string& name_or_path, const std::vector<std::string>& overrides = {});

// The typed reading and validation step alone (used by tests on in-memory trees).
GpuSpec read_gpu_spec(const ConfigNode& root, const std::string& source_file);

}  // namespace warpsim
