#include "stats/stat_registry.h"

#include <algorithm>
#include <stdexcept>

namespace warpsim {

void StatRegistry::add(std::string name, const uint64_t* value, std::string_view unit, std::string_view description) {
  scratch_.clear();
  for (size_t i = 0; i < name.size(); ++i) {
    const size_t close = name[i] == '[' ? name.find(']', i) : std::string::npos;
    if (close == std::string::npos) {
      scratch_ += name[i];
    } else {
      scratch_ += "[*]";
      i = close;
    }
  }
  auto it = group_index_.find(scratch_);
  if (it == group_index_.end()) {
    it = group_index_.emplace(scratch_, static_cast<uint32_t>(groups_.size())).first;
    groups_.push_back(Group{scratch_, std::string(unit), std::string(description), {}});
  }
  Group& g = groups_[it->second];
  if (g.unit != unit || g.description != description) throw std::logic_error("statistic " + name + " disagrees with its group " + g.name + " on unit or description");
  g.entries.push_back(entries_.size());
  entries_.push_back(Entry{std::move(name), it->second, value});
}

StatRegistry::Snapshot StatRegistry::snapshot() const {
  Snapshot s;
  s.reserve(entries_.size());
  for (const auto& e : entries_) s.push_back(*e.value);
  return s;
}

StatRegistry::Snapshot StatRegistry::difference(const Snapshot& later, const Snapshot& earlier) {
  Snapshot d(later.size());
  for (size_t i = 0; i < later.size(); ++i) d[i] = later[i] - (i < earlier.size() ? earlier[i] : 0);
  return d;
}

const StatRegistry::Group* StatRegistry::find_group(const std::string& name) const {
  auto it = group_index_.find(name);
  return it == group_index_.end() ? nullptr : &groups_[it->second];
}

const StatRegistry::Group& StatRegistry::group_named(const std::string& name) const {
  const Group* g = find_group(name);
  if (!g) throw std::logic_error("no statistic group " + name);
  return *g;
}

uint64_t StatRegistry::sum(const std::string& group_name, const Snapshot& s) const {
  uint64_t total = 0;
  for (size_t i : group_named(group_name).entries) total += s[i];
  return total;
}

uint64_t StatRegistry::max(const std::string& group_name, const Snapshot& s) const {
  uint64_t m = 0;
  for (size_t i : group_named(group_name).entries) m = std::max(m, s[i]);
  return m;
}

}  // namespace warpsim
