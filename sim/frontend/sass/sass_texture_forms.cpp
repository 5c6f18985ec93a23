// SASS texture and surface instructions, lowered to PTX's tex, tld4, suld.b and sust.b
// (texture_ops.cpp), so that sampling, address modes and the coherence check exist once.
//
// Operands as nvdisasm prints them (ptxas's SASS for traces/kernels/textures.cu):
//   TEX.LL Rd2, Rd, Ra, [Rb,] handle, 0x0, dim[, mask]   tex (level given: no mip levels here)
//   TLD.LZ Rd2, Rd, Ra, [Rb,] handle, 0x0, dim[, mask]   tex with integer coordinates (tex1Dfetch)
//   TLD4.c Rd2, Rd, Ra, [Rb,] handle, 0x0, dim           tld4 of component c (R, G, B, A)
//   SULD.D.BA.dim.size [Ra], handle, 0x0                suld.b, x in bytes
//   SUST.D.BA.dim [Ra], Rdata, handle, 0x0              sust.b
// The handle is a uniform register on Hopper (`UR4, 0x0`, the object the kernel's parameter
// holds) and a constant on Ampere (`0x0, 0x58`: bank 0, word 0x58, with .SCR on TEX/TLD/TLD4).
// The results: the components the mask enables (all four without one), in order, the first two
// in Rd and the next register, the others in Rd2 and the next (nvdisasm prints Rd2 first).
// The arguments: the layer of an array texture, the coordinates and TEX.LL's level, in order;
// Hopper puts the layer and coordinates in Ra on and the level in Rb, Ampere the first half
// (rounded up) in Ra on and the rest in Rb on (the listings' register use shows both).
#include <string>
#include <vector>

#include "frontend/sass/sass_lowering.h"

namespace warpsim::sass {

using ptx::EmuInst;
using ptx::EmuOperand;

namespace {

struct Dimension {
  std::string ptx;      // "1d", "2d", "3d", "a1d", "a2d"
  uint32_t coordinates = 0;
  bool layered = false;
};

bool dimension_of(const std::string& word, Dimension& d) {
  if (word == "1D") d = {"1d", 1, false};
  else if (word == "2D") d = {"2d", 2, false};
  else if (word == "3D") d = {"3d", 3, false};
  else if (word == "ARRAY_1D") d = {"a1d", 1, true};
  else if (word == "ARRAY_2D") d = {"a2d", 2, true};
  else return false;
  return true;
}

}  // namespace

bool SassLowering::lower_texture(EmuInst& e) {
  const std::string& b = base();
  const bool texture = b == "TEX" || b == "TLD" || b == "TLD4";
  const bool surface = b == "SULD" || b == "SUST";
  if (!texture && !surface) return false;
  auto is_register = [&](size_t i) { return i < operand_count() && op(i).kind == SassOperand::Kind::kReg && op(i).reg.file == RegFile::kR; };
  auto is_uniform = [&](size_t i) { return i < operand_count() && op(i).kind == SassOperand::Kind::kReg && op(i).reg.file == RegFile::kUR; };
  auto is_immediate = [&](size_t i) { return i < operand_count() && op(i).kind == SassOperand::Kind::kImm; };
  // The object: a uniform register, or bank 0's word `index` (what the kernel's parameter holds).
  // The emulator's objects are device addresses below 4 GiB, which the 32-bit handle holds.
  auto handle_at = [&](size_t i, EmuOperand& o) {
    if (is_uniform(i)) {
      o.reg = reg_id(op(i).reg);
      return i + 2;  // the register, then the immediate after it
    }
    if (is_immediate(i) && is_immediate(i + 1)) {
      o.reg = -1;
      o.bits = constant(0, op(i + 1).value * 4, 4);
      return i + 2;
    }
    fail(opcode() + ": operand " + std::to_string(i + 1) + " must name the " + (texture ? "texture" : "surface") +
         " object (a uniform register, or a constant bank word)");
  };
  // The rest of the instruction's words: its dimension and component mask.
  auto dimension_from = [&](size_t i, Dimension& d) {
    if (i >= operand_count() || op(i).kind != SassOperand::Kind::kWord || !dimension_of(op(i).name, d)) {
      fail(opcode() + ": expected a dimension (1D, 2D, 3D, ARRAY_1D, ARRAY_2D) as operand " + std::to_string(i + 1));
    }
  };
  auto run_of = [&](SassReg first, uint32_t n, std::vector<int32_t>& regs) {
    for (uint32_t k = 0; k < n; ++k) regs.push_back(first.zero() ? -1 : reg_id(SassReg{first.file, first.index + k}));
  };
  EmuOperand object;
  object.kind = EmuOperand::Kind::kAddr;

  if (surface) {
    // Byte-addressed raw access (.D.BA: suld.b/sust.b); the size from .U8/.S8/.U16/.S16/.64/.128
    // (32 bits without one). Out of range: .TRAP stops the kernel, .IGN reads zero and drops the
    // store (.zero), and without either the access is clamped (.clamp).
    if (!has("D") || !has("BA")) fail(opcode() + ": only byte-addressed raw surface accesses (.D.BA: suld.b, sust.b) are supported by the SASS emulator");
    Dimension d;
    bool found = false;
    for (const auto& m : mods()) found = found || dimension_of(m, d);
    if (!found || d.layered) fail(opcode() + ": expected a dimension (.1D, .2D, .3D)");
    std::string type = "b32";
    uint32_t vector = 1;
    if (has("U8") || has("S8")) type = "b8";
    if (has("U16") || has("S16")) type = "b16";
    if (has("64")) vector = 2;
    if (has("128")) vector = 4;
    const std::string mode = has("TRAP") ? "trap" : has("IGN") ? "zero" : "clamp";
    const bool load = b == "SULD";
    const size_t address = load ? 1 : 0;
    if (address >= operand_count() || op(address).kind != SassOperand::Kind::kAddress) fail(opcode() + ": operand " + std::to_string(address + 1) + " must be [Ra]");
    run_of(op(address).reg, d.coordinates, object.regs);
    object.immediates.assign(object.regs.size(), 0);
    handle_at(address + (load ? 1 : 2), object);
    const std::string mnemonic = std::string(load ? "suld" : "sust") + ".b." + d.ptx + "." + (vector > 1 ? "v" + std::to_string(vector) + "." : "") + type + "." + mode;
    EmuOperand data = load ? result(0, vector) : registers(op(1).reg, vector, false);
    if (vector == 1 && !load) data = source(1);
    as_ptx(e, mnemonic, load ? std::vector<EmuOperand>{data, object} : std::vector<EmuOperand>{object, data});
    return true;
  }

  // TEX, TLD, TLD4: two results, then Ra, then Rb when the listing prints one.
  if (!is_register(0) || !is_register(1) || !is_register(2)) fail(opcode() + " takes Rd2, Rd and Ra first");
  const bool fetch = b == "TLD";  // integer coordinates
  const bool gather = b == "TLD4";
  if (!gather && !has("LL") && !has("LZ")) fail(opcode() + ": only TEX/TLD with .LL or .LZ (no mip levels) are supported by the SASS emulator");
  const SassReg ra = op(2).reg;
  SassReg rb{RegFile::kR, 255};
  size_t next = 3;
  if (is_register(3)) rb = op(3).reg, next = 4;
  next = handle_at(next, object);
  Dimension d;
  dimension_from(next, d);
  uint32_t mask = 0xf;
  if (is_immediate(next + 1)) mask = static_cast<uint32_t>(op(next + 1).value) & 0xf;
  // The arguments and where each lives.
  const uint32_t coordinates = d.coordinates + (d.layered ? 1 : 0);
  const uint32_t arguments = coordinates + (has("LL") ? 1 : 0);
  const uint32_t in_ra = compute_capability() >= 90 ? coordinates : (arguments + 1) / 2;
  std::vector<int32_t> args;
  run_of(ra, in_ra, args);
  run_of(rb, arguments - in_ra, args);
  object.regs.assign(args.begin(), args.begin() + coordinates);  // the level is not read: level 0
  object.immediates.assign(object.regs.size(), 0);
  // The results: four registers as tex writes them, the disabled components to no register.
  EmuOperand results;
  results.kind = EmuOperand::Kind::kVector;
  const SassReg rd = op(1).reg, rd2 = op(0).reg;
  uint32_t k = 0;
  for (uint32_t c = 0; c < 4; ++c) {
    if (!(mask >> c & 1)) {
      results.regs.push_back(-1);
    } else {
      const SassReg base_reg = k < 2 ? rd : rd2;
      results.regs.push_back(base_reg.zero() ? -1 : reg_id(SassReg{RegFile::kR, base_reg.index + k % 2}));
      ++k;
    }
    results.immediates.push_back(0);
  }
  std::string component;
  if (gather) {
    for (const char* c : {"R", "G", "B", "A"})
      if (has(c)) component = std::string(1, static_cast<char>(c[0] - 'A' + 'a')) + ".";
    if (component.empty()) fail(opcode() + ": TLD4 names no component (.R, .G, .B, .A)");
  }
  // The result type is the texture's own (texture_ops.cpp reads it from the object): f32 here
  // only names the form.
  const std::string mnemonic = std::string(gather ? "tld4." : "tex.") + component + d.ptx + ".v4.f32." + (fetch ? "s32" : "f32");
  as_ptx(e, mnemonic, {results, object});
  return true;
}

}  // namespace warpsim::sass
