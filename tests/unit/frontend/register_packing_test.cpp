// Register packing: virtual registers whose live ranges never overlap share storage, and kernels
// that would go wrong if packing were too eager still compute the right values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "frontend/ptx/launch.h"
#include "frontend/ptx/program.h"
#include "frontend/ptx/ptx_module.h"
#include "gpu/simulation.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

const char* kChain = R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry chain(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 1;
  add.u32 %r3, %r2, 1;
  add.u32 %r4, %r3, 1;
  add.u32 %r5, %r4, 1;
  st.global.u32 [%rd1], %r5;
  ret;
}
)";

size_t count_bits(const ptx::Program& p, uint32_t bits) { return static_cast<size_t>(std::count(p.storage_bits.begin(), p.storage_bits.end(), bits)); }

TEST(RegisterPacking, AChainOfValuesNeedsTwoStorageRegisters) {
  ptx::Program p = ptx::lower(ptx::parse_ptx(kChain, "chain.ptx"), "chain");
  // %r1..%r5 each live from its definition to the next instruction, which reads it while writing
  // the next one: a destination never shares with a source, so they alternate between two.
  EXPECT_EQ(count_bits(p, 32), 2u);
  EXPECT_EQ(count_bits(p, 64), 1u);  // 64-bit registers never share with 32-bit ones
  EXPECT_EQ(p.storage_bits.size(), 3u);
  EXPECT_EQ(p.register_bits.size(), 8u);  // the declared registers stay as they were (%r0, %rd0 unused)
  // The scoreboard still sees virtual registers, so timing does not depend on the packing.
  EXPECT_EQ(p.insts[3].dsts.at(0), p.insts[2].dsts.at(0) + 1);
}

const char* kTricky = R"(.version 9.0
.target sm_80
.address_size 64
.visible .entry tricky(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 3;
  shfl.sync.up.b32 %r3, %r2, 1, 0, -1;
  mov.u32 %r8, 100;
  mov.u32 %r9, 0;
  mov.u32 %r10, 0;
$L:
  add.u32 %r5, %r10, %r1;
  add.u32 %r9, %r9, %r5;
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p1, %r10, 5;
  @%p1 bra $L;
  add.u32 %r6, %r9, %r8;
  setp.lt.u32 %p2, %r1, 16;
  mov.u32 %r7, 7;
  @%p2 mov.u32 %r7, 5;
  mad.lo.u32 %r11, %r6, 1000, %r3;
  mad.lo.u32 %r11, %r7, 1000000, %r11;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r11;
  ret;
}
)";

// A shuffle reading a neighbour's register, a value live across a loop beside temporaries inside
// it, and a guarded redefinition: packing that ignored liveness would give wrong answers here.
TEST(RegisterPacking, ShufflesLoopsAndGuardedWritesKeepTheirValues) {
  test::TempDir dir;
  dir.write("t.ptx", kTricky);
  std::string launch = dir.write("t.launch.yaml", "ptx: t.ptx\nkernel: tricky\ngrid: [1]\nblock: [64]\nargs:\n"
                                                  "  - {buffer: {name: out, elem: u32, count: 64}}\n");
  for (const char* model : {"stack", "independent"}) {
    SCOPED_TRACE(model);
    ptx::PtxWorkload w(launch, 80);
    w.set_independent_thread_scheduling(std::string(model) == "independent");
    LoadedConfig c = load_gpu_config("a100");
    Gpu gpu(c.spec);
    simulate(gpu, w);
    const auto& bytes = w.memory().find("out")->bytes;
    std::vector<uint32_t> out(64);
    std::memcpy(out.data(), bytes.data(), 256);
    for (uint32_t t = 0; t < 64; ++t) {
      const uint32_t lane = t % 32;
      const uint32_t shuffled = 3 * (lane >= 1 ? t - 1 : t);  // shfl.up by 1; lane 0 keeps its own
      const uint32_t looped = (0 + 1 + 2 + 3 + 4) + 5 * t + 100;
      const uint32_t guarded = t < 16 ? 5 : 7;
      EXPECT_EQ(out[t], guarded * 1000000 + looped * 1000 + shuffled) << "thread " << t;
    }
  }
}

}  // namespace
}  // namespace warpsim
