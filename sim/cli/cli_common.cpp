#include "cli/cli_common.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <thread>

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

void check_output_paths(std::initializer_list<OutputOption> outputs) {
  namespace fs = std::filesystem;
  for (const auto& [option, path] : outputs) {
    if (path.empty() || path == "-") continue;
    const fs::path target(path), dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code error;
    const std::string where = std::string(option) + " " + path + ": ";
    if (fs::is_directory(target, error)) throw std::runtime_error(where + "is a directory; expected a file name");
    if (!fs::is_directory(dir, error)) throw std::runtime_error(where + "directory '" + dir.string() + "' does not exist; create it first");
    if (::access(dir.c_str(), W_OK) != 0) throw std::runtime_error(where + "directory '" + dir.string() + "' is not writable");
  }
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

const char* const kHostThreadsHelp =
    "host threads that tick the SMs (default: $WARPSIM_HOST_THREADS, else 1; 0: one per hardware thread, also the most it uses). The results are bit-identical whatever "
    "the count; traces and Accel-Sim traces without clusters use them, launch files (emulated) and runs with views "
    "tick on one (docs/performance.md#host-threads)";

unsigned host_threads(int requested) {
  if (requested == kHostThreadsUnset) {
    const char* env = std::getenv("WARPSIM_HOST_THREADS");
    if (!env || !*env) return 1;
    int value = 0;
    const char* end = env + std::strlen(env);
    const auto [at, error] = std::from_chars(env, end, value);
    if (error != std::errc{} || at != end || value < 0 || value > 256) {
      throw UsageError{std::string("WARPSIM_HOST_THREADS must be a whole number from 0 (one per hardware thread) to 256, got '") + env + "'"};
    }
    requested = value;
  }
  if (requested < 0 || requested > 256) throw UsageError{"--host-threads must be between 0 (one per hardware thread) and 256"};
  const unsigned available = std::max(1u, std::thread::hardware_concurrency());
  if (requested == 0) return available;
  // The SMs of a cycle wait for each other: a thread without a core of its own makes every
  // cycle wait for the OS (three threads on two cores ran ten times slower than one).
  if (static_cast<unsigned>(requested) > available) {
    std::cerr << "warpsim: note: --host-threads " << requested << " is more than this machine's " << available
              << " hardware threads; using " << available << "\n";
    return available;
  }
  return static_cast<unsigned>(requested);
}

void check_sampling(const SamplingOptions& sampling) {
  if (!(sampling.tolerance > 0 && sampling.tolerance < 1)) throw UsageError{"--sample-tolerance must be between 0 and 1 (exclusive)"};
}

}  // namespace warpsim::cli
