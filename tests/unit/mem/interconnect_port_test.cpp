// Each SM's port toward L2 carries store data at interconnect.request_bytes_per_clk_per_sm; loads
// send only an 8-byte header that way and take their data through the port from L2
// (bytes_per_clk_per_sm). One SM storing B bytes therefore takes at least B / request rate, and a
// narrower request port leaves loads as they were.
#include <gtest/gtest.h>

#include <array>

#include "config/load_config.h"
#include "frontend/synthetic/generated_workload.h"
#include "gpu/simulation.h"
#include "isa/op_info.h"

namespace warpsim {
namespace {

constexpr uint32_t kWarps = 8, kCount = 64;
constexpr uint64_t kBytes = uint64_t{kWarps} * kCount * 512;  // 16-byte lanes: 512 bytes per instruction

// One CTA of 8 warps on one SM; each warp issues kCount 16-byte-per-lane accesses to addresses
// no other warp touches (the data fits in L2, so DRAM plays no part once it is there).
Cycle run(const GpuSpec& spec, const char* mnemonic) {
  OpInfo op;
  std::string error;
  if (!decode_mnemonic(mnemonic, op, error)) ADD_FAILURE() << error;
  GeneratedKernel k;
  k.info.name = "port";
  k.info.grid = Dim3{1, 1, 1};
  k.info.block = Dim3{kWarps * 32, 1, 1};
  k.info.registers_per_thread = 64;
  const bool store = op.op_class == OpClass::kStore;
  k.program = [store, op = &op](uint32_t, uint32_t warp) -> WarpProgram {
    return [=, regs = std::array<RegId, 4>{}](uint64_t i, WarpInst& in) mutable {
      if (i >= kCount) return false;
      // A store reads four value registers, a load writes four (the address is given apart);
      // sixteen quadruples in turn, so loads never wait for each other.
      const auto q = static_cast<RegId>(1 + (i % 16) * 4);
      regs = {q, static_cast<RegId>(q + 1), static_cast<RegId>(q + 2), static_cast<RegId>(q + 3)};
      in.op = op, in.active_mask = 0xffffffffu, in.regs = regs.data();
      in.num_dst = store ? 0 : 4, in.num_src = store ? 4 : 0;
      in.addr = LaneAddresses{0x10000000 + (uint64_t{warp} * kCount + i) * 512, 16, nullptr};
      return true;
    };
  };
  std::vector<GeneratedKernel> kernels;
  kernels.push_back(std::move(k));
  Gpu gpu(spec);
  GeneratedWorkload w(std::move(kernels));
  return simulate(gpu, w).kernels.at(0).cycles();
}

TEST(InterconnectPort, StoresTakeTheirBytesOverTheRequestPortsRate) {
  GpuSpec spec = load_gpu_config("h100").spec;
  ASSERT_EQ(spec.memory.interconnect.request_bytes_per_clk_per_sm, double(spec.memory.interconnect.bytes_per_clk_per_sm));
  const Cycle wide = run(spec, "st.global.v4.f32");
  const Cycle wide_loads = run(spec, "ld.global.v4.f32");
  for (const double rate : {8.0, 12.5}) {
    SCOPED_TRACE(rate);
    spec.memory.interconnect.request_bytes_per_clk_per_sm = rate;
    const Cycle narrow = run(spec, "st.global.v4.f32");
    const double floor = double(kBytes) / rate;
    EXPECT_GE(double(narrow), floor);
    EXPECT_LE(double(narrow), floor + 1500);  // plus one trip to L2 and back, and the issue ramp
    EXPECT_GT(double(narrow), 2 * double(wide));
    // Loads send 8-byte headers that way (one per 128-byte line: 8 B for 128 coming back), so the
    // data's return through the 64-byte port still sets their pace.
    const Cycle narrow_loads = run(spec, "ld.global.v4.f32");
    EXPECT_LE(double(narrow_loads), 1.05 * double(wide_loads)) << wide_loads;
  }
}

}  // namespace
}  // namespace warpsim
