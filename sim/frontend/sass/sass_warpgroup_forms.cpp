// Hopper's warpgroup MMA as SASS writes it, lowered to the PTX's wgmma (frontend/ptx/wgmma.cpp):
//   HGMMA.64xNxK.D[.AB] Rd, gdesc[URa][.tnspA][.tnspB], Rc[, P][, gsb0]
// is wgmma.mma_async.sync.aligned.m64nNkK.d.ab.ab with D in Rd on (N/2 registers for F32, N/4 for
// F16), A's matrix descriptor in URa:URa+1 and B's in URa+2:URa+3 (ptxas's SASS for
// traces/kernels/wgmma_gemm.cu sets those four before each HGMMA), accumulating when Rc is Rd
// and the predicate P (when given) holds, from zero when Rc is RZ; .tnspA/.tnspB read that
// operand MN-major; gsb0 closes the warp's group of MMAs. AB is F16 unless named (BF16, TF32,
// E4M3, E5M2). WARPGROUP.ARRIVE is wgmma.fence, WARPGROUP.DEPBAR.LE gsb0, n is
// wgmma.wait_group n. An HGMMA into RZ (ptxas closes a group with one when the commit stands
// alone) does no arithmetic.
#include <string>
#include <vector>

#include "frontend/sass/sass_lowering.h"

namespace warpsim::sass {

using ptx::EmuInst;
using ptx::EmuOp;
using ptx::EmuOperand;

bool SassLowering::lower_warpgroup(EmuInst& e) {
  const std::string& b = base();
  if (b == "WARPGROUP") {
    if (has("ARRIVE") && operand_count() == 0) {
      as_ptx(e, "wgmma.fence.sync.aligned", {});
    } else if (has("DEPBAR") && has("LE") && operand_count() == 2 && op(0).name == "gsb0") {
      as_ptx(e, "wgmma.wait_group.sync.aligned", {immediate(control_immediate(1))});
    } else {
      fail(opcode() + ": only WARPGROUP.ARRIVE and WARPGROUP.DEPBAR.LE gsb0, n are supported by the SASS emulator");
    }
    return true;
  }
  if (b != "HGMMA") return false;
  if (mods().size() < 2) fail(opcode() + ": expected HGMMA.64xNxK.type");
  const std::string& shape = mods()[0];
  const size_t x1 = shape.find('x'), x2 = shape.find('x', x1 + 1);
  if (shape.substr(0, x1) != "64" || x2 == std::string::npos) fail(opcode() + ": expected the shape 64xNxK");
  const auto n = static_cast<uint32_t>(std::stoul(shape.substr(x1 + 1, x2 - x1 - 1)));
  const auto k = static_cast<uint32_t>(std::stoul(shape.substr(x2 + 1)));
  const std::string& d_type = mods()[1];
  if (d_type != "F32" && d_type != "F16") fail(opcode() + ": only F32 and F16 accumulators are supported by the SASS emulator");
  std::string ab = "f16";
  if (mods().size() > 2) {
    const std::string& t = mods()[2];
    ab = t == "BF16" ? "bf16" : t == "TF32" ? "tf32" : t == "E4M3" ? "e4m3" : t == "E5M2" ? "e5m2" : "";
    if (ab.empty() || mods().size() > 3) fail(opcode() + ": operand types the SASS emulator does not know (F16, BF16, TF32, E4M3, E5M2)");
  }
  if (operand_count() < 3) fail(opcode() + " takes at least 3 operands");
  const SassOperand& d = op(0);
  if (d.kind != SassOperand::Kind::kReg || d.reg.file != RegFile::kR) fail("operand 1 of " + opcode() + " must be a register");
  if (d.reg.zero()) {
    e.code = EmuOp::kNop;
    return true;
  }
  // gdesc[URa] with its transposes.
  const SassOperand& g = op(1);
  const std::string& text = g.kind == SassOperand::Kind::kWord ? g.name : "";
  const size_t close = text.find(']');
  if (text.rfind("gdesc[", 0) != 0 || close == std::string::npos) fail("operand 2 of " + opcode() + " must be gdesc[URn] (A from registers is not supported by the SASS emulator yet)");
  const SassReg desc = parse_register(text.substr(6, close - 6));
  if (desc.file != RegFile::kUR || desc.zero()) fail("operand 2 of " + opcode() + " must be gdesc[URn]");
  const std::string transposes = text.substr(close + 1);
  if (transposes != "" && transposes != ".tnspA" && transposes != ".tnspB" && transposes != ".tnspA.tnspB") {
    fail("operand 2 of " + opcode() + ": unknown '" + transposes + "'");
  }
  const SassOperand& c = op(2);
  if (c.kind != SassOperand::Kind::kReg || (!c.reg.zero() && c.reg.index != d.reg.index)) fail("operand 3 of " + opcode() + " must be its result register or RZ");
  EmuOperand scale_d = immediate(c.reg.zero() ? 0 : 1);
  size_t next = 3;
  if (next < operand_count() && op(next).kind == SassOperand::Kind::kReg && (op(next).reg.file == RegFile::kUP || op(next).reg.file == RegFile::kP)) {
    if (!c.reg.zero()) scale_d = source(next);
    ++next;
  }
  if (next < operand_count() && op(next).name == "gsb0") ++next;
  if (next != operand_count()) fail(opcode() + ": unexpected operand '" + op(next).text + "'");
  const uint32_t words = d_type == "F32" ? n / 2 : n / 4;
  std::vector<EmuOperand> operands = {registers(d.reg, words, true), registers(desc, 2, false), registers(SassReg{desc.file, desc.index + 2}, 2, false),
                                      scale_d, immediate(1), immediate(1)};
  const bool sixteen = ab == "f16" || ab == "bf16";
  if (sixteen) {
    operands.push_back(immediate(transposes.find("tnspA") != std::string::npos ? 1 : 0));
    operands.push_back(immediate(transposes.find("tnspB") != std::string::npos ? 1 : 0));
  } else if (!transposes.empty()) {
    fail(opcode() + ": only 16-bit operands may be transposed");
  }
  std::string dt = d_type == "F32" ? "f32" : "f16";
  as_ptx(e, "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k" + std::to_string(k) + "." + dt + "." + ab + "." + ab, std::move(operands));
  return true;
}

}  // namespace warpsim::sass
