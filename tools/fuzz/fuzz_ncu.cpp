// Fuzzes Nsight Compute CSV files as `warpsim validate --ncu` reads them (views/ncu_csv.h), then
// pairs what was read with a simulated launch, as validate does.
#include "fuzz_support.h"
#include "views/metric_validation.h"
#include "views/ncu_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpsim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::expect_clean_errors([&] {
    const std::vector<NcuLaunch> launches = parse_ncu_csv(text, "in.ncu.csv");
    std::vector<SimulatedLaunch> simulated = {{"e", "h100", "k", "(1,1,1)", {{"dram__bytes_read.sum", 64}}, {}}};
    std::vector<std::string> notes;
    metric_table(metric_summaries(match_metrics(simulated, launches, notes)));
  });
  return 0;
}
