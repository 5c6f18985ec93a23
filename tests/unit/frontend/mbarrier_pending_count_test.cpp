// mbarrier.pending_count in the PTX emulator: "the pending count of the mbarrier object prior to
// the arrive-on operation from which the state register was obtained", which must be an
// mbarrier.arrive.noComplete or arrive_drop.noComplete (PTX ISA). Expected counts worked out by
// hand from the arrivals, and the set a warp's 32 arrivals see (whatever order its lanes take).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "common/error.h"
#include "support/test_support.h"
#include "unit/frontend/ptx_run.h"

namespace warpsim {
namespace {

// Thread 0 walks a barrier of expected count 10 (one warp of 32 threads is launched):
//   arrive.noComplete 3        pending before: 10
//   arrive.noComplete 1        7
//   arrive_drop.noComplete 2   6   (later phases expect 8)
//   arrive, four times         phase 0 completes
//   arrive.noComplete 1        8   (phase 1)
//   test_wait on the first token: phase 0 is complete -> 1; on the last: phase 1 is not -> 0
// Then every lane arrives once with .noComplete on a second barrier of count 40: the 32 counts
// are 40 down to 9, one each.
std::string kernel(const std::string& last_count_token) {
  return R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 lanes)
{
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<16>;
  .shared .align 8 .b64 bar;
  .shared .align 8 .b64 many;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd9, [lanes];
  mov.u32 %r1, bar;
  mov.u32 %r10, many;
  mov.u32 %r0, %tid.x;
  setp.ne.u32 %p3, %r0, 0;
  @%p3 bra Lanes;
  mbarrier.init.shared.b64 [%r1], 10;
  mbarrier.init.shared.b64 [%r10], 40;
  mbarrier.arrive.noComplete.shared.b64 %rd2, [%r1], 3;
  mbarrier.arrive.noComplete.shared.b64 %rd3, [%r1], 1;
  mbarrier.arrive_drop.noComplete.shared.b64 %rd4, [%r1], 2;
  mbarrier.arrive.shared.b64 %rd5, [%r1];
  mbarrier.arrive.shared.b64 %rd5, [%r1];
  mbarrier.arrive.shared.b64 %rd5, [%r1];
  mbarrier.arrive.shared.b64 %rd5, [%r1];
  mbarrier.arrive.noComplete.shared.b64 %rd6, [%r1], 1;
  mbarrier.pending_count.b64 %r2, %rd2;
  mbarrier.pending_count.b64 %r3, %rd3;
  mbarrier.pending_count.b64 %r4, %rd4;
  mbarrier.pending_count.b64 %r5, )" + last_count_token + R"(;
  mbarrier.test_wait.shared.b64 %p1, [%r1], %rd2;
  mbarrier.test_wait.shared.b64 %p2, [%r1], %rd6;
  selp.u32 %r6, 1, 0, %p1;
  selp.u32 %r7, 1, 0, %p2;
  st.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};
  st.global.v2.u32 [%rd1+16], {%r6, %r7};
Lanes:
  bar.sync 0;
  mbarrier.arrive.noComplete.shared.b64 %rd7, [%r10], 1;
  mbarrier.pending_count.b64 %r11, %rd7;
  mul.wide.u32 %rd8, %r0, 4;
  add.s64 %rd10, %rd9, %rd8;
  st.global.u32 [%rd10], %r11;
  ret;
}
)";
}

std::string launch_in(test::TempDir& dir, const std::string& ptx) {
  dir.write("k.ptx", ptx);
  return dir.write("k.launch.yaml",
                   "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs:\n  - {buffer: {name: out, elem: u32, count: 6}}\n"
                   "  - {buffer: {name: lanes, elem: u32, count: 32}}\n");
}

TEST(MbarrierPendingCount, IsTheCountBeforeTheArriveThatReturnedTheState) {
  test::TempDir dir;
  for (const char* arch : {"a100", "h100"}) {
    test::Ran r = test::run_launch(arch, launch_in(dir, kernel("%rd6")));
    EXPECT_EQ(test::buffer<uint32_t>(*r.workload, "out"), (std::vector<uint32_t>{10, 7, 6, 8, 1, 0})) << arch;
    std::vector<uint32_t> lanes = test::buffer<uint32_t>(*r.workload, "lanes"), want(32);
    std::sort(lanes.begin(), lanes.end());
    std::iota(want.begin(), want.end(), 9u);
    EXPECT_EQ(lanes, want) << arch;
  }
}

TEST(MbarrierPendingCount, AStateFromAnArriveWithoutNoCompleteIsAFault) {
  test::TempDir dir;
  try {
    test::run_launch("a100", launch_in(dir, kernel("%rd5")));
    ADD_FAILURE() << "pending_count read an arrive's state that was not .noComplete";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("k.ptx:31:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mbarrier.pending_count reads a state that no mbarrier.arrive.noComplete or arrive_drop.noComplete "
                                         "returned, which the PTX ISA leaves undefined"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace warpsim
