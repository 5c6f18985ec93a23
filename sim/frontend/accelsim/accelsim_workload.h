#pragma once
// Replays Accel-Sim SASS traces: a kernelslist.g command list (kernel trace files and memcpy
// lines) or a single kernel-N.traceg, plain or .xz, from tracer versions 3 to 5, in all three
// address encodings. Like the warpsim trace reader it parses one thread block at a time, when the
// CTA scheduler launches it. docs/accelsim.md describes the format and what is approximated.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/kernel_source.h"

namespace warpsim {

class AccelSimState;

class AccelSimWorkload : public Workload {
 public:
  // `path` is a kernelslist.g or a single .traceg[.xz]. Throws InputError.
  explicit AccelSimWorkload(const std::string& path);
  ~AccelSimWorkload() override;
  std::unique_ptr<KernelSource> next_kernel() override;

  // SASS opcodes (with modifiers) that are not in the table, with how often they appeared; they
  // were timed as kDefaultSassMnemonic.
  const std::map<std::string, uint64_t>& unknown_opcodes() const;
  // The SASS opcode an instruction came from (for `warpsim convert`).
  const std::string& sass_opcode(const OpInfo* op) const;
  uint64_t memcpy_commands() const;
  uint64_t memcpy_bytes() const;

  // True if `path` names Accel-Sim input (kernelslist.g, *.g, *.traceg, *.traceg.xz).
  static bool accepts(const std::string& path);

 private:
  std::shared_ptr<AccelSimState> state_;
};

}  // namespace warpsim
