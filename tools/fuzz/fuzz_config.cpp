// Fuzzes the GPU config reader: a YAML description in, a typed GpuSpec or a located error out.
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpsim;
  const std::string path = fuzz::write_file("gpu.yaml", data, size);
  fuzz::expect_clean_errors([&] { load_gpu_config(path); });
  return 0;
}
