#pragma once
// Writes warpsim trace format v1. Used by tools that generate traces and by converters; what it
// writes reads back into the same instructions (tests check the round trip).
#include <functional>
#include <ostream>
#include <string>

#include "frontend/kernel_source.h"

namespace warpsim {

class TraceWriter {
 public:
  explicit TraceWriter(std::ostream& out);  // writes the version header
  // A writer of lines to be placed inside a trace (one warp's instructions), without the header.
  struct NoHeader {};
  static constexpr NoHeader kNoHeader{};
  TraceWriter(std::ostream& out, NoHeader) : out_(out) {}
  void comment(const std::string& text);    // "# text", one line per line of text
  void begin_kernel(const KernelInfo& info);
  void begin_cta(const Dim3& id);
  // A CTA whose launch a running CTA cancelled (clusterlaunchcontrol.try_cancel): it never ran.
  void cancelled_cta(const Dim3& id);
  void begin_warp(uint32_t index);
  // `name_of` turns a register id into its name ("%f1"). The mask is written only when it
  // differs from `full_mask`.
  // `comment`, if given, follows the instruction as "# comment".
  void instruction(const WarpInst& inst, uint32_t full_mask, const std::function<std::string(RegId)>& name_of,
                   const std::string& comment = "");
  // Every kernel, CTA and warp of `workload`, in launch order. `comment_of` (optional) gives each
  // instruction's trailing comment; `check` (optional) sees each kernel before its CTAs run, to
  // refuse one the GPU could not launch (as `warpsim run` does).
  void workload(Workload& workload, const std::function<std::string(RegId)>& name_of,
                const std::function<std::string(const WarpInst&)>& comment_of = nullptr,
                const std::function<void(const KernelInfo&)>& check = nullptr);
  // A free-form instruction line (mnemonic and operands as PTX text, plus annotations).
  void raw_instruction(uint32_t mask, uint32_t full_mask, const std::string& text);

 private:
  std::ostream& out_;
};

}  // namespace warpsim
