#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/config_node.h"
#include "report/kernel_summary.h"

namespace warpsim {

struct RunDescription {
  std::string warpsim_version;
  std::string input;
  std::string arch;           // config name
  const ConfigNode* config;   // resolved config tree
};

nlohmann::ordered_json summary_json(const Summary& s);
nlohmann::ordered_json config_json(const ConfigNode& node);
// Top level: arch, config, summary, kernels[{name, grid, block, summary, metrics}].
nlohmann::ordered_json run_json(const RunDescription& run, const std::vector<Summary>& kernels, const Summary& total);

}  // namespace warpsim
