// Cache operators on loads (PTX ISA, "Cache operators"): .cs streaming data is cached with
// evict-first priority, so streaming more than L1 holds does not push a hot working set out,
// where the same stream with .ca (plain LRU) does; .cg is served by L2 and never hits L1.
#include <gtest/gtest.h>

#include "config/load_config.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

// One warp: loads `hot` lines with .ca, streams 1.5 x L1 of fresh lines with `stream_op`, then
// loads the hot lines again with .ca. Returns the L1 sector hits (only the reload can hit).
uint64_t reload_hits(const std::string& stream_op, uint32_t hot) {
  const GpuSpec spec = load_gpu_config("h100").spec;
  const uint64_t line = spec.memory.line_bytes;
  const uint64_t stream_lines = spec.memory.l1.unified_bytes * 3 / 2 / line;  // no shared memory: L1 is all of it
  std::string t = test::kernel_header("k", 1, 32) + ".cta 0 0 0\n.warp 0\n";
  auto load = [&](const std::string& op, uint64_t address) {
    char a[32];
    std::snprintf(a, sizeof a, "0x%llx", static_cast<unsigned long long>(address));
    t += op + " %f1, [%rd1]; addr=" + a + "+4\n";
  };
  for (uint32_t i = 0; i < hot; ++i) load("ld.global.ca.f32", 0x10000000 + i * line);
  for (uint64_t i = 0; i < stream_lines; ++i) load(stream_op, 0x20000000 + i * line);
  for (uint32_t i = 0; i < hot; ++i) load("ld.global.ca.f32", 0x10000000 + i * line);
  t += "exit\n";
  return test::simulate_text("h100", t).sum("gpu.sm[*].l1.sector_hits");
}

TEST(CacheOperators, StreamingLoadsDoNotEvictTheHotSet) {
  const uint32_t hot = 64, sectors = 4;  // 64 lines of 4 sectors
  EXPECT_EQ(reload_hits("ld.global.cs.f32", hot), hot * sectors);  // the hot set survives
  EXPECT_EQ(reload_hits("ld.global.lu.f32", hot), hot * sectors);  // .lu on global is .cs
  EXPECT_EQ(reload_hits("ld.global.ca.f32", hot), 0u);             // LRU: the stream displaced it
  EXPECT_EQ(reload_hits("ld.global.cg.f32", hot), hot * sectors);  // L2 only: L1 untouched by the stream
}

}  // namespace
}  // namespace warpsim
