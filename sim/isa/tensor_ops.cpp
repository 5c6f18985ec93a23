// Decoding tensor-core mnemonics (mma.sync, wmma.mma, wgmma.mma_async, tcgen05.mma) into
// OpInfo: shape, input precision, the kind's datapath and K, and tcgen05's CTA pairs and A in
// tensor memory (op_info.cpp calls decode_tensor for every mnemonic).
#include "isa/tensor_ops.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace warpsim {
namespace {

bool parse_shape(std::string_view s, OpInfo& out) {
  // mMnNkK, e.g. m16n8k16
  if (s.size() < 6 || s[0] != 'm') return false;
  size_t n_pos = s.find('n'), k_pos = s.find('k');
  if (n_pos == std::string_view::npos || k_pos == std::string_view::npos || n_pos > k_pos) return false;
  auto num = [](std::string_view t, uint16_t& v) {
    auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    return r.ec == std::errc() && r.ptr == t.data() + t.size() && v > 0;
  };
  return num(s.substr(1, n_pos - 1), out.m) && num(s.substr(n_pos + 1, k_pos - n_pos - 1), out.n) &&
         num(s.substr(k_pos + 1), out.k);
}

// The .kind of an FP8/FP6/FP4 MMA fixes its datapath and K, not the input type alone:
// kind::f8f6f4 and kind::mxf8f6f4 hold every input in an 8-bit container (K = 32) and run FP6 and
// FP4 at the FP8 rate; only the block-scaled kind::mxf4 and kind::mxf4nvf4 pack FP4 two to a byte
// (K = 64) and run at twice it (CUTLASS, "Blackwell SM100 GEMMs": f8f6f4 and mxf8f6f4 at 2x
// Hopper FP8, mxf4 and mxf4nvf4 at 4x). mma.sync takes a kind only on sm_120 (ptxas 13.0:
// "mma with FP6/FP4 floating point type not supported on .target sm_100a"); B200 runs them
// through tcgen05.mma.
bool apply_mma_kind(std::string_view base, const std::vector<std::string_view>& parts, TensorPrecision& prec, OpInfo& out,
                    std::string& error) {
  std::string_view kind;
  for (auto p : parts)
    if (p.starts_with("kind::")) kind = p;
  const bool narrow = prec == TensorPrecision::kFp4 || prec == TensorPrecision::kFp6;
  const bool eight_bit_kind = kind == "kind::f8f6f4" || kind == "kind::mxf8f6f4";
  const bool fp4_kind = kind == "kind::mxf4" || kind == "kind::mxf4nvf4";
  if (narrow && !eight_bit_kind && !fp4_kind) {
    error = "FP6 and FP4 MMAs name their kind: .kind::f8f6f4 or .kind::mxf8f6f4 (8-bit containers, K = 32), .kind::mxf4 or "
            ".kind::mxf4nvf4 (FP4 packed, K = 64)";
    return false;
  }
  if (fp4_kind && prec != TensorPrecision::kFp4) {
    error = "." + std::string(kind) + " multiplies e2m1 (FP4) inputs only";
    return false;
  }
  const uint16_t k = eight_bit_kind ? 32 : fp4_kind ? 64 : 0;
  if (k != 0 && out.k != k) {
    error = "." + std::string(kind) + " has K = " + std::to_string(k) + " (" +
            (eight_bit_kind ? "every input in an 8-bit container" : "FP4 packed two to a byte") + "), not " + std::to_string(out.k);
    return false;
  }
  if (eight_bit_kind && narrow) prec = TensorPrecision::kFp8;
  if (base == "mma" && !kind.empty()) out.min_compute_capability = 120;
  return true;
}

}  // namespace

TensorPrecision tensor_precision_of_type(std::string_view t) {
  if (t == "f16") return TensorPrecision::kFp16;
  if (t == "bf16") return TensorPrecision::kBf16;
  if (t == "tf32") return TensorPrecision::kTf32;
  if (t == "e4m3" || t == "e5m2") return TensorPrecision::kFp8;
  if (t == "e3m2" || t == "e2m3") return TensorPrecision::kFp6;
  if (t == "e2m1") return TensorPrecision::kFp4;
  if (t == "s8" || t == "u8") return TensorPrecision::kInt8;
  if (t == "s4" || t == "u4") return TensorPrecision::kInt4;
  if (t == "f64") return TensorPrecision::kFp64;
  return TensorPrecision::kNone;
}

bool decode_tensor(std::string_view base, const std::vector<std::string_view>& parts, OpInfo& out,
                   std::string& error) {
  bool mma = base == "mma" || (base == "wmma" && parts.size() > 1 && parts[1] == "mma") ||
             (base == "wgmma" && parts.size() > 1 && parts[1] == "mma_async") ||
             (base == "tcgen05" && parts.size() > 1 && parts[1] == "mma");
  if (!mma) return false;
  std::vector<std::string_view> types;
  for (auto p : parts) {
    if (p.size() > 1 && p[0] == 'm' && std::isdigit(static_cast<unsigned char>(p[1])) && parse_shape(p, out))
      continue;
    if (tensor_precision_of_type(p) != TensorPrecision::kNone || p == "f32" || p == "s32") types.push_back(p);
  }
  if (out.m == 0 && base == "tcgen05") {
    error = "'" + std::string(base) + ".mma' needs warpsim's shape and type suffixes, .mMnNkK.f32.ATYPE.BTYPE (e.g. "
            ".m128n256k16.f32.bf16.bf16): PTX keeps them in the instruction descriptor (docs/trace-format.md)";
    return false;
  }
  if (out.m == 0) {
    error = "tensor instruction needs a shape such as .m16n8k16";
    return false;
  }
  // Operand types come as D, A, B, C (mma) or D, C (wmma with f16 inputs); the input
  // precision is the A type, else f16.
  TensorPrecision prec = TensorPrecision::kNone;
  for (size_t i = 1; i < types.size() && prec == TensorPrecision::kNone; ++i) prec = tensor_precision_of_type(types[i]);
  if (prec == TensorPrecision::kNone && !types.empty()) prec = tensor_precision_of_type(types[0]);
  if (prec == TensorPrecision::kNone) prec = TensorPrecision::kFp16;
  if (!apply_mma_kind(base, parts, prec, out, error)) return false;
  out.tensor = prec;
  // "A warp executing mma.sync.m8n8k4 computes 4 matrix multiply and accumulate operations"
  // (PTX ISA, mma); every other shape is one per warp.
  if (base == "mma" && out.m == 8 && out.n == 8 && out.k == 4 && prec == TensorPrecision::kFp16) out.mma_per_warp = 4;
  // ptxas 13.0: "Feature '.m16n8k4 with double types' requires .target sm_90 or higher" (also k8, k16).
  if (base == "mma" && prec == TensorPrecision::kFp64 && out.m == 16) out.min_compute_capability = std::max<uint16_t>(out.min_compute_capability, 90);
  if (base == "wgmma") out.warps_sharing = 4;
  // mma.sp, mma.sp::ordered_metadata, wgmma.mma_async.sp, tcgen05.mma.sp.
  out.sparse = std::find_if(parts.begin(), parts.end(), [](std::string_view p) { return p == "sp" || p.starts_with("sp::"); }) != parts.end();
  if (out.sparse && prec == TensorPrecision::kFp64) {
    error = "structured sparsity is not defined for FP64 MMAs (PTX ISA: mma.sp takes 16-, 8- and 4-bit and TF32 inputs)";
    return false;
  }
  if (base == "tcgen05") out.whole_sm = true;
  out.cta_pair = base == "tcgen05" && std::find(parts.begin(), parts.end(), "cta_group::2") != parts.end();
  out.a_in_tmem = base == "tcgen05" && std::find(parts.begin(), parts.end(), "a_tmem") != parts.end();
  out.a_in_registers = base == "wgmma" && std::find(parts.begin(), parts.end(), "a_regs") != parts.end();
  // PTX ISA (tcgen05.mma shapes): one CTA computes M = 64 or 128 rows, a pair 128 or 256.
  if (base == "tcgen05" && (out.cta_pair ? out.m != 128 && out.m != 256 : out.m != 64 && out.m != 128)) {
    error = "tcgen05.mma with " + std::string(out.cta_pair ? ".cta_group::2 has M = 128 or 256" : ".cta_group::1 has M = 64 or 128") +
            ", not " + std::to_string(out.m);
    return false;
  }
  out.op_class = OpClass::kTensor;
  out.pipe = Pipe::kTensor;
  out.writes_destination = true;
  return true;
}

std::string wgmma_with_a_in_registers(std::string_view mnemonic) {
  std::string out(mnemonic);
  const size_t shape = out.find(".m64n");
  if (shape != std::string::npos) out.insert(shape, ".a_regs");
  return out;
}

std::string tcgen05_mma_stand_in(std::string_view mnemonic) {
  std::string out(mnemonic);
  auto has = [&](std::string_view kind) { return mnemonic.find(kind) != std::string_view::npos; };
  if (has("kind::tf32")) return out + ".m128n16k8.f32.tf32.tf32";
  if (has("kind::f8f6f4") || has("kind::mxf8f6f4")) return out + ".m128n16k32.f32.e4m3.e4m3";
  if (has("kind::mxf4")) return out + ".m128n16k64.f32.e2m1.e2m1";  // mxf4 and mxf4nvf4
  if (has("kind::i8")) return out + ".m128n16k32.s32.s8.s8";
  return out + ".m128n16k16.f32.f16.f16";
}

}  // namespace warpsim
