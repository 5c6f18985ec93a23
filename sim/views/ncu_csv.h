#pragma once
// Nsight Compute's CSV output (`ncu --csv --print-units base --metrics ...`), read back: one entry
// per profiled kernel launch, in the order ncu numbered them (its ID column), with the metrics it
// reported. Both of ncu's layouts are read: the details page (a row per metric: "Metric Name",
// "Metric Unit", "Metric Value") and the raw page (a row per launch, a column per metric, units
// in the second row). Malformed input is an InputError naming the file, line and column.
#include <map>
#include <string>
#include <vector>

namespace warpsim {

struct NcuLaunch {
  long id = 0;
  std::string kernel;                      // the function name, without a parameter list
  std::string grid, block;                 // "(4,8,1)": as ncu prints them, without spaces
  std::map<std::string, double> metrics;   // name -> value in the metric's base unit
  std::map<std::string, std::string> units;
};

// `text` is the CSV, `file` names it in errors. Lines before the header (ncu's "==PROF==" log
// lines, the profiled program's own output) are skipped; values "n/a" and empty ones are left out.
std::vector<NcuLaunch> parse_ncu_csv(const std::string& text, const std::string& file);

// "(4,8,1)" for a grid or block, as NcuLaunch holds them.
std::string ncu_dim3(unsigned x, unsigned y, unsigned z);

}  // namespace warpsim
