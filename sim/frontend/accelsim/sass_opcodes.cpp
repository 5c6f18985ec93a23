// The mapping follows NVIDIA's CUDA Binary Utilities documentation (instruction set reference per
// architecture) for what each opcode does; the pipe assignment then comes from decoding the
// PTX-style mnemonic (isa/op_info.cpp), the same as for warpsim traces.
#include "frontend/accelsim/sass_opcodes.h"

#include <array>
#include <cctype>
#include <string>
#include <vector>

namespace warpsim {
namespace {

std::vector<std::string_view> tokens(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t dot = s.find('.', start);
    std::string_view t = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!t.empty()) out.push_back(t);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

bool has(const std::vector<std::string_view>& t, std::string_view x) {
  for (auto v : t)
    if (v == x) return true;
  return false;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// PTX type for a memory access of `width` bytes per lane.
std::string width_type(uint32_t width) {
  switch (width) {
    case 1: return "u8";
    case 2: return "u16";
    case 8: return "b64";
    case 16: return "v4.b32";
    case 32: return "v8.b32";
    default: return "b32";
  }
}

// "16816" → m16n8k16, "1688" → m16n8k8, "884" → m8n8k4, "8816" → m8n8k16, "16832" → m16n8k32,
// "64x128x16" → m64n128k16. Returns false when the text is not a shape.
bool parse_mma_shape(std::string_view s, unsigned& m, unsigned& n, unsigned& k) {
  if (s.find('x') != std::string_view::npos) {
    size_t a = s.find('x'), b = s.find('x', a + 1);
    if (b == std::string_view::npos) return false;
    auto num = [](std::string_view t, unsigned& v) {
      if (!all_digits(t)) return false;
      v = static_cast<unsigned>(std::stoul(std::string(t)));
      return v > 0;
    };
    return num(s.substr(0, a), m) && num(s.substr(a + 1, b - a - 1), n) && num(s.substr(b + 1), k);
  }
  if (!all_digits(s)) return false;
  if (s.size() >= 4 && s.substr(0, 3) == "168") {
    m = 16, n = 8, k = static_cast<unsigned>(std::stoul(std::string(s.substr(3))));
    return true;
  }
  if (s.size() >= 3 && s.substr(0, 2) == "88") {
    m = 8, n = 8, k = static_cast<unsigned>(std::stoul(std::string(s.substr(2))));
    return true;
  }
  return false;
}

SassMapping tensor(std::string_view base, const std::vector<std::string_view>& t) {
  unsigned m = 16, n = 8, k = 16;
  bool shaped = false;
  for (size_t i = 1; i < t.size() && !shaped; ++i) shaped = parse_mma_shape(t[i], m, n, k);
  std::string prec = "f16";
  if (base == "DMMA") prec = "f64";
  if (base == "IMMA" || base == "IGMMA") prec = (has(t, "S4") || has(t, "U4")) ? "s4" : "s8";
  if (has(t, "BF16")) prec = "bf16";
  if (has(t, "TF32")) prec = "tf32";
  if (has(t, "E4M3") || has(t, "E5M2")) prec = "e4m3";
  if (base == "QGMMA") prec = "e4m3";
  std::string acc = prec == "f64" ? "f64" : (prec == "s8" || prec == "s4") ? "s32" : "f32";
  if (base == "HMMA" && m == 8 && n == 8 && k == 4) {
    // Volta's HMMA.884 is one of the four steps of a PTX mma.m8n8k4 (itself 4 MMAs): one
    // m8n8k4 product per instruction, which wmma's spelling says without the 4x.
    return {"wmma.mma.sync.aligned.row.col.m8n8k4.f32.f32", true};
  }
  // HMMA.SP / IMMA.SP (2:4 sparse A, e.g. HMMA.SP.16832.F32 for mma.sp m16n8k32): the shape is the
  // logical one, of which the tensor cores perform half (OpInfo::sparse).
  const std::string shape = "m" + std::to_string(m) + "n" + std::to_string(n) + "k" + std::to_string(k);
  // A warpgroup MMA is the PTX wgmma it comes from, issued by each of its four warps, which time
  // a quarter of it each (OpInfo::warps_sharing).
  if (base == "HGMMA" || base == "IGMMA" || base == "QGMMA")
    return {std::string(has(t, "SP") ? "wgmma.mma_async.sp" : "wgmma.mma_async") + ".sync.aligned." + shape + "." + acc + "." + prec + "." + prec, true};
  const std::string mma = has(t, "SP") ? "mma.sp.sync.aligned." : "mma.sync.aligned.";
  return {mma + shape + ".row.col." + acc + "." + prec + "." + prec + "." + acc, true};
}

SassMapping memory(std::string_view base, const std::vector<std::string_view>& t, uint32_t width) {
  const std::string type = width_type(width);
  if (base == "LDG" || base == "LD" || base == "TLD" || base == "TEX" || base == "TLD4" || base == "SULD" || base == "LDGMC")
    return {std::string(has(t, "CONSTANT") || (base != "LDG" && base != "LD") ? "ld.global.nc." : "ld.global.") + type, true};
  if (base == "STG" || base == "ST" || base == "SUST") return {"st.global." + type, true};
  if (base == "LDS" || base == "LDSM") return {"ld.shared." + type, true};
  if (base == "STS" || base == "STSM") return {"st.shared." + type, true};
  if (base == "LDL") return {"ld.local." + type, true};
  if (base == "STL") return {"st.local." + type, true};
  if (base == "LDC" || base == "ULDC") return {"ld.const." + type, true};
  if (base == "LDGSTS") return {"cp.async.ca.shared.global." + type, true};
  if (base == "ATOM" || base == "ATOMG" || base == "SUATOM") return {"atom.global.add.u32", true};
  if (base == "ATOMS") return {"atom.shared.add.u32", true};
  if (base == "RED" || base == "REDG" || base == "SURED") return {"red.global.add.u32", true};
  return {"", false};
}

}  // namespace

SassMapping map_sass_opcode(std::string_view opcode, uint32_t mem_width, uint32_t binary_version) {
  (void)binary_version;  // the opcodes used here mean the same from Volta to Blackwell
  const auto t = tokens(opcode);
  if (t.empty()) return {kDefaultSassMnemonic, false};
  const std::string_view base = t[0];
  auto is = [&](std::initializer_list<std::string_view> names) {
    for (auto n : names)
      if (base == n) return true;
    return false;
  };
  if (is({"HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "IGMMA", "QGMMA"})) return tensor(base, t);
  if (mem_width > 0) {
    SassMapping mm = memory(base, t, mem_width);
    if (!mm.mnemonic.empty()) return mm;
  }
  // FP32
  if (is({"FFMA", "FFMA32I"})) return {"fma.rn.f32", true};
  if (is({"FADD", "FADD32I"})) return {"add.f32", true};
  if (is({"FMUL", "FMUL32I"})) return {"mul.f32", true};
  if (is({"FMNMX"})) return {"max.f32", true};
  if (is({"FSETP", "FSET"})) return {"setp.lt.f32", true};
  if (is({"FSEL"})) return {"selp.f32", true};
  if (is({"FCHK", "FSWZADD"})) return {"testp.finite.f32", true};
  // FP16 (packed)
  if (is({"HFMA2", "HFMA2MMA"})) return {"fma.rn.f16x2", true};
  if (is({"HADD2", "HADD2_32I"})) return {"add.f16x2", true};
  if (is({"HMUL2", "HMUL2_32I"})) return {"mul.f16x2", true};
  if (is({"HSETP2", "HSET2"})) return {"setp.lt.f16x2", true};
  if (is({"HMNMX2"})) return {"max.f16x2", true};
  // FP64
  if (is({"DFMA"})) return {"fma.rn.f64", true};
  if (is({"DADD"})) return {"add.f64", true};
  if (is({"DMUL"})) return {"mul.f64", true};
  if (is({"DSETP", "DMNMX"})) return {"setp.lt.f64", true};
  // Special functions and conversions (the XU / MUFU unit)
  if (base == "MUFU") {
    static constexpr std::array<std::pair<std::string_view, const char*>, 8> kFn{{{"EX2", "ex2.approx.f32"},
                                                                                    {"LG2", "lg2.approx.f32"},
                                                                                    {"RSQ", "rsqrt.approx.f32"},
                                                                                    {"SQRT", "sqrt.approx.f32"},
                                                                                    {"SIN", "sin.approx.f32"},
                                                                                    {"COS", "cos.approx.f32"},
                                                                                    {"TANH", "tanh.approx.f32"},
                                                                                    {"RCP64H", "rcp.approx.ftz.f64"}}};
    for (auto [fn, m] : kFn)
      if (has(t, fn)) return {m, true};
    return {"rcp.approx.f32", true};
  }
  if (is({"F2F", "F2I", "I2F", "I2I", "FRND", "F2FP", "I2FP", "F2IP"})) return {"cvt.rn.f32.s32", true};
  if (is({"POPC"})) return {"popc.b32", true};
  if (is({"FLO", "UFLO"})) return {"bfind.u32", true};
  if (is({"BREV", "UBREV"})) return {"brev.b32", true};
  // Integer: multiplies on the FMA pipe, the rest on the ALU
  if (is({"IMAD", "IMAD32I", "IMUL", "IMUL32I", "IMADSP", "XMAD", "IDP", "IDP4A", "IMMAD", "UIMAD"})) return {"mad.lo.s32", true};
  if (is({"IADD3", "IADD", "IADD32I", "ISCADD", "ISCADD32I", "LEA", "UIADD3", "ULEA"})) return {"add.s32", true};
  if (is({"ISETP", "ICMP", "UISETP"})) return {"setp.lt.s32", true};
  if (is({"LOP3", "LOP", "LOP32I", "ULOP3", "ULOP", "PLOP3", "UPLOP3"})) return {"lop3.b32", true};
  if (is({"SHF", "SHL", "SHR", "USHF", "USHL", "USHR"})) return {"shf.l.wrap.b32", true};
  if (is({"IMNMX", "UIMNMX", "VIMNMX"})) return {"max.s32", true};
  if (is({"IABS", "UIABS"})) return {"abs.s32", true};
  if (is({"SEL", "USEL"})) return {"selp.b32", true};
  if (is({"PRMT", "UPRMT"})) return {"prmt.b32", true};
  if (is({"BMSK", "UBMSK"})) return {"and.b32", true};
  if (is({"SGXT", "USGXT", "BFE"})) return {"bfe.s32", true};
  if (is({"BFI"})) return {"bfi.b32", true};
  if (is({"MOV", "MOV32I", "UMOV", "CS2R", "S2R", "S2UR", "R2UR", "P2R", "R2P", "UP2UR", "UR2UP", "PSETP", "ULDC", "LDC",
          "B2R", "R2B", "LEPC", "GETLMEMBASE", "SETLMEMBASE"}))
    return {"mov.b32", true};
  if (is({"VOTE", "VOTEU"})) return {"vote.sync.ballot.b32", true};
  // Warp-level data movement (through MIO)
  if (is({"SHFL"})) return {"shfl.sync.idx.b32", true};
  if (is({"MATCH"})) return {"match.any.sync.b32", true};
  if (is({"REDUX", "CREDUX"})) return {"redux.sync.add.s32", true};
  // Synchronisation
  if (base == "BAR") {
    // BAR.ARV only arrives (does not wait); BAR.SYNC and BAR.RED wait for the CTA.
    if (has(t, "ARV")) return {"nop", true};
    return {"bar.sync", true};
  }
  if (is({"MEMBAR", "FENCE"})) return {"membar.gl", true};
  // Control flow
  if (is({"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "BRK", "CONT", "SSY", "PBK", "PCNT"})) return {"bra", true};
  if (is({"EXIT", "KILL"})) return {"exit", true};
  // No timing effect modelled: convergence-barrier bookkeeping, cache control, dependency
  // barriers of asynchronous copies (their data dependency is not in the trace format).
  if (is({"NOP", "BSSY", "BSYNC", "WARPSYNC", "BMOV", "YIELD", "BREAK", "DEPBAR", "LDGDEPBAR", "ERRBAR", "CGAERRBAR", "CCTL", "CCTLL",
          "CCTLT", "ARRIVES", "SYNCS", "ELECT", "BPT", "PMTRIG", "UCGABAR_ARV", "UCGABAR_WAIT", "ACQBULK"}))
    return {"nop", true};
  if (is({"NANOSLEEP"})) return {"nanosleep", true};
  return {kDefaultSassMnemonic, false};
}

}  // namespace warpsim
