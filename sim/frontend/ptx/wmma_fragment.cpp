#include "frontend/ptx/wmma_fragment.h"

#include <cstdio>
#include <vector>

namespace warpsim::ptx {
namespace {

char kind_of(const std::string& type) {
  if (type == "f16") return 'h';
  if (type == "bf16") return 'b';
  if (type == "tf32") return 't';
  if (type == "s8") return 's';
  if (type == "u8") return 'u';
  if (type == "f64") return 'd';
  if (type == "f32") return 'f';
  if (type == "s32") return 'i';
  if (type == "s4" || type == "u4" || type == "b1") return '?';
  return 0;
}

// The shapes PTX defines for each input type (PTX ISA, "Matrix Shape" for wmma).
bool shape_allowed(char input, uint32_t m, uint32_t n, uint32_t k) {
  const bool k16 = (m == 16 && n == 16 && k == 16) || (m == 32 && n == 8 && k == 16) || (m == 8 && n == 32 && k == 16);
  switch (input) {
    case 'h': case 'b': case 's': case 'u': return k16;
    case 't': return m == 16 && n == 16 && k == 8;
    case 'd': return m == 8 && n == 8 && k == 4;
    default: return false;
  }
}

const char* kWmmaForms =
    "the emulator runs wmma m16n16k16, m32n8k16 and m8n32k16 with f16 (f16 or f32 accumulators), bf16 (f32) and s8/u8 "
    "(s32) inputs, m16n16k8 with tf32 (f32) and m8n8k4 with f64";

}  // namespace

uint32_t wmma_element_bytes(char kind) {
  switch (kind) {
    case 'h': case 'b': return 2;
    case 's': case 'u': return 1;
    case 'd': return 8;
    default: return 4;  // f32, s32, and tf32 (an f32 in memory and in a register)
  }
}

FragmentShape fragment_shape(const WmmaInfo& info, char matrix) {
  switch (matrix) {
    case 'a': return {info.m, info.k, info.a};
    case 'b': return {info.k, info.n, info.b};
    case 'c': return {info.m, info.n, info.c};
    default: return {info.m, info.n, info.d};
  }
}

std::string decode_wmma(const std::string& opcode, const std::vector<std::string>& suffixes, char matrix, WmmaInfo& info) {
  std::vector<char> kinds;
  for (const auto& p : suffixes) {
    unsigned m = 0, n = 0, k = 0;
    char tail = 0;
    if (std::sscanf(p.c_str(), "m%un%uk%u%c", &m, &n, &k, &tail) == 3) info.m = m, info.n = n, info.k = k;
    if (p == "satfinite") info.satfinite = true;
    if (char c = kind_of(p)) kinds.push_back(c);
  }
  const std::string not_this = std::string(kWmmaForms) + "; not '" + opcode + "'";
  for (char c : kinds)
    if (c == '?') return "sub-byte wmma types (s4, u4, b1) are not supported: " + not_this;
  if (info.m == 0 || kinds.empty()) return not_this;
  if (matrix) {  // load or store: one element type
    const char kind = kinds.back();
    (matrix == 'a' ? info.a : matrix == 'b' ? info.b : matrix == 'c' ? info.c : info.d) = kind;
    const bool input = matrix == 'a' || matrix == 'b';
    const bool ok = input ? shape_allowed(kind, info.m, info.n, info.k)
                          : (kind == 'h' || kind == 'f' || kind == 'i' || kind == 'd') &&
                                (shape_allowed('h', info.m, info.n, info.k) || shape_allowed('t', info.m, info.n, info.k) ||
                                 shape_allowed('d', info.m, info.n, info.k));
    return ok ? "" : not_this;
  }
  // mma: .dtype.ctype with f16 inputs, or .dtype.atype.btype.ctype.
  if (kinds.size() == 2) {
    info.d = kinds[0], info.c = kinds[1], info.a = info.b = 'h';
  } else if (kinds.size() == 4) {
    info.d = kinds[0], info.a = kinds[1], info.b = kinds[2], info.c = kinds[3];
  } else {
    return not_this;
  }
  const bool integer = info.a == 's' || info.a == 'u';
  bool ok = (info.a == info.b || (integer && (info.b == 's' || info.b == 'u'))) && shape_allowed(info.a, info.m, info.n, info.k);
  switch (info.a) {
    case 'h': ok = ok && (info.c == 'h' || info.c == 'f') && (info.d == 'h' || info.d == 'f'); break;
    case 'b': case 't': ok = ok && info.c == 'f' && info.d == 'f'; break;
    case 's': case 'u': ok = ok && info.c == 'i' && info.d == 'i'; break;
    case 'd': ok = ok && info.c == 'd' && info.d == 'd'; break;
    default: ok = false;
  }
  if (info.satfinite && !integer) return ".satfinite on a floating-point wmma.mma is not supported: " + not_this;
  return ok ? "" : not_this;
}

std::string check_fragment_registers(const WmmaInfo& info, char matrix, uint32_t registers) {
  const FragmentShape f = fragment_shape(info, matrix);
  const uint64_t slots = uint64_t{32} * registers * wmma_elements_per_register(f.kind), elements = uint64_t{f.rows} * f.cols;
  if (registers > 0 && slots >= elements && slots % elements == 0) return "";
  return "a wmma " + std::string(1, matrix) + " fragment of " + std::to_string(registers) + " registers cannot hold a " + std::to_string(f.rows) +
         " x " + std::to_string(f.cols) + " matrix";
}

}  // namespace warpsim::ptx
