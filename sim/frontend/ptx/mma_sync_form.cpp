#include "frontend/ptx/mma_sync_form.h"

#include <array>
#include <bit>
#include <cstdio>

#include "common/half.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {
namespace {

MmaElem elem_named(const std::string& s) {
  static const std::pair<const char*, MmaElem> kNames[] = {
      {"f16", MmaElem::kF16}, {"bf16", MmaElem::kBf16}, {"tf32", MmaElem::kTf32}, {"e4m3", MmaElem::kE4m3}, {"e5m2", MmaElem::kE5m2},
      {"s8", MmaElem::kS8},   {"u8", MmaElem::kU8},     {"s4", MmaElem::kS4},     {"u4", MmaElem::kU4},     {"f32", MmaElem::kF32},
      {"s32", MmaElem::kS32}, {"f64", MmaElem::kF64}};
  for (const auto& [name, e] : kNames)
    if (s == name) return e;
  return MmaElem::kNone;
}

bool parse_shape(const std::string& s, MmaSyncForm& f) {
  unsigned m = 0, n = 0, k = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "m%un%uk%u%c", &m, &n, &k, &tail) != 3) return false;
  f.m = m, f.n = n, f.k = k;
  return true;
}

// The forms the PTX ISA defines (mma's "Restrictions" and shape tables) that the emulator runs.
bool form_defined(const MmaSyncForm& f, bool rn) {
  auto shape = [&](uint32_t m, uint32_t k) { return f.m == m && f.n == 8 && f.k == k; };
  auto eight_bit_float = [](MmaElem e) { return e == MmaElem::kE4m3 || e == MmaElem::kE5m2; };
  auto f16_or_f32 = [](MmaElem e) { return e == MmaElem::kF16 || e == MmaElem::kF32; };
  if (rn && f.a != MmaElem::kF64) return false;  // .rn is f64's rounding qualifier
  if (f.satfinite && !mma_elem_integer(f.a)) return false;
  if (f.sparse) {  // mma.sp's forms (sm_80; FP8 sm_89): twice the dense K, C and D of one type
    const bool s32 = f.d == MmaElem::kS32 && f.c == MmaElem::kS32;
    switch (f.a) {
      case MmaElem::kF16: return f.b == f.a && (shape(16, 16) || shape(16, 32)) && f16_or_f32(f.d) && f.c == f.d;
      case MmaElem::kBf16: return f.b == f.a && (shape(16, 16) || shape(16, 32)) && f.d == MmaElem::kF32 && f.c == f.d;
      case MmaElem::kTf32: return f.b == f.a && (shape(16, 8) || shape(16, 16)) && f.d == MmaElem::kF32 && f.c == f.d;
      case MmaElem::kE4m3:
      case MmaElem::kE5m2: return eight_bit_float(f.b) && shape(16, 64) && f.d == MmaElem::kF32 && f.c == f.d;
      case MmaElem::kS8:
      case MmaElem::kU8: return (f.b == MmaElem::kS8 || f.b == MmaElem::kU8) && (shape(16, 32) || shape(16, 64)) && s32;
      case MmaElem::kS4:
      case MmaElem::kU4: return (f.b == MmaElem::kS4 || f.b == MmaElem::kU4) && (shape(16, 64) || shape(16, 128)) && s32;
      default: return false;
    }
  }
  switch (f.a) {
    case MmaElem::kF16:
      return f.b == f.a && (shape(16, 8) || shape(16, 16) || shape(8, 4)) && f16_or_f32(f.d) && f16_or_f32(f.c);
    case MmaElem::kBf16:
      return f.b == f.a && (shape(16, 8) || shape(16, 16)) && f.d == MmaElem::kF32 && f.c == MmaElem::kF32;
    case MmaElem::kTf32:
      return f.b == f.a && (shape(16, 4) || shape(16, 8)) && f.d == MmaElem::kF32 && f.c == MmaElem::kF32;
    case MmaElem::kE4m3:
    case MmaElem::kE5m2:
      return eight_bit_float(f.b) && (shape(16, 16) || shape(16, 32)) && f16_or_f32(f.d) && f.c == f.d;
    case MmaElem::kS8:
    case MmaElem::kU8:
      return (f.b == MmaElem::kS8 || f.b == MmaElem::kU8) && (shape(8, 16) || shape(16, 16) || shape(16, 32)) && f.d == MmaElem::kS32 &&
             f.c == MmaElem::kS32;
    case MmaElem::kS4:
    case MmaElem::kU4:
      return (f.b == MmaElem::kS4 || f.b == MmaElem::kU4) && (shape(8, 32) || shape(16, 32) || shape(16, 64)) && f.d == MmaElem::kS32 &&
             f.c == MmaElem::kS32;
    case MmaElem::kF64:
      return f.b == f.a && (shape(8, 4) || shape(16, 4) || shape(16, 8) || shape(16, 16)) && f.d == MmaElem::kF64 && f.c == MmaElem::kF64;
    default:
      return false;
  }
}

}  // namespace

uint32_t mma_elem_bits(MmaElem e) {
  switch (e) {
    case MmaElem::kS4: case MmaElem::kU4: return 4;
    case MmaElem::kE4m3: case MmaElem::kE5m2: case MmaElem::kS8: case MmaElem::kU8: return 8;
    case MmaElem::kF16: case MmaElem::kBf16: return 16;
    case MmaElem::kF64: return 64;
    default: return 32;
  }
}

bool mma_elem_integer(MmaElem e) {
  return e == MmaElem::kS8 || e == MmaElem::kU8 || e == MmaElem::kS4 || e == MmaElem::kU4 || e == MmaElem::kS32;
}

double e4m3_value(uint64_t bits) {
  static const std::array<double, 256> kValues = [] {
    std::array<double, 256> v{};
    for (uint32_t i = 0; i < 256; ++i) v[i] = matrix_element_value("e4m3", i);
    return v;
  }();
  return kValues[bits & 0xff];
}

uint32_t MmaSyncForm::a_registers() const {
  const uint32_t bits = mma_elem_bits(a);
  return bits >= 32 ? a_elements() : a_elements() * bits / 32;
}
uint32_t MmaSyncForm::b_registers() const {
  const uint32_t bits = mma_elem_bits(b);
  return bits >= 32 ? b_elements() : b_elements() * bits / 32;
}
uint32_t MmaSyncForm::c_registers() const { return c == MmaElem::kF16 ? c_elements() / 2 : c_elements(); }
uint32_t MmaSyncForm::d_registers() const { return d == MmaElem::kF16 ? c_elements() / 2 : c_elements(); }

std::string decode_mma_sync(const std::string& opcode, const std::vector<std::string>& suffixes, MmaSyncForm& form) {
  form = MmaSyncForm{};
  bool sync = false, aligned = false, rn = false, ok = suffixes.size() >= 4;
  std::vector<std::string> layouts;  // A's, then B's
  const size_t types = ok ? suffixes.size() - 4 : 0;
  for (size_t i = 0; i < types && ok; ++i) {
    const std::string& s = suffixes[i];
    if (i == 0 && (s == "sp" || s == "sp::ordered_metadata")) form.sparse = true, form.ordered = s != "sp";
    else if (s == "sync") sync = true;
    else if (s == "aligned") aligned = true;
    else if (s == "row" || s == "col") layouts.push_back(s);
    else if (s == "satfinite") form.satfinite = true;
    else if (s == "rn") rn = true;
    else ok = parse_shape(s, form) && form.m != 0;
  }
  if (ok) {
    form.d = elem_named(suffixes[types]), form.a = elem_named(suffixes[types + 1]);
    form.b = elem_named(suffixes[types + 2]), form.c = elem_named(suffixes[types + 3]);
  }
  // Every form is .row.col but Volta's m8n8k4, which takes either layout for A and for B.
  ok = ok && layouts.size() == 2 && (form.quad_pairs() || (layouts[0] == "row" && layouts[1] == "col"));
  if (ok) form.a_col = layouts[0] == "col", form.b_row = layouts[1] == "row";
  if (ok && sync && aligned && form_defined(form, rn)) return "";
  return "the emulator runs mma.sync.aligned.mMnNkK.row.col with f16 (m16n8k8/k16, and m8n8k4 with either layout for A and B; f16 or f32 "
         "accumulators), bf16 (m16n8k8/k16), "
         "tf32 (m16n8k4/k8), e4m3/e5m2 (m16n8k16/k32; f32 or f16 accumulators), s8/u8 (m8n8k16, m16n8k16/k32; s32, .satfinite "
         "or not), s4/u4 (m8n8k32, m16n8k32/k64; likewise) and f64 (m8n8k4, m16n8k4/k8/k16) inputs, and mma.sp{::ordered_metadata} "
         "with f16/bf16 (m16n8k16/k32), tf32 (m16n8k8/k16), e4m3/e5m2 (m16n8k64, f32), s8/u8 (m16n8k32/k64) and s4/u4 "
         "(m16n8k64/k128) inputs, C and D of one type; not '" + opcode + "'";
}

MatrixPlace mma_a_place(const MmaSyncForm& f, uint32_t lane, uint32_t i) {
  if (f.quad_pairs()) {
    const uint32_t block = 8 * ((lane % 16) / 4), high = lane >= 16 ? 4 : 0;
    return f.a_col ? MatrixPlace{block + i % 4 + high, lane % 4} : MatrixPlace{block + lane % 4 + high, i};
  }
  const uint32_t g = lane / 4, t = lane % 4, m16 = f.m == 16 ? 1 : 0, bits = mma_elem_bits(f.a);
  if (bits >= 32) return m16 ? MatrixPlace{g + 8 * (i % 2), t + 4 * (i / 2)} : MatrixPlace{g, t + 4 * i};
  const uint32_t p = 32 / bits;  // elements per register
  return m16 ? MatrixPlace{g + 8 * ((i / p) % 2), p * t + i % p + 4 * p * (i / (2 * p))} : MatrixPlace{g, p * t + i};
}

MatrixPlace mma_b_place(const MmaSyncForm& f, uint32_t lane, uint32_t i) {
  if (f.quad_pairs()) {
    const uint32_t block = 8 * ((lane % 16) / 4), high = lane >= 16 ? 4 : 0;
    return f.b_row ? MatrixPlace{lane % 4, block + i + high} : MatrixPlace{i, block + lane % 4 + high};
  }
  const uint32_t g = lane / 4, t = lane % 4, bits = mma_elem_bits(f.b);
  if (bits >= 32) return {t + 4 * i, g};
  const uint32_t p = 32 / bits;
  return {p * t + i % p + 4 * p * (i / p), g};
}

MatrixPlace mma_c_place(const MmaSyncForm& f, MmaElem type, uint32_t lane, uint32_t i) {
  if (f.quad_pairs()) {
    const uint32_t block = 8 * ((lane % 16) / 4), high = lane >= 16 ? 4 : 0;
    if (type == MmaElem::kF16) return {block + lane % 4 + high, block + i};
    return {block + (lane & 1) + (i & 2) + high, block + (i & 4) + (lane & 2) + (i & 1)};
  }
  return {lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2};
}

int sparse_position(const MmaSyncForm& f, uint32_t nibble, uint32_t s) {
  const uint32_t first = nibble & 3, second = nibble >> 2;
  if (f.a == MmaElem::kTf32) return nibble == 0b0100 ? 0 : nibble == 0b1110 ? 1 : -1;
  if (first == second || (f.ordered && first > second)) return -1;
  if (f.chunk() == 8) return static_cast<int>(2 * (s < 2 ? first : second) + s % 2);  // 4-bit types: pairs
  return static_cast<int>(s == 0 ? first : second);
}

MetadataPlace sparse_metadata_place(const MmaSyncForm& f, uint32_t selector, uint32_t row, uint32_t chunk) {
  const uint32_t lanes = f.metadata_lanes();
  return {4 * (row % 8) + selector * lanes + chunk / 4, 16 * (row / 8) + 4 * (chunk % 4)};
}

MmaLayout mma_layout(const MmaSyncForm& f) {
  MmaLayout out;
  out.form = f;
  const uint32_t k = f.a_cols(), cols = f.cols();
  for (uint32_t l = 0; l < 32; ++l) {
    for (uint32_t i = 0; i < f.a_elements(); ++i) {
      const MatrixPlace p = mma_a_place(f, l, i);
      out.a.push_back(static_cast<uint16_t>(p.row * k + p.col));
    }
    for (uint32_t i = 0; i < f.b_elements(); ++i) {
      const MatrixPlace p = mma_b_place(f, l, i);
      out.b.push_back(static_cast<uint16_t>(p.row * cols + p.col));  // B is dense: f.k rows
      out.b_t.push_back(static_cast<uint16_t>(p.col * f.k + p.row));
    }
    for (uint32_t i = 0; i < f.c_elements(); ++i) {
      const MatrixPlace c = mma_c_place(f, f.c, l, i), d = mma_c_place(f, f.d, l, i);
      out.c.push_back(static_cast<uint16_t>(c.row * cols + c.col));
      out.d.push_back(static_cast<uint16_t>(d.row * cols + d.col));
    }
  }
  return out;
}

}  // namespace warpsim::ptx
