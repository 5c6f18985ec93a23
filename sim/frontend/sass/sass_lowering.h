#pragma once
// The state of lowering one SASS kernel (lower_sass.h), shared by the files that lower each
// family of instructions: registers numbered densely as they are first named, the constant
// banks, and the instruction being lowered with its parsed operands.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ptx/program.h"
#include "frontend/sass/lower_sass.h"
#include "frontend/sass/sass_operand.h"

namespace warpsim::sass {

// How a source slot reads its operand: a 32-bit word, a 64-bit register pair (or constant), an
// f64 whose 32-bit immediate is the high word, or a predicate.
enum class Slot : uint8_t { kWord, kPair, kDoubleHigh, kPredicate };

class SassLowering {
 public:
  SassLowering(const SassListing& listing, const SassFunction& f, const SassLaunch& launch);
  ptx::Program run();

  // Families (each in its own file): true when the opcode is theirs and `e` is filled.
  bool lower_arithmetic(ptx::EmuInst& e);  // sass_arith_forms.cpp
  bool lower_memory(ptx::EmuInst& e);      // sass_memory_forms.cpp
  bool lower_warp(ptx::EmuInst& e);        // sass_warp_forms.cpp: shuffles, votes, barriers, MMAs
  bool lower_flow(ptx::EmuInst& e);        // sass_flow_forms.cpp
  bool lower_async(ptx::EmuInst& e);       // sass_async_forms.cpp: mbarriers, bulk copies, ELECT
  bool lower_warpgroup(ptx::EmuInst& e);   // sass_warpgroup_forms.cpp: HGMMA, WARPGROUP
  bool lower_texture(ptx::EmuInst& e);     // sass_texture_forms.cpp: TEX, TLD, TLD4, SULD, SUST

  // The instruction being lowered.
  const SassInstruction& inst() const { return *in_; }
  const std::string& opcode() const { return in_->opcode; }
  const std::vector<std::string>& mods() const { return mods_; }  // the opcode's modifiers, after the base
  const std::string& base() const { return base_; }
  bool has(const char* mod) const;
  size_t operand_count() const { return ops_.size(); }
  const SassOperand& op(size_t i) const;
  [[noreturn]] void fail(const std::string& why) const;

  // Operands as the emulator reads them.
  int32_t reg_id(SassReg r);  // dense; -1 for RZ, URZ, PT, UPT
  ptx::EmuOperand source(size_t i, Slot slot = Slot::kWord);
  ptx::EmuOperand result(size_t i, uint32_t words = 1);  // a register, a pair or more, a predicate; kSink for a zero register
  ptx::EmuOperand registers(SassReg first, uint32_t count, bool written);  // a run of consecutive registers as a kVector
  ptx::EmuOperand address(size_t i);  // a memory operand ([...]) with every part of its address
  ptx::EmuOperand immediate(uint64_t bits) const;
  uint64_t control_immediate(size_t i) const;  // LOP3's table, LEA's shift: from the text
  uint64_t constant(uint32_t bank, int64_t offset, uint32_t bytes) const;
  uint32_t constant_base(uint32_t bank) const;  // where bank n starts in the program's constant image
  int32_t hidden(const std::string& name, uint32_t bits);  // a register no SASS names (BAR.RED's result)

  // Gives `e` the semantics of PTX instruction `mnemonic` with `operands` (decode_operation).
  void as_ptx(ptx::EmuInst& e, const std::string& mnemonic, std::vector<ptx::EmuOperand> operands);
  uint32_t compute_capability() const { return launch_.compute_capability; }
  const SassFunction& function() const { return f_; }
  uint32_t target_of(size_t i) const;  // a label operand's instruction index
  bool polls_ampere_mbarrier(const SassOperand& address);  // sass_memory_forms.cpp

 private:
  ptx::EmuInst lower(const SassInstruction& in);
  void finish(ptx::EmuInst& e);
  void build_constant_image();

  const SassListing& listing_;
  const SassFunction& f_;
  const SassLaunch& launch_;
  ptx::Program p_;
  std::map<std::pair<int, uint32_t>, int32_t> ids_;  // (register file, index) -> id
  std::map<std::string, int32_t> hidden_;
  const SassInstruction* in_ = nullptr;
  std::vector<SassOperand> ops_;
  std::string base_;
  std::vector<std::string> mods_;
  int data_immediates_ = 0;  // immediates lowered from the encoding so far (only one lives there)
  std::optional<std::vector<SassOperand>> ampere_mbarriers_;  // polls_ampere_mbarrier's, once gathered
};

}  // namespace warpsim::sass
