#include "views/ncu_csv.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <sstream>

#include "common/error.h"

namespace warpsim {

namespace {

struct CsvRow {
  std::vector<std::string> cells;
  std::vector<uint32_t> columns;  // the 1-based column each cell starts at, for errors
};

// One line of RFC 4180 CSV as ncu writes it (every field quoted; quotes doubled inside).
CsvRow split_csv(const std::string& line, const std::string& file, uint32_t line_no) {
  CsvRow row;
  std::string cell;
  bool quoted = false, in_quotes = false;
  uint32_t start = 1;
  for (size_t i = 0; i <= line.size(); ++i) {
    const char c = i < line.size() ? line[i] : ',';
    if (in_quotes) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else if (i == line.size()) {
        throw InputError(SourceLocation{file, line_no, start}, "a quoted field is not closed; expected ncu's CSV (--csv)");
      } else {
        cell += c;
      }
    } else if (c == ',') {
      row.cells.push_back(cell);
      row.columns.push_back(start);
      cell.clear();
      quoted = false;
      start = static_cast<uint32_t>(i) + 2;
    } else if (c == '"' && cell.empty() && !quoted) {
      in_quotes = quoted = true;
    } else if (c != '\r') {
      cell += c;
    }
  }
  return row;
}

int column_of(const CsvRow& header, const std::string& name) {
  auto it = std::find(header.cells.begin(), header.cells.end(), name);
  return it == header.cells.end() ? -1 : static_cast<int>(it - header.cells.begin());
}

// A metric value: ncu may group thousands with commas; "n/a" or nothing means not measured.
bool metric_value(std::string text, double& out) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  if (text.empty() || text == "n/a") return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return errno == 0 && end && *end == '\0';
}

// "void k(float*)" (a C++ kernel) or "k" (extern "C"): the function's name.
std::string function_name(std::string kernel) {
  kernel = kernel.substr(0, kernel.find('('));
  if (kernel.rfind("void ", 0) == 0) kernel.erase(0, 5);
  return kernel;
}

// ncu prints "(4, 8, 1)" or "(4,8,1)" depending on its version.
std::string without_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

}  // namespace

std::string ncu_dim3(unsigned x, unsigned y, unsigned z) {
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

std::vector<NcuLaunch> parse_ncu_csv(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::string line;
  uint32_t line_no = 0;
  CsvRow header;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.rfind("\"ID\"", 0) == 0) {
      header = split_csv(line, file, line_no);
      break;
    }
  }
  if (header.cells.empty()) {
    throw InputError(SourceLocation{file, line_no, 0},
                     "no header row starting with \"ID\"; expected the CSV of `ncu --csv --print-units base --metrics ...`");
  }
  const int id = column_of(header, "ID"), kernel = column_of(header, "Kernel Name"), grid = column_of(header, "Grid Size"),
            block = column_of(header, "Block Size"), name = column_of(header, "Metric Name"), unit = column_of(header, "Metric Unit"),
            value = column_of(header, "Metric Value");
  const uint32_t header_line = line_no;
  if (id < 0 || kernel < 0) {
    throw InputError(SourceLocation{file, header_line, 1},
                     std::string("the header has no \"") + (id < 0 ? "ID" : "Kernel Name") + "\" column; expected ncu's CSV");
  }
  const bool details = name >= 0 && value >= 0;
  std::vector<NcuLaunch> launches;
  std::vector<std::string> raw_units;  // the raw page's second row
  auto cell = [&](const CsvRow& r, int c) { return c >= 0 && c < static_cast<int>(r.cells.size()) ? r.cells[static_cast<size_t>(c)] : ""; };
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line == "\r" || line.rfind("==", 0) == 0) continue;  // ncu's own log lines
    const CsvRow row = split_csv(line, file, line_no);
    if (row.cells.size() != header.cells.size()) {
      throw InputError(SourceLocation{file, line_no, 1}, "this row has " + std::to_string(row.cells.size()) + " fields; the header (line " +
                                                             std::to_string(header_line) + ") has " + std::to_string(header.cells.size()));
    }
    if (!details && raw_units.empty() && cell(row, id).empty()) {  // the raw page's units row
      raw_units = row.cells;
      continue;
    }
    char* end = nullptr;
    const std::string id_text = cell(row, id);
    const long launch_id = std::strtol(id_text.c_str(), &end, 10);
    if (id_text.empty() || *end != '\0') {
      throw InputError(SourceLocation{file, line_no, row.columns[static_cast<size_t>(id)]}, "the ID \"" + id_text + "\" is not a number");
    }
    if (launches.empty() || launches.back().id != launch_id) {
      NcuLaunch l;
      l.id = launch_id;
      l.kernel = function_name(cell(row, kernel));
      l.grid = without_spaces(cell(row, grid));
      l.block = without_spaces(cell(row, block));
      launches.push_back(std::move(l));
    }
    NcuLaunch& l = launches.back();
    if (details) {
      double v = 0;
      if (metric_value(cell(row, value), v)) {
        l.metrics[cell(row, name)] = v;
        l.units[cell(row, name)] = cell(row, unit);
      } else if (!cell(row, value).empty() && cell(row, value) != "n/a") {
        throw InputError(SourceLocation{file, line_no, row.columns[static_cast<size_t>(value)]},
                         "metric " + cell(row, name) + " has the value \"" + cell(row, value) + "\"; expected a number");
      }
      continue;
    }
    // Raw page: every column after the launch's description that holds a number is a metric.
    for (size_t c = 0; c < row.cells.size(); ++c) {
      const std::string& metric = header.cells[c];
      if (metric.find("__") == std::string::npos) continue;  // ID, Kernel Name, Grid Size, ...
      double v = 0;
      if (metric_value(row.cells[c], v)) {
        l.metrics[metric] = v;
        l.units[metric] = c < raw_units.size() ? raw_units[c] : "";
      }
    }
  }
  return launches;
}

}  // namespace warpsim
