#pragma once
// Statistics are plain uint64_t counters owned by the components (so the hot path is a plain
// increment) and registered here by hierarchical name with a unit and description. Reports read
// the registry, never the components. Per-kernel numbers are differences of snapshots.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace warpsim {

class StatRegistry {
 public:
  // The counters of one name with their indices replaced by [*] (every SM's
  // "gpu.sm[*].l1.sector_hits"): one unit and description for all of them, kept once (a GPU
  // registers about ten thousand counters, and every run pays for each).
  struct Group {
    std::string name;
    std::string unit;
    std::string description;
    std::vector<size_t> entries;  // indices into entries(), in registration order
  };
  struct Entry {
    std::string name;  // "gpu.sm[3].l1.sector_hits"
    uint32_t group;    // index into groups()
    const uint64_t* value;
  };
  using Snapshot = std::vector<uint64_t>;

  // Registers a counter that lives in the component; the component must outlive the registry's
  // use. Counters of one group must agree on unit and description (std::logic_error otherwise).
  void add(std::string name, const uint64_t* value, std::string_view unit, std::string_view description);

  Snapshot snapshot() const;
  static Snapshot difference(const Snapshot& later, const Snapshot& earlier);

  // Sum over every counter of a group ("gpu.sm[*].inst_executed") in a snapshot.
  uint64_t sum(const std::string& group, const Snapshot& s) const;
  uint64_t max(const std::string& group, const Snapshot& s) const;
  const std::deque<Entry>& entries() const { return entries_; }
  const std::vector<Group>& groups() const { return groups_; }  // in registration order
  const Group& group_of(const Entry& e) const { return groups_[e.group]; }
  const Group* find_group(const std::string& name) const;  // nullptr for an unknown one

 private:
  const Group& group_named(const std::string& name) const;  // std::logic_error for an unknown one

  std::deque<Entry> entries_;
  std::vector<Group> groups_;
  std::unordered_map<std::string, uint32_t> group_index_;
  std::string scratch_;  // the group name of the counter being added, without an allocation each time
};

}  // namespace warpsim
