// Fuzzes launch files (YAML naming a PTX kernel, its grid and its arguments) over the shipped
// kernels' PTX, through emulation and timing on a small GPU. The corpus's `ptx:` paths are
// absolute, pointing into the repository.
#include "frontend/ptx/launch.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpsim;
  const std::string path = fuzz::write_file("in.launch.yaml", data, size);
  fuzz::expect_clean_errors([&] {
    ptx::PtxWorkload workload(path, fuzz::small_gpu("h100"));  // sm_90 and H100's tensor-core arithmetic, as `warpsim run`
    fuzz::simulate_on("h100", workload);
  });
  return 0;
}
