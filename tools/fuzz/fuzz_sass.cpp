// Fuzzes the SASS frontend: reading a listing, then lowering every kernel in it with a launch of
// one CTA of 64 threads and 4 KiB of zeroed parameters, and emulating a short run of the first
// kernel that lowers. A malformed listing or an instruction the emulator lacks must end in an
// InputError naming the listing's line.
#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/device_memory.h"
#include "frontend/sass/lower_sass.h"
#include "frontend/sass/sass_listing.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpsim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::expect_clean_errors([&] {
    const sass::SassListing listing = sass::parse_sass_listing(text, "in.sass");
    for (const auto& f : listing.functions) {
      sass::SassLaunch launch;
      launch.grid = Dim3{1, 1, 1};
      launch.block = Dim3{64, 1, 1};
      launch.params.assign(4096, 0);
      launch.constants = listing.constant_bank;
      ptx::Program program = sass::lower_sass(listing, f.name, launch);
      ptx::DeviceMemory memory;
      ptx::LaunchContext context;
      context.program = &program;
      context.memory = &memory;
      context.params = launch.params;
      context.grid = launch.grid;
      context.block = launch.block;
      context.file = "in.sass";
      context.max_warp_instructions = 20000;
      ptx::CtaEmulator cta(context, Dim3{0, 0, 0});
      for (uint32_t w = 0; w < cta.num_warps(); ++w)
        for (int i = 0; i < 20000 && cta.warp(w).next(); ++i) {
        }
      return;
    }
  });
  return 0;
}
