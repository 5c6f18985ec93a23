// Fuzzes the sweep planner. The first byte picks the input: even, a sweep file expanded into
// points (every point's config resolved on the shipped configs); odd, a points file read back.
#include "fuzz_support.h"
#include "sweep/sweep_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpsim;
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    const std::string path = fuzz::write_file("sweep.yaml", data + 1, size - 1);
    fuzz::expect_clean_errors([&] { plan_sweep(path); });
  } else {
    const std::string path = fuzz::write_file("points.jsonl", data + 1, size - 1);
    fuzz::expect_clean_errors([&] { read_points(path); });
  }
  return 0;
}
