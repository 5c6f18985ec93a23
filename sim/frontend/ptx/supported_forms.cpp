#include "frontend/ptx/supported_forms.h"

#include "frontend/ptx/inst_decode.h"
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>

namespace warpsim::ptx {
namespace {

// mma.sync in the forms mma_sync_form.h places, D, A, B and C each a braced list of as many
// registers as the form's fragment takes (PTX ISA, mma's fragments); mma.sp adds the metadata
// register and the sparsity selector.
std::string mma_form(const Instruction& in, const EmuInst& e) {
  MmaSyncForm form;
  if (std::string why = decode_mma_sync(in.opcode, e.mods, form); !why.empty()) return why;
  const uint32_t want[4] = {form.d_registers(), form.a_registers(), form.b_registers(), form.c_registers()};
  const char* names[4] = {"D", "A", "B", "C"};
  const size_t count = form.sparse ? 6 : 4;
  if (in.operands.size() != count) {
    return "'" + in.opcode + "' takes D, A, B, C" + (form.sparse ? ", metadata, sparsity selector" : "") + "; found " +
           std::to_string(in.operands.size()) + " operands";
  }
  if (form.sparse) {
    // ptxas: the metadata is a register, the selector a constant in 0 .. 4 / contributing lanes - 1.
    const uint32_t top = 4 / form.metadata_lanes() - 1;
    const Operand &meta = in.operands[4], &sel = in.operands[5];
    if (meta.kind != Operand::Kind::kRegister) return "'" + in.opcode + "': the metadata (operand 5) is a 32-bit register";
    if (sel.kind != Operand::Kind::kImmediate || sel.value < 0 || sel.value > static_cast<int64_t>(top)) {
      return "'" + in.opcode + "': the sparsity selector (operand 6) is a constant from 0 to " + std::to_string(top) + " for this shape (" +
             std::to_string(form.metadata_lanes()) + " of each group of four lanes hold metadata)";
    }
  }
  for (size_t i = 0; i < 4; ++i) {
    const Operand& o = in.operands[i];
    bool registers = o.kind == Operand::Kind::kVector && o.items.size() == want[i];
    for (const auto& item : o.items) registers = registers && item.kind == Operand::Kind::kRegister;
    if (!registers) {
      return "'" + in.opcode + "': " + names[i] + " is a braced list of " + std::to_string(want[i]) + (want[i] == 1 ? " register" : " registers") +
             " (PTX ISA, mma fragments)";
    }
  }
  return "";
}

// Dense m64nNkK from f16 or bf16 (k16), tf32 (k8), e4m3/e5m2 (k32) inputs into f32, or f16
// (f16 and 8-bit float inputs), or s8/u8 (k32) into s32 with or without .satfinite; A from a
// descriptor or registers (16- and 8-bit types); 16-bit operands K- or MN-major (wgmma.cpp).
// Integer forms take no imm-scale or imm-trans operands; only 16-bit forms take imm-trans.
std::string wgmma_form(const Instruction& in, const EmuInst& e) {
  if (e.mods.empty() || e.mods[0] != "mma_async") return "";
  auto refuse = [&](const std::string& why) {
    return "the emulator runs wgmma.mma_async.sync.aligned.m64nNkK with f16/bf16 (k16), tf32 (k8) or e4m3/e5m2 (k32) inputs into "
           "f32 (f16 and e4m3/e5m2 also into f16), and s8/u8 (k32) into s32, dense; '" + in.opcode + "': " + why;
  };
  std::string shape, d, a, b;
  for (size_t i = 0; i + 3 < e.mods.size(); ++i)
    if (e.mods[i].rfind("m64n", 0) == 0) shape = e.mods[i], d = e.mods[i + 1], a = e.mods[i + 2], b = e.mods[i + 3];
  if (shape.empty()) return refuse("no m64nNkK shape");
  if (e.has("sp")) return refuse("sparse wgmma is not modelled");
  const size_t kpos = shape.find('k');
  const uint32_t n = kpos == std::string::npos ? 0 : static_cast<uint32_t>(std::strtoul(shape.c_str() + 4, nullptr, 10));
  const uint32_t k = kpos == std::string::npos ? 0 : static_cast<uint32_t>(std::strtoul(shape.c_str() + kpos + 1, nullptr, 10));
  if (n == 0 || n > 256 || n % 8 != 0) return refuse("N must be a multiple of 8 up to 256");
  const bool half = (a == "f16" || a == "bf16") && a == b, tf32 = a == "tf32" && b == "tf32";
  const bool fp8 = (a == "e4m3" || a == "e5m2") && (b == "e4m3" || b == "e5m2");
  const bool integer = (a == "s8" || a == "u8") && (b == "s8" || b == "u8");
  if (!(half && k == 16) && !(tf32 && k == 8) && !((fp8 || integer) && k == 32)) return refuse("input types and K do not match a supported form");
  const bool f16_d = d == "f16" && (a == "f16" || fp8);
  if (!(integer ? d == "s32" : d == "f32" || f16_d)) return refuse("accumulator type " + d + " does not go with " + a + " inputs");
  if (e.has("satfinite") && !integer) return refuse(".satfinite is the integer forms'");
  const auto& ops = in.operands;
  const bool a_regs = ops.size() > 1 && ops[1].kind == Operand::Kind::kVector;
  const size_t expected = integer ? 4 : half ? (a_regs ? 7 : 8) : 6;
  const size_t accumulators = f16_d ? n / 4 : n / 2;
  if (ops.size() != expected || ops[0].kind != Operand::Kind::kVector || ops[0].items.size() != accumulators) {
    return refuse("expected {" + std::to_string(accumulators) + " accumulators}, A, B, scale-d" +
                  (integer ? "" : ", imm-scale-a, imm-scale-b") + (half ? ", imm-trans" : "") + " operands");
  }
  if (a_regs && (tf32 || ops[1].items.size() != 4)) return refuse("A in registers needs 16- or 8-bit inputs in 4 registers");
  for (size_t i = 6; i < ops.size(); ++i)
    if (ops[i].kind != Operand::Kind::kImmediate || (ops[i].value != 0 && ops[i].value != 1)) return refuse("imm-trans-a/b must be 0 or 1");
  return "";
}

// One CTA (cta_group::1): mma of kind f16, tf32, f8f6f4 or i8, or block-scaled of kind mxf8f6f4, mxf4
// or mxf4nvf4, from shared-memory descriptors into tensor memory (tensor_memory.cpp,
// tcgen05_block_scale.cpp); cp of shape 128x256b, 128x128b, 64x128b.warpx2 or 32x128b.warpx4
// without decompression; commit to an mbarrier, or multicast to a cluster's mbarriers; ld/st of
// every shape (tmem_fragment.h) and .xN, packing 16-bit halves or not, without a reduction.
// A CTA pair (cta_group::2): alloc, dealloc, unscaled mma and commit.
// clusterlaunchcontrol (PTX ISA 8.6, sm_100): try_cancel's one form with its optional
// qualifiers, and query_cancel's three, each on a .b128 answer register (launch_control.cpp).
std::string launch_control_form(const Instruction& in, const EmuInst& e) {
  using Kind = EmuOperand::Kind;
  const auto& ops = e.operands;
  const std::string& what = e.mods.empty() ? in.opcode : e.mods[0];
  if (what == "try_cancel") {
    for (const auto& m : e.mods) {
      if (m != "try_cancel" && m != "async" && m != "shared::cta" && m != "mbarrier::complete_tx::bytes" && m != "multicast::cluster::all" && m != "b128")
        return "'" + in.opcode + "': unknown qualifier ." + m + "; expected clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128";
    }
    if (!e.has("async") || !e.has("mbarrier::complete_tx::bytes") || !e.has("b128")) {
      return "'" + in.opcode + "': expected clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128";
    }
    if (ops.size() != 2 || ops[0].kind != Kind::kAddr || ops[1].kind != Kind::kAddr) return "'" + in.opcode + "': expected [addr], [mbar]";
    return "";
  }
  const std::string form = e.mods.size() > 1 ? e.mods[1] : "";
  if (what != "query_cancel" || e.types.empty() || e.types.back() != "b128" ||
      (form != "is_canceled" && form != "get_first_ctaid" && form != "get_first_ctaid::x" && form != "get_first_ctaid::y" && form != "get_first_ctaid::z")) {
    return "'" + in.opcode + "': expected clusterlaunchcontrol.try_cancel or clusterlaunchcontrol.query_cancel.is_canceled.pred.b128, "
           ".get_first_ctaid.v4.b32.b128 or .get_first_ctaid::{x,y,z}.b32.b128";
  }
  if (ops.size() != 2 || !ops[1].wide) return "'" + in.opcode + "': the answer (second operand) must be a .b128 register";
  const bool four = form == "get_first_ctaid";
  if (four != e.has("v4") || (four ? ops[0].kind != Kind::kVector || ops[0].regs.size() != 4 : ops[0].kind != Kind::kReg)) {
    return "'" + in.opcode + "': expected " + (four ? "{x, y, z, _} with .v4" : "one destination register");
  }
  return "";
}

std::string tcgen05_form(const Instruction& in, const EmuInst& e) {
  auto refuse = [&](const std::string& why) { return "the emulator cannot run '" + in.opcode + "': " + why; };
  const std::string& what = e.mods.at(0);
  if (e.has("cta_group::2") && (what == "cp" || what == "shift" || e.has("block_scale"))) {
    return refuse("over a CTA pair (cta_group::2), tcgen05.cp, tcgen05.shift and block-scaled MMAs are not modelled");
  }
  if (what == "commit") {
    const bool multicast = e.has("multicast::cluster");
    const auto& ops = in.operands;
    if (ops.size() != (multicast ? 2u : 1u) || ops[0].kind != Operand::Kind::kAddress || (multicast && ops[1].kind == Operand::Kind::kAddress)) {
      return refuse(multicast ? "expected [mbar], ctaMask" : "expected [mbar]");
    }
  }
  if (what == "mma") {
    const bool scaled_kind = e.has("kind::mxf8f6f4") || e.has("kind::mxf4") || e.has("kind::mxf4nvf4");
    if (!e.has("kind::f16") && !e.has("kind::tf32") && !e.has("kind::f8f6f4") && !e.has("kind::i8") && !scaled_kind) {
      return refuse("kinds other than f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4 and mxf4nvf4 are not modelled");
    }
    if (e.has("ws") || e.has("sp")) return refuse("weight-stationary and sparse MMAs are not modelled");
    if (scaled_kind != e.has("block_scale")) return refuse("kinds mxf8f6f4, mxf4 and mxf4nvf4 (and only they) take .block_scale");
    if (e.has("kind::mxf4nvf4") && !e.has("scale_vec::2X") && !e.has("scale_vec::4X") && !e.has("block16") && !e.has("block32")) {
      return refuse("kind::mxf4nvf4 names its scale vector: .scale_vec::2X or .scale_vec::4X (.block32 or .block16)");
    }
    if ((e.has("kind::mxf8f6f4") && (e.has("scale_vec::2X") || e.has("scale_vec::4X") || e.has("block16"))) ||
        (e.has("kind::mxf4") && (e.has("scale_vec::1X") || e.has("scale_vec::4X") || e.has("block16"))) ||
        (e.has("kind::mxf4nvf4") && e.has("scale_vec::1X"))) {
      return refuse("this scale vector is not one of the kind's (mxf8f6f4: 1X; mxf4: 2X; mxf4nvf4: 2X or 4X)");
    }
    const size_t expected = scaled_kind ? 7 : 5;
    const size_t enable_at = expected - 1;
    if (in.operands.size() != expected || in.operands[0].kind != Operand::Kind::kAddress || in.operands[2].kind == Operand::Kind::kAddress ||
        in.operands[enable_at].kind == Operand::Kind::kAddress ||
        (scaled_kind && (in.operands[4].kind != Operand::Kind::kAddress || in.operands[5].kind != Operand::Kind::kAddress))) {
      return refuse(scaled_kind ? "expected [d-tmem], a-desc or [a-tmem], b-desc, idesc, [scale-a-tmem], [scale-b-tmem], enable-input-d"
                                : "expected [d-tmem], a-desc or [a-tmem], b-desc, idesc, enable-input-d (no lane mask)");
    }
  } else if (what == "cp") {
    if (e.has("4x256b")) return refuse("the 4x256b shape is not modelled (128x256b, 128x128b, 64x128b.warpx2 and 32x128b.warpx4 are)");
    if (e.has("b8x16")) return refuse("decompressing FP4/FP6 into 8-bit containers (.b8x16) is not modelled");
    const bool shape = e.has("128x256b") || e.has("128x128b") || (e.has("64x128b") && (e.has("warpx2::02_13") || e.has("warpx2::01_23"))) ||
                       (e.has("32x128b") && e.has("warpx4"));
    if (!shape) return refuse("expected a shape: .128x256b, .128x128b, .64x128b.warpx2::02_13/01_23 or .32x128b.warpx4");
    if (in.operands.size() != 2 || in.operands[0].kind != Operand::Kind::kAddress || in.operands[1].kind == Operand::Kind::kAddress) {
      return refuse("expected [taddr], s-desc");
    }
  } else if (what == "ld" || what == "st") {
    const bool load = what == "ld";
    if (e.has("red")) return refuse("loads with a reduction (tcgen05.ld.red) are not modelled");
    TmemShape shape = TmemShape::kNone;
    uint32_t num = 0;
    for (const auto& m : e.mods) {
      if (tmem_shape_named(m) != TmemShape::kNone) shape = tmem_shape_named(m);
      if (m.size() > 1 && m.size() < 6 && m[0] == 'x' && std::isdigit(static_cast<unsigned char>(m[1]))) num = static_cast<uint32_t>(std::atoi(m.c_str() + 1));
    }
    if (shape == TmemShape::kNone) return refuse("expected a shape: .32x32b, .16x64b, .16x128b, .16x256b or .16x32bx2");
    if (num == 0 || num > 128 || (num & (num - 1))) return refuse("expected .x1, .x2, .x4, ... or .x128");
    if (e.has(load ? "unpack::16b" : "pack::16b")) return refuse(load ? "loads pack (.pack::16b)" : "stores unpack (.unpack::16b)");
    const bool split = shape == TmemShape::k16x32bx2;
    const size_t expected = split ? 3 : 2, regs_at = load ? 0 : expected - 1, addr_at = load ? 1 : 0;
    const uint32_t regs = tmem_registers(shape, num);
    const auto& ops = in.operands;
    if (ops.size() != expected || ops[addr_at].kind != Operand::Kind::kAddress || ops[regs_at].kind != Operand::Kind::kVector ||
        ops[regs_at].items.size() != regs || (split && ops[load ? 2 : 1].kind != Operand::Kind::kImmediate)) {
      const std::string vec = "{" + std::to_string(regs) + " registers}";
      return refuse("expected " + (load ? vec + ", [taddr]" + (split ? ", immHalfSplitoff" : "")
                                        : std::string("[taddr], ") + (split ? "immHalfSplitoff, " : "") + vec));
    }
  } else if (what == "shift") {
    return refuse("tcgen05." + what + " is not modelled");
  }
  return "";
}

// cvt between two of the scalar types, or the packed forms of the PTX ISA: two f32 into
// f16x2/bf16x2 or two FP8/FP6/FP4 values, f16x2/bf16x2 into two FP8/FP6/FP4 values, and two of
// those back into f16x2/bf16x2, and the UE8M0 scale-factor forms (two f32 or a bf16x2 into two
// UE8M0 exponents with .rz or .rp; two of them back into bf16x2 with .rn) (conversions.cpp).
// Stochastic rounding (.rs) packs two f32 into f16x2 or bf16x2 with random bits (d, a, b, rbits);
// its four-value FP8/FP6/FP4 forms, whose random-bit layout the PTX ISA gives only in figures, and
// the scaled forms are refused.
std::string cvt_form(const Instruction& in, const EmuInst& e) {
  auto refuse = [&](const std::string& why) { return "the emulator cannot run '" + in.opcode + "': " + why; };
  if (e.has("pack")) {  // cvt.pack.sat.convertType.s32 d, a, b (16-bit) or .s32.b32 d, a, b, c (narrower)
    const bool wide = e.has("u16") || e.has("s16");
    int narrow = 0;
    for (const char* t : {"u8", "s8", "u4", "s4", "u2", "s2"}) narrow += e.has(t);
    const size_t n = in.operands.size();
    if (!e.has("sat") || !e.has("s32") || int(wide) + narrow != 1 || (wide ? n != 3 || e.has("b32") : n != 4 || !e.has("b32"))) {
      return refuse("expected cvt.pack.sat.{u16,s16}.s32 d, a, b or cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c");
    }
    return "";
  }
  if (e.has("rs")) {
    const bool packs_f32 = e.types.size() == 2 && (e.types[0] == "f16x2" || e.types[0] == "bf16x2") && e.types[1] == "f32";
    if (packs_f32) return in.operands.size() == 4 ? "" : refuse("expected cvt.rs d, a, b, rbits");
    return refuse("stochastic rounding (.rs) is modelled for f32 into f16x2 and bf16x2 only (the PTX ISA gives the FP8/FP6/FP4 forms' random-bit layout only as figures)");
  }
  if (e.types.size() != 2) return refuse("expected a destination and a source type among those the emulator converts");
  const std::string &to = e.types[0], &from = e.types[1];
  auto half2 = [](const std::string& t) { return t == "f16x2" || t == "bf16x2"; };
  auto small2 = [](const std::string& t) { return t == "e4m3x2" || t == "e5m2x2" || t == "e2m3x2" || t == "e3m2x2" || t == "e2m1x2"; };
  const size_t n = in.operands.size();
  if (to == "s16x2" || to == "u16x2" || from == "s16x2" || from == "u16x2") return refuse("packed 16-bit integers are not converted");
  if (to == "ue8m0x2" || from == "ue8m0x2") {
    const bool rz_or_rp = (e.has("rz") || e.has("rp")) && !e.has("relu");
    if (to == "ue8m0x2" && from == "f32") return rz_or_rp && n == 3 ? "" : refuse("expected cvt.rz|rp{.satfinite}.ue8m0x2.f32 d, a, b");
    if (to == "ue8m0x2" && from == "bf16x2") return rz_or_rp && n == 2 ? "" : refuse("expected cvt.rz|rp{.satfinite}.ue8m0x2.bf16x2 d, a");
    if (to == "bf16x2" && from == "ue8m0x2") {
      return e.has("rn") && !e.has("satfinite") && !e.has("relu") && n == 2 ? "" : refuse("expected cvt.rn.bf16x2.ue8m0x2 d, a");
    }
    return refuse("UE8M0 converts from f32 or bf16x2 and into bf16x2 only");
  }
  if ((half2(to) || small2(to)) && from == "f32") return n == 3 ? "" : refuse("two f32 sources are packed: cvt d, a, b");
  if (small2(to) && half2(from)) return n == 2 ? "" : refuse("expected d, a");
  if (half2(to) && small2(from)) return n == 2 ? "" : refuse("expected d, a");
  if (half2(to) || half2(from) || small2(to) || small2(from)) return refuse("this pair of packed types is not a cvt form the emulator runs");
  return "";
}

// atom and red (PTX ISA, "atom", "red"): .b128 is cas or exch on 128-bit registers; the vector
// forms (sm_90) add, min or max each element of a .v2/.v4 f32 (add only), .v2/.v4/.v8 f16 or
// bf16, or .v2/.v4 f16x2 or bf16x2 in global memory, with a brace list of as many registers
// for the operand and the result.
std::string atomic_form(const Instruction& in, const EmuInst& e) {
  const std::string type = e.types.empty() ? "" : e.types.back();
  const bool returns = e.base == "atom";
  const size_t first_value = returns ? 2 : 1;
  const size_t vector = e.has("v2") ? 2 : e.has("v4") ? 4 : e.has("v8") ? 8 : 1;
  const bool cas = e.has("cas"), add = e.has("add"), min_max = e.has("min") || e.has("max");
  if (type == "b128") {
    if (!returns || (!cas && !e.has("exch"))) return "'" + in.opcode + "': .b128 atomics are atom.cas and atom.exch";
    for (size_t i = 0; i < e.operands.size(); ++i)
      if (i != 1 && i < first_value + (cas ? 2 : 1) && !e.operands[i].wide)
        return "'" + in.opcode + "': operand " + std::to_string(i + 1) + " must be a .b128 register";
    return "";
  }
  if (vector == 1) {
    for (const EmuOperand& o : e.operands)
      if (o.kind == EmuOperand::Kind::kVector) return "'" + in.opcode + "': a brace list needs a vector form (.v2, .v4, .v8)";
    return "";
  }
  const bool half = type == "f16" || type == "bf16", packed = type == "f16x2" || type == "bf16x2";
  if (!(type == "f32" && add && vector <= 4) && !(half && (add || min_max)) && !(packed && vector <= 4 && (add || min_max))) {
    return "'" + in.opcode + "': vector atomics are add of .v2/.v4 .f32, and add, min or max of .v2/.v4/.v8 .f16 or .bf16 or .v2/.v4 .f16x2 or .bf16x2";
  }
  if (e.has("shared") || e.has("shared::cta") || e.has("shared::cluster")) return "'" + in.opcode + "': vector atomics work on global memory only";
  for (size_t i = 0; i < e.operands.size(); ++i) {
    if (i == (returns ? 1 : 0)) continue;
    const EmuOperand& o = e.operands[i];
    if (o.kind != EmuOperand::Kind::kVector || o.wide || o.regs.size() != vector)
      return "'" + in.opcode + "': operand " + std::to_string(i + 1) + " must be a brace list of " + std::to_string(vector) + " registers";
    for (int32_t r : o.regs)
      if (r < 0 && i != 0) return "'" + in.opcode + "': operand " + std::to_string(i + 1) + " must list registers";
  }
  return "";
}

// Texture and surface instructions on texture and surface objects (unified mode: the handle in
// a 64-bit register): tex[.level|.grad].{1d,2d,3d,a1d,a2d}.v4.{f32,s32,u32}.{s32,f32},
// tld4.{r,g,b,a}.2d.v4.{f32,s32,u32}.f32, txq.{width,height,depth,array_size,normalized_coords}.b32 and
// suld.b/sust.b.{1d,2d,3d}[.v2,.v4].{b8,b16,b32,b64}.{trap,clamp,zero} (texture_ops.cpp).
std::string texture_form(const Instruction& in, const EmuInst& e) {
  auto refuse = [&](const std::string& why) { return "the emulator cannot run '" + in.opcode + "': " + why; };
  const auto& ops = e.operands;
  const size_t at = e.base == "sust" ? 0 : 1;
  if (ops.size() <= at || ops[at].kind != EmuOperand::Kind::kAddr || ops[at].reg < 0 || ops[at].symbol_space != MemSpace::kNone) {
    return refuse("operand " + std::to_string(at + 1) + " must be [handle, {coordinates}] with the object's handle in a 64-bit register "
                  "(texture references, .texref, are gone since CUDA 12)");
  }
  if (e.base == "txq") {
    const std::string q = e.mods.empty() ? "" : e.mods[0];
    if (q != "width" && q != "height" && q != "depth" && q != "array_size" && q != "normalized_coords") {
      return refuse("txq queries width, height, depth, array_size and normalized_coords");
    }
    if (ops.size() != 2 || ops[0].kind != EmuOperand::Kind::kReg) return refuse("expected txq.query.b32 d, [handle]");
    return "";
  }
  uint32_t rank = 0;
  bool layered = false;
  for (const auto& m : e.mods) {
    if (m == "1d" || m == "2d" || m == "3d") rank = static_cast<uint32_t>(m[0] - '0');
    if (m == "a1d" || m == "a2d") rank = static_cast<uint32_t>(m[1] - '0'), layered = true;
    if (m == "cube" || m == "acube" || m == "2dms" || m == "a2dms") return refuse("cube-map and multisample textures are not modelled");
  }
  if (rank == 0) return refuse("expected a geometry: .1d, .2d, .3d, .a1d or .a2d");
  if (layered && e.base != "tex") return refuse("layered surfaces and tld4 on layered textures are not modelled");
  // Coordinates: one per dimension, and for 3D a vector of four whose last is ignored; a layered
  // texture's index first, then its coordinates, a2d's padded to four (PTX ISA, tex).
  const size_t coords = layered ? (rank == 1 ? 2 : 4) : rank == 3 ? 4 : rank;
  if (ops[at].regs.size() != coords) return refuse("expected " + std::to_string(coords) + " coordinates in braces");
  if (e.base == "suld" || e.base == "sust") {
    if (!e.has("b")) return refuse("formatted surface accesses (.p) are not modelled; suld.b and sust.b are");
    if (!e.has("trap") && !e.has("clamp") && !e.has("zero")) return refuse("expected a boundary mode: .trap, .clamp or .zero");
    const std::string type = e.types.empty() ? "" : e.types.back();
    if (type != "b8" && type != "b16" && type != "b32" && type != "b64") return refuse("expected .b8, .b16, .b32 or .b64");
    const EmuOperand& data = ops.at(e.base == "suld" ? 0 : 1);
    const size_t n = e.has("v4") ? 4 : e.has("v2") ? 2 : 1;
    const size_t given = data.kind == EmuOperand::Kind::kVector ? data.regs.size() : 1;
    if (ops.size() != 2 || given != n || (e.base == "suld" && data.kind != EmuOperand::Kind::kVector && data.kind != EmuOperand::Kind::kReg)) {
      return refuse("expected " + std::to_string(n) + " data register(s)");
    }
    return "";
  }
  const bool gather = e.base == "tld4";
  if (gather && (rank != 2 || e.mods.empty() || e.mods[0].size() != 1 || std::string("rgba").find(e.mods[0]) == std::string::npos)) {
    return refuse("expected tld4.{r,g,b,a}.2d");
  }
  if (e.types.size() != 2) return refuse("expected a result and a coordinate type");
  const std::string& result = e.types[0], & coord = e.types[1];
  if (!e.has("v4") || (result != "f32" && result != "s32" && result != "u32")) return refuse("results are .v4 of .f32, .s32 or .u32 (.f16 results are not modelled)");
  if (coord != "f32" && (coord != "s32" || gather)) return refuse("coordinates are .f32" + std::string(gather ? "" : " or .s32"));
  const size_t extra = e.has("level") ? 1 : e.has("grad") ? 2 : 0;  // the level of detail, or two gradients: level 0 is all there is
  if (e.has("base") && e.has("level")) return refuse("expected one of .base, .level, .grad");
  if (ops.size() != 2 + extra || ops[0].kind != EmuOperand::Kind::kVector || ops[0].regs.size() != 4) {
    return refuse("expected {four destinations}, [handle, {coordinates}]" + std::string(extra == 1 ? ", lod" : extra == 2 ? ", dPdx, dPdy" : "") +
                  " (coordinate offsets, depth compares and the residency predicate are not modelled)");
  }
  return "";
}

// The fewest operands each instruction's forms take (PTX ISA), and which operand is the
// address of those that access memory; checked first, so the emulator never meets an
// instruction short of the operands it reads.
std::string missing_operands(const Instruction& in, const EmuInst& e) {
  static const std::map<std::string, size_t> kFewest = {
      {"mov", 2}, {"cvta", 2}, {"add", 3}, {"sub", 3}, {"mul", 3}, {"mul24", 3}, {"mad", 4}, {"mad24", 4}, {"fma", 4},
      {"div", 3}, {"rem", 3}, {"min", 3}, {"max", 3}, {"abs", 2}, {"neg", 2}, {"and", 3}, {"or", 3}, {"xor", 3},
      {"not", 2}, {"shl", 3}, {"shr", 3}, {"setp", 3}, {"selp", 4}, {"set", 3}, {"cvt", 2}, {"ld", 2}, {"st", 2},
      {"atom", 3}, {"red", 2}, {"shfl", 4}, {"vote", 2}, {"activemask", 1}, {"sqrt", 2}, {"rsqrt", 2}, {"rcp", 2},
      {"ex2", 2}, {"lg2", 2}, {"sin", 2}, {"cos", 2}, {"popc", 2}, {"clz", 2}, {"brev", 2}, {"bfe", 4}, {"bfi", 5},
      {"prmt", 4}, {"redux", 3}, {"mapa", 3}, {"getctarank", 2}, {"elect", 2}, {"createpolicy", 2}, {"ldmatrix", 2},
      {"stmatrix", 2}, {"clusterlaunchcontrol", 2}, {"bra", 1}, {"nanosleep", 1}, {"mma", 4}, {"setmaxnreg", 1}, {"wmma", 2}, {"copysign", 3}, {"shf", 4},
      {"bfind", 2}, {"tanh", 2}, {"match", 3}, {"isspacep", 2}, {"addc", 3}, {"subc", 3}, {"madc", 4}, {"dp4a", 4}, {"dp2a", 4}, {"sad", 4}, {"fns", 4},
      {"bmsk", 3}, {"szext", 3}, {"lop3", 5}, {"alloca", 2}, {"stacksave", 1}, {"stackrestore", 1}, {"movmatrix", 2}};
  static const std::map<std::string, size_t> kAddressAt = {{"ld", 1}, {"st", 0}, {"atom", 1}, {"red", 0}, {"ldmatrix", 1}, {"stmatrix", 0}};
  const auto fewest = kFewest.find(e.base);
  const size_t n = in.operands.size();
  if (fewest != kFewest.end() && n < fewest->second) {
    return "'" + in.opcode + "' takes at least " + std::to_string(fewest->second) + " operands; found " + std::to_string(n);
  }
  const auto at = kAddressAt.find(e.base);
  if (at != kAddressAt.end() && in.operands[at->second].kind != Operand::Kind::kAddress) {
    return "'" + in.opcode + "': operand " + std::to_string(at->second + 1) + " must be an address in brackets ([reg], [symbol+offset])";
  }
  return "";
}

}  // namespace

std::string unsupported_form(const Instruction& in, const EmuInst& e) {
  const std::string& base = e.base;
  if (std::string why = missing_operands(in, e); !why.empty()) return why;
  if ((base == "ldmatrix" || base == "stmatrix") && in.opcode.find(".m8n8.") == std::string::npos) {
    return "the emulator runs " + base + " .m8n8 with .b16 elements only; not '" + in.opcode + "'";
  }
  if (base == "cp" && in.opcode.rfind("cp.async.", 0) != 0 && in.opcode.rfind("cp.reduce.async.bulk.", 0) != 0) {
    return "the emulator cannot run '" + in.opcode + "' yet";
  }
  if (base == "mbarrier" && in.opcode.find(".shared") == std::string::npos && e.mods.at(0) != "pending_count") {  // it takes no address
    return "the emulator runs mbarrier operations on .shared (or .shared::cta) addresses; not generic ones in '" + in.opcode + "'";
  }
  if (base == "mbarrier" && in.opcode.find(".shared::cluster") != std::string::npos && e.mods.at(0) != "arrive" &&
      e.mods.at(0) != "arrive_drop" && e.mods.at(0) != "expect_tx" && e.mods.at(0) != "complete_tx") {
    return "'" + in.opcode + "': the PTX ISA reaches another CTA's mbarrier (.shared::cluster) with arrive, arrive_drop, expect_tx and complete_tx only";
  }
  if (base == "cvt" && e.has("tf32") && !(e.has("rna") && e.types.size() == 1 && e.types[0] == "f32")) {
    return "the emulator converts to tf32 with cvt.rna.tf32.f32 only; not '" + in.opcode + "'";
  }
  if (base == "cvt" && !e.has("tf32")) {
    if (std::string why = cvt_form(in, e); !why.empty()) return why;
  }
  const std::string type = e.types.empty() ? "" : e.types.back();
  if ((type == "s16x2" || type == "u16x2") && base != "add" && base != "sub" && base != "min" && base != "max" && base != "mov" &&
      base != "ld" && base != "st") {
    return "'" + in.opcode + "': the emulator runs packed 16-bit integers (.s16x2, .u16x2) in add, sub, min and max only";
  }
  if (is_simd_video(base)) {
    for (const auto& o : in.operands)
      if (o.kind != Operand::Kind::kRegister && o.kind != Operand::Kind::kImmediate) return "'" + in.opcode + "': expected registers or immediates";
    if (in.operands.size() != 4) return "the emulator runs " + base + " d, a, b, c with the default byte selections and mask; not '" + in.opcode + "'";
  }
  if (base == "lop3" && in.operands.size() != 5) {
    return "the emulator runs lop3.b32 d, a, b, c, immLut; not the form with a predicate output ('" + in.opcode + "')";
  }
  if ((base == "min" || base == "max") && in.operands.size() > 3 && type != "f32" && type != "f16" && type != "f16x2" && type != "bf16" &&
      type != "bf16x2") {
    return "'" + in.opcode + "': three-source min and max exist for floating-point types only";
  }
  if (base == "alloca" && in.operands.size() > 2) {  // PTX ISA: immAlign a constant power of 2, at most 2^23
    const Operand& a = in.operands[2];
    if (a.kind != Operand::Kind::kImmediate || a.value <= 0 || (a.value & (a.value - 1)) != 0 || a.value > (1 << 23)) {
      return "'" + in.opcode + "': the alignment must be a constant power of 2 up to 2^23";
    }
  }
  if (base == "setmaxnreg") {  // PTX ISA: a constant count from 24 to 256, a multiple of 8
    const Operand& n = in.operands.at(0);
    if (n.kind != Operand::Kind::kImmediate || n.value < 24 || n.value > 256 || n.value % 8 != 0) {
      return "'" + in.opcode + "': the register count must be a constant from 24 to 256, a multiple of 8";
    }
  }
  if (base == "atom" || base == "red") return atomic_form(in, e);
  if (base == "movmatrix") {  // PTX ISA: movmatrix.sync.aligned.m8n8.trans.b16 d, a
    if (in.opcode != "movmatrix.sync.aligned.m8n8.trans.b16") return "expected movmatrix.sync.aligned.m8n8.trans.b16; not '" + in.opcode + "'";
    if (e.operands[0].kind != EmuOperand::Kind::kReg || e.operands[1].kind != EmuOperand::Kind::kReg) return "'" + in.opcode + "': expected registers d, a";
  }
  if ((base == "ld" || base == "st") && type == "b128") {
    if (e.has("v2") || e.has("v4") || e.has("v8")) return "'" + in.opcode + "': .b128 accesses are scalar (no .v2, .v4)";
    if (!e.operands.at(base == "ld" ? 0 : 1).wide) return "'" + in.opcode + "': the data must be a .b128 register";
  }
  if (base == "tex" || base == "tld4" || base == "txq" || base == "suld" || base == "sust") return texture_form(in, e);
  if (base == "mma") return mma_form(in, e);
  if (base == "wgmma") return wgmma_form(in, e);
  if (base == "tcgen05") return tcgen05_form(in, e);
  if (base == "clusterlaunchcontrol") return launch_control_form(in, e);
  return "";
}

}  // namespace warpsim::ptx
