#include "report/stats_report.h"

#include <nlohmann/json.hpp>

#include "report/csv_report.h"

namespace warpsim {
namespace {

// Calls f(name, unit, description, value) for each group with several instances (its sum) and
// then each of its instances, in registration order.
template <class F>
void for_each_counter(const StatRegistry& registry, const StatRegistry::Snapshot& s, F&& f) {
  const auto& entries = registry.entries();
  for (const StatRegistry::Group& group : registry.groups()) {
    if (group.entries.size() > 1 || entries[group.entries.front()].name != group.name)
      f(group.name, group.unit, group.description, registry.sum(group.name, s));
  }
  for (size_t i = 0; i < entries.size() && i < s.size(); ++i) {
    const StatRegistry::Group& group = registry.group_of(entries[i]);
    f(entries[i].name, group.unit, group.description, s[i]);
  }
}

}  // namespace

std::string stats_csv(const StatRegistry& registry, const std::vector<KernelRun>& kernels) {
  std::string out = "\"Kernel\",\"Kernel Index\",\"Counter\",\"Value\",\"Unit\",\"Description\"\n";
  for (size_t k = 0; k < kernels.size(); ++k) {
    const std::string kernel = csv_quote(kernels[k].info.name) + "," + std::to_string(k) + ",";
    for_each_counter(registry, kernels[k].stats, [&](const std::string& name, const std::string& unit, const std::string& description, uint64_t v) {
      out += kernel + csv_quote(name) + "," + std::to_string(v) + "," + csv_quote(unit) + "," + csv_quote(description) + "\n";
    });
  }
  return out;
}

std::string stats_json(const StatRegistry& registry, const std::vector<KernelRun>& kernels) {
  nlohmann::ordered_json units = nlohmann::ordered_json::object(), list = nlohmann::ordered_json::array();
  for (const StatRegistry::Group& group : registry.groups()) units[group.name] = {{"unit", group.unit}, {"description", group.description}};
  for (const KernelRun& run : kernels) {
    nlohmann::ordered_json counters = nlohmann::ordered_json::object();
    for_each_counter(registry, run.stats, [&](const std::string& name, const std::string&, const std::string&, uint64_t v) { counters[name] = v; });
    list.push_back({{"name", run.info.name}, {"counters", counters}});
  }
  return nlohmann::ordered_json{{"units", units}, {"kernels", list}}.dump(1) + "\n";
}

}  // namespace warpsim
