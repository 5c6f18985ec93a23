#include "stats/stat_registry.h"

#include <algorithm>
#include <stdexcept>

namespace warpsim {
namespace {
std::string group_of(const std::string& name) {
  std::string g;
  g.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '[') {
      size_t close = name.find(']', i);
      g += "[*]";
      i = close;
    } else {
      g += name[i];
    }
  }
  return g;
}
}  // namespace

void StatRegistry::add(std::string name, const uint64_t* value, std::string unit, std::string description) {
  std::string group = group_of(name);
  auto [it, fresh] = by_group_.try_emplace(group);
  if (fresh) group_order_.push_back(group);
  it->second.push_back(entries_.size());
  entries_.push_back(Entry{std::move(name), std::move(group), std::move(unit), std::move(description), value});
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

uint64_t StatRegistry::sum(const std::string& group, const Snapshot& s) const {
  auto it = by_group_.find(group);
  if (it == by_group_.end()) throw std::logic_error("no statistic group " + group);
  uint64_t total = 0;
  for (size_t i : it->second) total += s[i];
  return total;
}

uint64_t StatRegistry::max(const std::string& group, const Snapshot& s) const {
  auto it = by_group_.find(group);
  if (it == by_group_.end()) throw std::logic_error("no statistic group " + group);
  uint64_t m = 0;
  for (size_t i : it->second) m = std::max(m, s[i]);
  return m;
}

std::vector<std::string> StatRegistry::groups() const { return group_order_; }

const StatRegistry::Entry& StatRegistry::first_of(const std::string& group) const {
  return entries_[by_group_.at(group).front()];
}

}  // namespace warpsim
