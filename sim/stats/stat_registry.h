#pragma once
// Statistics are plain uint64_t counters owned by the components (so the hot path is a plain
// increment) and registered here by hierarchical name with a unit and description. Reports read
// the registry, never the components. Per-kernel numbers are differences of snapshots.
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace warpsim {

class StatRegistry {
 public:
  struct Entry {
    std::string name;  // "gpu.sm[3].l1.sector_hits"
    std::string group; // the name with indices replaced by [*]: "gpu.sm[*].l1.sector_hits"
    std::string unit;
    std::string description;
    const uint64_t* value;
  };
  using Snapshot = std::vector<uint64_t>;

  // Registers a counter that lives in the component; the component must outlive the registry's use.
  void add(std::string name, const uint64_t* value, std::string unit, std::string description);

  Snapshot snapshot() const;
  static Snapshot difference(const Snapshot& later, const Snapshot& earlier);

  // Sum over every counter of a group ("gpu.sm[*].inst_executed") in a snapshot.
  uint64_t sum(const std::string& group, const Snapshot& s) const;
  uint64_t max(const std::string& group, const Snapshot& s) const;
  const std::deque<Entry>& entries() const { return entries_; }
  std::vector<std::string> groups() const;  // in registration order
  const Entry& first_of(const std::string& group) const;

 private:
  std::deque<Entry> entries_;
  std::unordered_map<std::string, std::vector<size_t>> by_group_;
  std::vector<std::string> group_order_;
};

}  // namespace warpsim
