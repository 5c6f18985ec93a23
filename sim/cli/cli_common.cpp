#include "cli/cli_common.h"

#include <unistd.h>

#include <iostream>

#include "common/atomic_file.h"

namespace warpsim::cli {

#ifndef WARPSIM_VERSION
#define WARPSIM_VERSION "0.0.0"
#endif
const char* const kVersion = WARPSIM_VERSION;

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

void write_output(const std::string& path, const std::string& content) {
  if (path == "-") {
    std::cout << content;
    std::cout.flush();
    return;
  }
  write_file_atomically(path, content);
}

}  // namespace warpsim::cli
