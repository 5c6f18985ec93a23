// Differential check of warpsim's float encodings (sim/frontend/ptx/float_formats.cpp) against
// the host code CUDA's own headers (cuda_fp16/bf16/fp8/fp6/fp4.hpp) use for the same conversions
// when they do not run on a GPU: NVIDIA's reference for what the device instructions compute.
// Host code only, so it runs wherever nvcc is installed, without a GPU:
//   tools/conversions/compare_with_cuda.sh
// Inputs: for both signs and all 256 exponents (zeros, subnormals, infinities and NaNs among
// them), every value of the top 12 mantissa bits with 16 patterns of the low 11 (zero, one, all
// ones, each side of the f16/bf16 rounding points, fixed arbitrary ones): 33.6 M floats, each
// through 20 conversions (f16 twice: float_formats and common/half.h; bf16, FP8, FP6, FP4, UE8M0); every f16 and bf16 value through the
// packed forms' 11; every narrow code decoded (about 35 s in all). `--quick`: the top 8 mantissa
// bits only (16 times fewer floats).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "common/half.h"
#include "frontend/ptx/float_formats.h"

namespace ptx = warpsim::ptx;

namespace {

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

struct Check {
  const char* name;
  std::function<uint32_t(float)> cuda, warpsim;
  uint64_t mismatches = 0;
  std::vector<uint32_t> examples;
};

uint16_t half_bits(__half h) {
  __half_raw r = h;
  return r.x;
}
uint16_t bf16_bits(__nv_bfloat16 h) {
  __nv_bfloat16_raw r = h;
  return r.x;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  const uint32_t top_bits = quick ? 8 : 12;
  const ptx::FloatFormat &f16 = *ptx::find_float_format("f16"), &bf16 = *ptx::find_float_format("bf16"),
                         &e4m3 = *ptx::find_float_format("e4m3"), &e5m2 = *ptx::find_float_format("e5m2"),
                         &e2m3 = *ptx::find_float_format("e2m3"), &e3m2 = *ptx::find_float_format("e3m2"),
                         &e2m1 = *ptx::find_float_format("e2m1");
  using R = ptx::Rounding;
  auto enc = [](const ptx::FloatFormat& f, R r, bool sat) {
    return [&f, r, sat](float x) { return static_cast<uint32_t>(ptx::encode_float(x, f, r, sat)); };
  };
  std::vector<Check> checks = {
      {"f16 .rn (__float2half_rn)", [](float x) { return uint32_t{half_bits(__float2half_rn(x))}; }, enc(f16, R::kNearestEven, false)},
      {"f16 .rz (__float2half_rz)", [](float x) { return uint32_t{half_bits(__float2half_rz(x))}; }, enc(f16, R::kZero, false)},
      {"f16 .rm (__float2half_rd)", [](float x) { return uint32_t{half_bits(__float2half_rd(x))}; }, enc(f16, R::kDown, false)},
      {"f16 .rp (__float2half_ru)", [](float x) { return uint32_t{half_bits(__float2half_ru(x))}; }, enc(f16, R::kUp, false)},
      {"f16 .rn, half.h (__float2half_rn)", [](float x) { return uint32_t{half_bits(__float2half_rn(x))}; },
       [](float x) { return uint32_t{warpsim::float_to_half(x)}; }},
      {"bf16 .rn (__float2bfloat16_rn)", [](float x) { return uint32_t{bf16_bits(__float2bfloat16_rn(x))}; }, enc(bf16, R::kNearestEven, false)},
      {"bf16 .rz (__float2bfloat16_rz)", [](float x) { return uint32_t{bf16_bits(__float2bfloat16_rz(x))}; }, enc(bf16, R::kZero, false)},
      {"bf16 .rm (__float2bfloat16_rd)", [](float x) { return uint32_t{bf16_bits(__float2bfloat16_rd(x))}; }, enc(bf16, R::kDown, false)},
      {"bf16 .rp (__float2bfloat16_ru)", [](float x) { return uint32_t{bf16_bits(__float2bfloat16_ru(x))}; }, enc(bf16, R::kUp, false)},
      {"e4m3 .rn.satfinite", [](float x) { return uint32_t{__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)}; }, enc(e4m3, R::kNearestEven, true)},
      {"e4m3 .rn (no saturation)", [](float x) { return uint32_t{__nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E4M3)}; }, enc(e4m3, R::kNearestEven, false)},
      {"e5m2 .rn.satfinite", [](float x) { return uint32_t{__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2)}; }, enc(e5m2, R::kNearestEven, true)},
      {"e5m2 .rn (no saturation)", [](float x) { return uint32_t{__nv_cvt_float_to_fp8(x, __NV_NOSAT, __NV_E5M2)}; }, enc(e5m2, R::kNearestEven, false)},
      {"e2m3 .rn.satfinite", [](float x) { return uint32_t{__nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest)}; }, enc(e2m3, R::kNearestEven, true)},
      {"e3m2 .rn.satfinite", [](float x) { return uint32_t{__nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundNearest)}; }, enc(e3m2, R::kNearestEven, true)},
      {"e2m1 .rn.satfinite", [](float x) { return uint32_t{__nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest)}; }, enc(e2m1, R::kNearestEven, true)},
      {"f32 -> ue8m0 .rz", [](float x) { return uint32_t{__nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundZero)}; }, [](float x) { return uint32_t(ptx::ue8m0_bits(x, false, false)); }},
      {"f32 -> ue8m0 .rz.satfinite", [](float x) { return uint32_t{__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero)}; }, [](float x) { return uint32_t(ptx::ue8m0_bits(x, false, true)); }},
      {"f32 -> ue8m0 .rp", [](float x) { return uint32_t{__nv_cvt_float_to_e8m0(x, __NV_NOSAT, cudaRoundPosInf)}; }, [](float x) { return uint32_t(ptx::ue8m0_bits(x, true, false)); }},
      {"f32 -> ue8m0 .rp.satfinite", [](float x) { return uint32_t{__nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundPosInf)}; }, [](float x) { return uint32_t(ptx::ue8m0_bits(x, true, true)); }},
  };
  const uint32_t low_patterns[16] = {0x000, 0x001, 0x7ff, 0x400, 0x3ff, 0x401, 0x200, 0x1ff,
                                     0x100, 0x0ff, 0x5a5, 0x2c3, 0x6e1, 0x13b, 0x79d, 0x04f};
  std::vector<uint32_t> inputs;
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (uint32_t exponent = 0; exponent < 256; ++exponent)
      for (uint32_t top = 0; top < (1u << top_bits); ++top)
        for (uint32_t low : low_patterns) inputs.push_back(sign << 31 | exponent << 23 | top << (23 - top_bits) | low);
  uint64_t compared = 0;
  for (uint32_t bits : inputs) {
    const float x = from_bits(bits);
    for (auto& c : checks) {
      const uint32_t want = c.cuda(x), got = c.warpsim(x);
      ++compared;
      if (want != got) {
        ++c.mismatches;
        if (c.examples.size() < 4) c.examples.insert(c.examples.end(), {bits, want, got});
      }
    }
  }
  // Decoding every FP8/FP6/FP4 code to f16 (__nv_cvt_fp8/fp6/fp4_to_halfraw) against decode_float.
  struct Decode {
    const char* name;
    const ptx::FloatFormat& format;
    uint32_t codes;
    std::function<uint16_t(uint32_t)> cuda;
  };
  const Decode decodes[] = {
      {"e4m3 -> f16", e4m3, 256, [](uint32_t c) { return __half_raw(__nv_cvt_fp8_to_halfraw(c, __NV_E4M3)).x; }},
      {"e5m2 -> f16", e5m2, 256, [](uint32_t c) { return __half_raw(__nv_cvt_fp8_to_halfraw(c, __NV_E5M2)).x; }},
      {"e2m3 -> f16", e2m3, 64, [](uint32_t c) { return __half_raw(__nv_cvt_fp6_to_halfraw(c, __NV_E2M3)).x; }},
      {"e3m2 -> f16", e3m2, 64, [](uint32_t c) { return __half_raw(__nv_cvt_fp6_to_halfraw(c, __NV_E3M2)).x; }},
      {"e2m1 -> f16", e2m1, 16, [](uint32_t c) { return __half_raw(__nv_cvt_fp4_to_halfraw(c, __NV_E2M1)).x; }},
  };
  // Every f16 and bf16 value (the packed f16x2/bf16x2 sources of cvt) into the narrow formats,
  // and into UE8M0; warpsim decodes the source and encodes the value, as the emulator does.
  struct Packed {
    const char* name;
    const ptx::FloatFormat& from;
    std::function<uint32_t(uint16_t)> cuda;
    std::function<uint32_t(double)> warpsim;
  };
  auto from16 = [](const ptx::FloatFormat& f, R r, bool sat) { return [&f, r, sat](double x) { return uint32_t(ptx::encode_float(x, f, r, sat)); }; };
  const Packed packed[] = {
      {"f16 -> e4m3 .satfinite", f16, [](uint16_t h) { return uint32_t{__nv_cvt_halfraw_to_fp8(__half_raw{h}, __NV_SATFINITE, __NV_E4M3)}; }, from16(e4m3, R::kNearestEven, true)},
      {"f16 -> e5m2 .satfinite", f16, [](uint16_t h) { return uint32_t{__nv_cvt_halfraw_to_fp8(__half_raw{h}, __NV_SATFINITE, __NV_E5M2)}; }, from16(e5m2, R::kNearestEven, true)},
      {"f16 -> e2m3 .satfinite", f16, [](uint16_t h) { return uint32_t{__nv_cvt_halfraw_to_fp6(__half_raw{h}, __NV_E2M3, cudaRoundNearest)}; }, from16(e2m3, R::kNearestEven, true)},
      {"f16 -> e3m2 .satfinite", f16, [](uint16_t h) { return uint32_t{__nv_cvt_halfraw_to_fp6(__half_raw{h}, __NV_E3M2, cudaRoundNearest)}; }, from16(e3m2, R::kNearestEven, true)},
      {"f16 -> e2m1 .satfinite", f16, [](uint16_t h) { return uint32_t{__nv_cvt_halfraw_to_fp4(__half_raw{h}, __NV_E2M1, cudaRoundNearest)}; }, from16(e2m1, R::kNearestEven, true)},
      {"bf16 -> e4m3 .satfinite", bf16, [](uint16_t h) { return uint32_t{__nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw{h}, __NV_SATFINITE, __NV_E4M3)}; }, from16(e4m3, R::kNearestEven, true)},
      {"bf16 -> e5m2 .satfinite", bf16, [](uint16_t h) { return uint32_t{__nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw{h}, __NV_SATFINITE, __NV_E5M2)}; }, from16(e5m2, R::kNearestEven, true)},
      {"bf16 -> ue8m0 .rz", bf16, [](uint16_t h) { return uint32_t{__nv_cvt_bfloat16raw_to_e8m0(__nv_bfloat16_raw{h}, __NV_NOSAT, cudaRoundZero)}; }, [](double x) { return uint32_t(ptx::ue8m0_bits(x, false, false)); }},
      {"bf16 -> ue8m0 .rz.satfinite", bf16, [](uint16_t h) { return uint32_t{__nv_cvt_bfloat16raw_to_e8m0(__nv_bfloat16_raw{h}, __NV_SATFINITE, cudaRoundZero)}; }, [](double x) { return uint32_t(ptx::ue8m0_bits(x, false, true)); }},
      {"bf16 -> ue8m0 .rp", bf16, [](uint16_t h) { return uint32_t{__nv_cvt_bfloat16raw_to_e8m0(__nv_bfloat16_raw{h}, __NV_NOSAT, cudaRoundPosInf)}; }, [](double x) { return uint32_t(ptx::ue8m0_bits(x, true, false)); }},
      {"bf16 -> ue8m0 .rp.satfinite", bf16, [](uint16_t h) { return uint32_t{__nv_cvt_bfloat16raw_to_e8m0(__nv_bfloat16_raw{h}, __NV_SATFINITE, cudaRoundPosInf)}; }, [](double x) { return uint32_t(ptx::ue8m0_bits(x, true, true)); }},
  };
  uint64_t failures = 0;
  for (const auto& p : packed) {
    uint32_t bad = 0;
    for (uint32_t h = 0; h < 65536; ++h) {
      const uint32_t want = p.cuda(static_cast<uint16_t>(h)), got = p.warpsim(ptx::decode_float(h, p.from));
      ++compared;
      if (want != got && bad++ < 2) std::printf("    %s 0x%04x: CUDA 0x%x, warpsim 0x%x\n", p.name, h, want, got);
    }
    std::printf("%-34s %u mismatches of 65536 values\n", p.name, bad);
    failures += bad;
  }
  uint32_t bad_halves = 0;  // half.h's half_to_float (MMA fragments) against __half2float
  for (uint32_t h = 0; h < 65536; ++h) {
    const float want = __half2float(__half_raw{static_cast<unsigned short>(h)}), got = warpsim::half_to_float(static_cast<uint16_t>(h));
    uint32_t wb, gb;
    std::memcpy(&wb, &want, 4);
    std::memcpy(&gb, &got, 4);
    if (wb != gb && !(want != want && got != got)) ++bad_halves;
  }
  std::printf("%-34s %u mismatches of 65536 values\n", "f16 -> f32, half.h (__half2float)", bad_halves);
  failures += bad_halves;
  uint32_t bad_codes = 0;
  for (uint32_t code = 0; code < 256; ++code)
    if (__nv_cvt_e8m0_to_bf16raw(code).x != ptx::bf16_of_ue8m0(code)) ++bad_codes;
  std::printf("%-34s %u mismatches of 256 codes\n", "ue8m0 -> bf16", bad_codes);
  failures += bad_codes;
  for (const auto& c : checks) {
    std::printf("%-34s %llu mismatches of %zu inputs\n", c.name, static_cast<unsigned long long>(c.mismatches), inputs.size());
    for (size_t i = 0; i < c.examples.size(); i += 3)
      std::printf("    input 0x%08x: CUDA 0x%x, warpsim 0x%x\n", c.examples[i], c.examples[i + 1], c.examples[i + 2]);
    failures += c.mismatches;
  }
  for (const auto& d : decodes) {
    uint32_t bad = 0;
    for (uint32_t code = 0; code < d.codes; ++code) {
      const uint16_t want = d.cuda(code);
      const uint16_t got = static_cast<uint16_t>(ptx::encode_float(ptx::decode_float(code, d.format), f16, R::kNearestEven, false));
      const bool both_nan = (want & 0x7c00) == 0x7c00 && (want & 0x3ff) && (got & 0x7c00) == 0x7c00 && (got & 0x3ff);
      if (want != got && !both_nan) {
        if (bad++ < 4) std::printf("    %s code 0x%x: CUDA 0x%04x, warpsim 0x%04x\n", d.name, code, want, got);
      }
    }
    std::printf("%-34s %u mismatches of %u codes\n", d.name, bad, d.codes);
    failures += bad;
  }
  std::printf("%llu conversions compared; %s\n", static_cast<unsigned long long>(compared), failures ? "MISMATCHES" : "all equal");
  return failures ? 1 : 0;
}
