#pragma once
// A CTA whose warps' instructions were parsed into memory when it was launched (both trace
// readers make these): per-warp instruction vectors plus the pools their registers and
// addresses point into.
#include <vector>

#include "frontend/kernel_source.h"
#include "frontend/trace/instruction_parser.h"

namespace warpsim {

class BufferedCta : public CtaWork {
 public:
  BufferedCta(Dim3 id, uint32_t warps) : id_(id), warps_(warps) {}
  Dim3 id() const override { return id_; }
  uint32_t num_warps() const override { return static_cast<uint32_t>(warps_.size()); }
  WarpStream& warp(uint32_t index) override { return warps_[index]; }

  void set_id(Dim3 id) { id_ = id; }
  void add(uint32_t warp, const WarpInst& inst) { warps_[warp].insts.push_back(inst); }
  InstructionPools& pools() { return pools_; }
  // Turns the offsets parsed instructions hold into pointers, once the pools stop growing.
  void finish() {
    for (auto& w : warps_)
      for (auto& inst : w.insts) pools_.resolve(inst);
  }

 private:
  struct Stream : WarpStream {
    std::vector<WarpInst> insts;
    size_t next_index = 0;
    const WarpInst* next() override { return next_index < insts.size() ? &insts[next_index++] : nullptr; }
  };
  Dim3 id_;
  std::vector<Stream> warps_;
  InstructionPools pools_;
};

}  // namespace warpsim
