// Fuzzes the GPU config reader. The first byte picks the input: even, a YAML description read
// into a typed GpuSpec; odd, `--set` overrides (one per line) applied to the shipped H100.
#include <sstream>

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpsim;
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    const std::string path = fuzz::write_file("gpu.yaml", data + 1, size - 1);
    fuzz::expect_clean_errors([&] { load_gpu_config(path); });
    return 0;
  }
  std::vector<std::string> sets;
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  for (std::string line; std::getline(lines, line) && sets.size() < 16;) sets.push_back(line);
  fuzz::expect_clean_errors([&] { load_gpu_config("h100", sets); });
  return 0;
}
