#pragma once
// Streaming reader for warpsim trace format v1 (docs/trace-format.md). It parses one CTA at a
// time, when the CTA scheduler asks for it, so memory is bounded by the CTAs in flight.
#include <memory>
#include <string>

#include "frontend/kernel_source.h"

namespace warpsim {

class TraceReaderState;

class TraceWorkload : public Workload {
 public:
  explicit TraceWorkload(const std::string& path);  // reads the header; throws InputError
  ~TraceWorkload() override;
  std::unique_ptr<KernelSource> next_kernel() override;

 private:
  std::shared_ptr<TraceReaderState> state_;
};

}  // namespace warpsim
