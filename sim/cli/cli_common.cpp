#include "cli/cli_common.h"

#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "common/atomic_file.h"

namespace warpsim::cli {

#ifndef WARPSIM_VERSION
#define WARPSIM_VERSION "0.0.0"
#endif
const char* const kVersion = WARPSIM_VERSION;

bool parse_arguments(const std::vector<std::string>& args, const boost::program_options::options_description& opts,
                     const boost::program_options::positional_options_description& positional) {
  namespace po = boost::program_options;
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(positional).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return false;
  }
  return true;
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }
bool stdout_is_terminal() { return ::isatty(STDOUT_FILENO) == 1; }

void write_output(const std::string& path, const std::string& content) {
  if (path == "-") {
    std::cout << content;
    std::cout.flush();
    return;
  }
  write_file_atomically(path, content);
}

void write_output_maybe_gzip(const std::string& path, const std::string& content) {
  if (!path.ends_with(".gz")) return write_output(path, content);
  std::string tmp = path + ".tmp";  // renamed into place only when complete
  gzFile f = gzopen(tmp.c_str(), "wb");
  if (!f || gzwrite(f, content.data(), static_cast<unsigned>(content.size())) != static_cast<int>(content.size()) || gzclose(f) != Z_OK) {
    std::filesystem::remove(tmp);
    throw std::runtime_error(path + ": cannot write");
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace warpsim::cli
