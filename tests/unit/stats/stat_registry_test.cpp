// The statistics registry: counters grouped by name with their indices as [*], sums and maxima
// over a group, one unit and description per group.
#include <gtest/gtest.h>

#include <stdexcept>

#include "stats/stat_registry.h"

namespace warpsim {
namespace {

TEST(StatRegistry, CountersOfOneNameShareAGroup) {
  StatRegistry r;
  uint64_t hits[3] = {5, 7, 11}, cycles = 100;
  for (int sm = 0; sm < 3; ++sm) r.add("gpu.sm[" + std::to_string(sm) + "].l1.hits", &hits[sm], "sectors", "L1 sector hits");
  r.add("gpu.cycles", &cycles, "cycles", "cycles simulated");
  r.add("gpu.sm[12].l2[3].x", &cycles, "n", "two indices");
  ASSERT_EQ(r.groups().size(), 3u);
  EXPECT_EQ(r.groups()[0].name, "gpu.sm[*].l1.hits");
  EXPECT_EQ(r.groups()[0].entries, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(r.groups()[2].name, "gpu.sm[*].l2[*].x");
  EXPECT_EQ(r.group_of(r.entries()[1]).description, "L1 sector hits");
  EXPECT_EQ(r.group_of(r.entries()[3]).unit, "cycles");
  const auto before = r.snapshot();
  hits[1] += 10;
  const auto after = r.snapshot();
  EXPECT_EQ(r.sum("gpu.sm[*].l1.hits", after), 33u);
  EXPECT_EQ(r.max("gpu.sm[*].l1.hits", after), 17u);
  EXPECT_EQ(r.sum("gpu.sm[*].l1.hits", StatRegistry::difference(after, before)), 10u);
  EXPECT_EQ(r.find_group("gpu.nothing"), nullptr);
  EXPECT_THROW(r.sum("gpu.nothing", after), std::logic_error);
}

TEST(StatRegistry, AGroupHasOneUnitAndDescription) {
  StatRegistry r;
  uint64_t a = 0, b = 0;
  r.add("gpu.sm[0].x", &a, "cycles", "what x counts");
  EXPECT_THROW(r.add("gpu.sm[1].x", &b, "bytes", "what x counts"), std::logic_error);
  EXPECT_THROW(r.add("gpu.sm[1].x", &b, "cycles", "something else"), std::logic_error);
  EXPECT_EQ(r.entries().size(), 1u);
}

}  // namespace
}  // namespace warpsim
