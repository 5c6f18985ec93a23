// Fuzzes the trace readers (warpsim's text traces and Accel-Sim's .traceg) through a whole
// simulation on a small GPU.
#include "frontend/accelsim/accelsim_workload.h"
#include "frontend/trace/trace_reader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpsim;
  // The first byte picks the reader, so one corpus covers both formats.
  if (size == 0) return 0;
  const bool accelsim = data[0] & 1;
  const std::string path = fuzz::write_file(accelsim ? "in.traceg" : "in.trace", data + 1, size - 1);
  fuzz::expect_clean_errors([&] {
    if (accelsim) {
      AccelSimWorkload workload(path);
      fuzz::simulate_on("v100", workload);
    } else {
      TraceWorkload workload(path);
      fuzz::simulate_on("h100", workload);
    }
  });
  return 0;
}
