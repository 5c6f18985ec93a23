// L2's reads from HBM in flight: reads of a sector on its way wait for the same fetch and are
// answered with it; a line evicted while its sectors are on their way still answers its readers;
// and on one bank, FR-FCFS turns interleaved requests to two rows into runs of row hits.
#include <gtest/gtest.h>

#include <map>

#include "config/load_config.h"
#include "mem/memory_system.h"

namespace warpsim {
namespace {

struct Answers : MemResponder {
  std::vector<std::pair<MemResponse, Cycle>> got;
  void deliver(const MemResponse& r, Cycle arrival) override { got.emplace_back(r, arrival); }
};

struct Memory {
  explicit Memory(const GpuSpec& s) : spec(s), memory(spec, engine, stats) {
    memory.connect(std::vector<MemResponder*>(spec.topology.sms, &answers));
  }
  void read(uint16_t sm, uint64_t line, uint32_t sectors, uint32_t token, Cycle depart = 0) {
    MemRequest r;
    r.line = line, r.sectors = sectors, r.token = token, r.sm = sm;
    memory.send(r, depart);
  }
  Cycle answered(uint32_t token) const {
    for (const auto& [r, at] : answers.got)
      if (r.token == token) return at;
    return kNever;
  }
  uint64_t counter(const std::string& name) const { return stats.sum(name, stats.snapshot()); }

  GpuSpec spec;
  Engine engine;
  StatRegistry stats;
  Answers answers;
  MemorySystem memory;
};

TEST(L2Mshrs, ReadsOfASectorOnItsWayWaitForTheSameFetch) {
  const GpuSpec spec = load_gpu_config("a100").spec;
  Memory alone(spec);
  alone.read(0, 1000, 0b0010, 1);
  alone.engine.run(nullptr);
  const Cycle lone = alone.answered(1);
  ASSERT_NE(lone, kNever);

  // Two SMs of one partition read the same sector in the same cycle: one fetch, both answered
  // when it arrives, as the lone read was.
  Memory both(spec);
  ASSERT_EQ(both.memory.partition_of_sm(0), both.memory.partition_of_sm(1));
  both.read(0, 1000, 0b0010, 1);
  both.read(1, 1000, 0b0010, 2);
  both.engine.run(nullptr);
  EXPECT_EQ(both.answered(1), lone);
  EXPECT_EQ(both.answered(2), lone);
  EXPECT_EQ(both.counter("gpu.dram.bytes_read"), spec.memory.sector_bytes);
  EXPECT_EQ(both.counter("gpu.l2.sector_read_hits"), 1u);
}

// With 64-byte HBM fetches (h200's fetch_bytes), a miss on sector 1 brings sector 0 too: 64
// bytes read, and a later read of sector 0 is an L2 hit answered without HBM; sector 2, in the
// other pair, is fetched again (with sector 3). With 32-byte fetches each miss reads 32 bytes.
TEST(L2Mshrs, ASixtyFourByteFetchFillsTheSectorPair) {
  for (uint32_t fetch : {32u, 64u}) {
    SCOPED_TRACE(fetch);
    GpuSpec spec = load_gpu_config("h200").spec;
    spec.memory.hbm.fetch_bytes = fetch;
    Memory m(spec);
    m.read(0, 1000, 0b0010, 1);
    m.read(0, 1000, 0b0001, 2, 5000);  // long after the first came back
    m.read(0, 1000, 0b0100, 3, 10000);
    m.engine.run(nullptr);
    ASSERT_NE(m.answered(3), kNever);
    const uint64_t sector = spec.memory.sector_bytes;
    EXPECT_EQ(m.counter("gpu.dram.bytes_read"), fetch == 64 ? 4 * sector : 3 * sector);
    EXPECT_EQ(m.counter("gpu.l2.sector_read_hits"), fetch == 64 ? 1u : 0u);
    if (fetch == 64) {
      EXPECT_LT(m.answered(2) - 5000, m.answered(1));  // a hit: sooner than the miss was
    }
  }
}

TEST(L2Mshrs, ALineEvictedWhileOnItsWayStillAnswersItsReaders) {
  GpuSpec spec = load_gpu_config("a100").spec;
  // One slice of one line: the second line evicts the first while the first is still fetched.
  spec.memory.l2.partitions = 1, spec.memory.l2.slices = 1, spec.memory.l2.associativity = 1;
  spec.memory.l2.size_bytes = spec.memory.line_bytes;
  Memory m(spec);
  m.read(0, 1000, 0b0001, 1);
  m.read(0, 1001, 0b0001, 2);
  m.read(0, 1000, 0b0001, 3, 5000);  // long after: the line is gone, so HBM is read again
  m.engine.run(nullptr);
  EXPECT_NE(m.answered(1), kNever);
  EXPECT_NE(m.answered(2), kNever);
  EXPECT_GT(m.answered(3), 5000u);
  EXPECT_EQ(m.counter("gpu.dram.bytes_read"), 3 * spec.memory.sector_bytes);
}

// Lines of two rows of one bank in channel 0, four each.
std::pair<std::vector<uint64_t>, std::vector<uint64_t>> two_rows_of_one_bank(const MemorySystem& memory) {
  std::map<uint64_t, std::vector<uint64_t>> rows;
  for (uint64_t line = 0; line < (1u << 22); ++line) {
    if (memory.channel_of(line) != 0 || memory.dram_bank_of(line) != 0) continue;
    auto& lines = rows[memory.dram_row_of(line)];
    lines.push_back(line);
    if (lines.size() == 4 && rows.size() > 1) {
      for (const auto& [row, other] : rows)
        if (row != memory.dram_row_of(line) && other.size() >= 4) return {std::vector(other.begin(), other.begin() + 4), lines};
    }
  }
  return {};
}

TEST(L2Mshrs, FrFcfsTurnsInterleavedRowsIntoRunsOfHits) {
  std::map<std::string, std::array<uint64_t, 3>> rows;  // policy -> hits, empty, conflicts
  for (const char* policy : {"fr_fcfs", "fcfs"}) {
    GpuSpec spec = load_gpu_config("a100").spec;
    spec.memory.hbm.fr_fcfs = std::string(policy) == "fr_fcfs";
    spec.memory.hbm.t_refi_ns = 0;  // no refresh to close a row in between
    Memory m(spec);
    const auto [a, b] = two_rows_of_one_bank(m.memory);
    ASSERT_EQ(a.size(), 4u);
    // Sent alternately from eight SMs in one cycle: they reach the bank in this order.
    for (uint32_t i = 0; i < 8; ++i) m.read(static_cast<uint16_t>(i), (i % 2 ? b : a)[i / 2], 0b0001, i);
    m.engine.run(nullptr);
    rows[policy] = {m.counter("gpu.dram.channel[*].row_hits"), m.counter("gpu.dram.channel[*].row_empty"),
                    m.counter("gpu.dram.channel[*].row_conflicts")};
    EXPECT_EQ(m.answers.got.size(), 8u);
  }
  // FCFS: the first opens row a, every later one switches rows. FR-FCFS: the first opens row a,
  // the other three of row a follow as hits, then one switch and three hits on row b.
  EXPECT_EQ(rows["fcfs"], (std::array<uint64_t, 3>{0, 1, 7}));
  EXPECT_EQ(rows["fr_fcfs"], (std::array<uint64_t, 3>{6, 1, 1}));
}

}  // namespace
}  // namespace warpsim
