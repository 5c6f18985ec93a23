#pragma once
#include <boost/program_options.hpp>
#include <initializer_list>
#include <string>
#include <vector>

#include "gpu/cta_sampler.h"

namespace warpsim::cli {

// Each subcommand takes its own arguments (after the subcommand name) and returns an exit code.
int run_command(const std::vector<std::string>& args);
int arch_command(const std::vector<std::string>& args);
int bench_command(const std::vector<std::string>& args);
int calibrate_command(const std::vector<std::string>& args);
int convert_command(const std::vector<std::string>& args);
int trace_command(const std::vector<std::string>& args);
int compare_command(const std::vector<std::string>& args);
int validate_command(const std::vector<std::string>& args);
int sweep_command(const std::vector<std::string>& args);

// Thrown for bad command lines; main prints it with a hint and exits 2.
struct UsageError {
  std::string message;
};

// Parses a subcommand's arguments into the variables bound in `opts`. Returns false after
// printing the help if --help was given (the caller then exits 0).
bool parse_arguments(const std::vector<std::string>& args, const boost::program_options::options_description& opts,
                     const boost::program_options::positional_options_description& positional);

bool stderr_is_terminal();
bool stdout_is_terminal();
// Writes `content` to `path` atomically ("-" means stdout).
void write_output(const std::string& path, const std::string& content);
// As write_output, gzip-compressed when `path` ends in ".gz" (trace files).
void write_output_maybe_gzip(const std::string& path, const std::string& content);
// Before any work: throws std::runtime_error (exit 4, I/O, as a failed write) naming the option
// when an output file could not be written where it is asked for (its directory missing or not
// writable, or a directory in its place), so that a long run does not fail at its end, its
// results lost. Empty paths and "-" (stdout) pass.
struct OutputOption {
  const char* option;  // "--json"
  const std::string& path;
};
void check_output_paths(std::initializer_list<OutputOption> outputs);
// --sample-tolerance's range (run and compare); throws UsageError.
void check_sampling(const SamplingOptions& sampling);
// --host-threads N (run, compare, bench): the count to use, 0 meaning every hardware thread, at
// most the machine's hardware threads; without the option (kHostThreadsUnset), the environment's
// WARPSIM_HOST_THREADS, else 1. Throws UsageError outside 0-256.
inline constexpr int kHostThreadsUnset = -1000;
unsigned host_threads(int requested);
// Its help text, the same for each command.
extern const char* const kHostThreadsHelp;

extern const char* const kVersion;

}  // namespace warpsim::cli
