#pragma once
// Error types. InputError is the user's fault (bad YAML, trace or flag) and always carries a
// location; SimulationError is a model failure (deadlock, broken invariant).
#include <stdexcept>
#include <string>

#include "common/source_location.h"

namespace warpsim {

class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, const std::string& message)
      : std::runtime_error(where.str() + ": " + message), where_(std::move(where)), message_(message) {}
  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Process exit codes, documented in `warpsim --help` and docs/cli.md.
enum ExitCode : int {
  kExitOk = 0,
  kExitSimulation = 1,  // the model failed (deadlock watchdog, internal invariant)
  kExitUsage = 2,       // bad command line
  kExitInput = 3,       // bad config, trace or other input file
  kExitIo = 4,          // could not read or write a file
  kExitCheck = 5,       // a launch file's expect: check failed
  kExitFindings = 6,    // the kernel checkers found a bug (--checks error)
  kExitAccuracy = 7,    // warpsim validate: error above --max-mape
};

}  // namespace warpsim
