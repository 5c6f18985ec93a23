// Texture and surface objects (texture_ops.cpp): fetches worked out by hand from the CUDA C++
// Programming Guide's "Texture Fetching" formulas (nearest point floor(x); linear filtering of
// floor(x - 0.5) and the next texel with the upper weight in 9-bit fixed point; normalized
// coordinates wrapped or mirrored, then scaled), the read modes, txq, the timing model's view,
// the checkers, and the errors for objects CUDA would refuse and instructions that misuse them.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace warpsim {
namespace {

using test::TempDir;

std::string bytes_of(const std::vector<float>& v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

std::vector<float> floats_of(const std::string& s) {
  std::vector<float> v(s.size() / 4);
  std::memcpy(v.data(), s.data(), v.size() * 4);
  return v;
}

const char* kTextureHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

// Thread t reads coordinate t and fetches it from four 1D textures; out[4t .. 4t + 3].
const char* kFourFetches = R"(.visible .entry k(.param .u64 t_lin, .param .u64 t_pt, .param .u64 t_wrap, .param .u64 t_mirror, .param .u64 coords, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<20>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [t_lin];
  ld.param.u64 %rd2, [t_pt];
  ld.param.u64 %rd3, [t_wrap];
  ld.param.u64 %rd4, [t_mirror];
  ld.param.u64 %rd5, [coords];
  ld.param.u64 %rd6, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd7, %r1, 4;
  add.s64 %rd8, %rd5, %rd7;
  ld.global.f32 %f1, [%rd8];
  tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f1}];
  tex.1d.v4.f32.f32 {%f6, %f7, %f8, %f9}, [%rd2, {%f1}];
  tex.1d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd3, {%f1}];
  tex.1d.v4.f32.f32 {%f14, %f15, %f16, %f17}, [%rd4, {%f1}];
  mul.wide.u32 %rd9, %r1, 16;
  add.s64 %rd10, %rd6, %rd9;
  st.global.v4.f32 [%rd10], {%f2, %f6, %f10, %f14};
  ret;
}
)";

TEST(Textures, FetchesFollowTheProgrammingGuidesFormulas) {
  TempDir dir;
  // Texels 10, 20, 30, 40. Coordinates: texel centres and edges, two just past a centre (1/1024
  // and 3/1024 of a texel: below and above half a step of the 8-bit weight), out of range both ways.
  const std::vector<float> coords = {1.0f, 2.25f, 0.0f, 1.5009765625f, 1.5029296875f, 10.0f, -0.1f, 1.3f};
  dir.write("coords.bin", bytes_of(coords));
  const std::string launch = std::string("ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [8]\nbuffers:\n") +
                             "  tex: {elem: f32, count: 4, init: {sequence: {start: 10, step: 10}}}\n"
                             "  coords: {elem: f32, count: 8, init: {file: " + dir.path("coords.bin") + "}}\n"
                             "  out: {elem: f32, count: 32}\n"
                             "args:\n"
                             "  - {texture: {buffer: tex, elem: f32, dims: [4], resource: array, filter: linear}}\n"
                             "  - {texture: {buffer: tex, elem: f32, dims: [4], resource: array}}\n"
                             "  - {texture: {buffer: tex, elem: f32, dims: [4], resource: array, normalized_coords: true, address: wrap}}\n"
                             "  - {texture: {buffer: tex, elem: f32, dims: [4], resource: array, normalized_coords: true, address: mirror}}\n"
                             "  - {buffer: coords}\n  - {buffer: out}\ndump: [out]\n";
  const auto out = floats_of(test::run_and_dump("a100", std::string(kTextureHeader) + kFourFetches, launch, "out"));
  ASSERT_EQ(out.size(), 32u);
  // Per coordinate: linear (clamp), point (clamp), point normalized wrap, point normalized mirror.
  // 1.3f is 1.29999995: linear weight 0.79999995 * 256 = 204.8 -> 205/256; mirrored 0.70000005 * 4 -> texel 2.
  const std::vector<std::vector<float>> expected = {
      {15, 20, 10, 40},           // 1.0: halfway between texels 0 and 1; mirror: 1.0 reflects to 1.0 * 4 -> index 4 -> texel 3
      {27.5f, 30, 20, 20},        // 2.25: 0.25 * 20 + 0.75 * 30; wrap and mirror 0.25 -> texel 1
      {10, 10, 10, 10},           // 0.0: texel -1 clamps to 0
      {20, 20, 30, 20},           // 1/1024 past a centre: the weight rounds to 0; wrap 0.50098 * 4 -> 2; mirror 0.49902 * 4 -> 1
      {20.0390625f, 20, 30, 20},  // 3/1024 past: the weight is 1/256, so 20 + 10/256
      {40, 40, 10, 10},           // 10.0: clamped to texel 3; wrap and mirror of an even integer -> 0
      {10, 10, 40, 10},           // -0.1: clamped; wrap 0.9 * 4 -> texel 3; mirror 0.1 * 4 -> texel 0
      {18.0078125f, 20, 20, 30},  // 1.3: 10 + 10 * 205/256
  };
  for (size_t t = 0; t < expected.size(); ++t)
    for (size_t k = 0; k < 4; ++k) EXPECT_EQ(out[4 * t + k], expected[t][k]) << "coordinate " << coords[t] << ", texture " << k;
}

TEST(Textures, NormalizedFloatAndElementReadsOfSignedBytes) {
  TempDir dir;
  dir.write("bytes.bin", std::string("\x80\x81\x00\x40\x7f", 5));
  const std::string ptx = std::string(kTextureHeader) + R"(.visible .entry k(.param .u64 t_norm, .param .u64 t_elem, .param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [t_norm];
  ld.param.u64 %rd2, [t_elem];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];
  tex.1d.v4.s32.s32 {%r2, %r3, %r4, %r5}, [%rd2, {%r1}];
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd3, %rd4;
  mov.b32 %r6, %f1;
  st.global.v2.b32 [%rd5], {%r6, %r2};
  ret;
}
)";
  const std::string launch = "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [6]\nbuffers:\n"
                             "  b: {elem: s8, count: 5, init: {file: " + dir.path("bytes.bin") + "}}\n"
                             "  out: {elem: u32, count: 12}\n"
                             "args:\n"
                             "  - {texture: {buffer: b, elem: s8, dims: [5], read: normalized_float}}\n"
                             "  - {texture: {buffer: b, elem: s8, dims: [5]}}\n"
                             "  - {buffer: out}\ndump: [out]\n";
  const std::string raw = test::run_and_dump("a100", ptx, launch, "out");
  ASSERT_EQ(raw.size(), 48u);
  std::vector<uint32_t> words(12);
  std::memcpy(words.data(), raw.data(), 48);
  // Signed bytes read as v / 127, the most negative as -1; as elements, sign-extended. Index 5 is
  // past the linear resource's end and reads zero.
  const std::vector<float> normalized = {-1.0f, -1.0f, 0.0f, static_cast<float>(64.0 / 127.0), 1.0f, 0.0f};
  const std::vector<int32_t> elements = {-128, -127, 0, 64, 127, 0};
  for (size_t t = 0; t < 6; ++t) {
    EXPECT_EQ(std::bit_cast<float>(words[2 * t]), normalized[t]) << t;
    EXPECT_EQ(static_cast<int32_t>(words[2 * t + 1]), elements[t]) << t;
  }
}

TEST(Textures, TxqReportsTheSize) {
  const std::string ptx = std::string(kTextureHeader) + R"(.visible .entry k(.param .u64 t2, .param .u64 t3, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [t2];
  ld.param.u64 %rd2, [t3];
  ld.param.u64 %rd3, [out];
  txq.width.b32 %r1, [%rd1];
  txq.height.b32 %r2, [%rd1];
  txq.depth.b32 %r3, [%rd2];
  txq.normalized_coords.b32 %r4, [%rd2];
  st.global.v4.b32 [%rd3], {%r1, %r2, %r3, %r4};
  ret;
}
)";
  const std::string launch = "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [1]\nbuffers:\n"
                             "  img: {elem: f32, count: 1000}\n  out: {elem: u32, count: 4}\n"
                             "args:\n"
                             "  - {texture: {buffer: img, elem: f32, dims: [40, 24]}}\n"
                             "  - {texture: {buffer: img, elem: f32, dims: [10, 6, 7], normalized_coords: true}}\n"
                             "  - {buffer: out}\ndump: [out]\n";
  const std::string raw = test::run_and_dump("a100", ptx, launch, "out");
  ASSERT_EQ(raw.size(), 16u);
  std::vector<uint32_t> words(4);
  std::memcpy(words.data(), raw.data(), 16);
  EXPECT_EQ(words, (std::vector<uint32_t>{40, 24, 7, 1}));
}

// A warp fetching 32 consecutive 16-byte texels (float4) moves 512 bytes: 16 sectors of 32 bytes
// through L1, as a 16-byte ld.global would; filtering adds the row's next texel to each lane.
TEST(Textures, TheTimingModelSeesEachLanesTexels) {
  TempDir dir;
  const std::string ptx = std::string(kTextureHeader) + R"(.visible .entry k(.param .u64 t, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  add.f32 %f1, %f1, 0f3F000000;
  tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f1}];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f2;
  ret;
}
)";
  dir.write("k.ptx", ptx);
  auto sectors = [&](const std::string& filter) {
    const std::string file = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nbuffers:\n"
                                                        "  img: {elem: f32, count: 256}\n  out: {elem: f32, count: 32}\n"
                                                        "args:\n  - {texture: {buffer: img, elem: f32, channels: 4, dims: [64], resource: array, filter: " +
                                                            filter + "}}\n  - {buffer: out}\n");
    const auto r = test::run_cli({"run", "--arch", "h100", file, "-q", "--json", "-"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto json = nlohmann::json::parse(r.out, nullptr, false);
    if (json.is_discarded()) return -1.0;
    // Counted as Nsight Compute counts fetches (pipe tex), apart from the kernel's global loads (none).
    EXPECT_EQ(json["kernels"][0]["metrics"]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]["value"].get<double>(), 0);
    EXPECT_EQ(json["kernels"][0]["metrics"]["l1tex__t_requests_pipe_tex_mem_texture.sum"]["value"].get<double>(), 1);
    return json["kernels"][0]["metrics"]["l1tex__t_sectors_pipe_tex_mem_texture.sum"]["value"].get<double>();
  };
  EXPECT_EQ(sectors("point"), 16);
  // Lane t fetches at x = t + 0.5: point sampling reads texel t; linear filtering blends texels t
  // and t + 1 (with weights 1 and 0: both are read), so the warp's texels 0..32 span 17 sectors.
  EXPECT_EQ(sectors("linear"), 17);
}

// warpsim trace writes each fetch with its footprint (.texelN bytes per lane; .rowN and .sliceN
// to a filtered fetch's next row and slice), and the trace replays to the direct run's statistics.
TEST(Textures, ATraceOfTheTextureKernelsReplaysToTheDirectRun) {
  TempDir dir;
  const auto r = test::run_and_replay("h100", test::source_path("traces/kernels/textures.launch.yaml"), dir);
  EXPECT_EQ(r.direct.rfind("error: ", 0), std::string::npos) << r.direct;
  EXPECT_EQ(r.direct, r.replay);
  // A filtered fetch: two f32 texels per lane, and the same of the next row (pitch 192 bytes).
  EXPECT_NE(r.trace.find("tex.2d.v4.f32.f32.texel8.row192 "), std::string::npos);
  EXPECT_NE(r.trace.find("tld4.r.2d.v4.f32.f32.texel8.row192 "), std::string::npos);  // a gather's 2 x 2 texels
  EXPECT_NE(r.trace.find("tex.3d.v4.f32.f32.texel8.row32.slice192 "), std::string::npos);  // 8 x 6 x 5 texels
}

// Surface loads and stores are counted as Nsight Compute counts them (pipe tex, surface), not as
// global loads and stores: a warp moving 32 consecutive 4-byte elements each way, 4 sectors each.
TEST(Textures, SurfaceAccessesAreCountedApartFromGlobalOnes) {
  TempDir dir;
  dir.write("k.ptx", std::string(kTextureHeader) + R"(.visible .entry k(.param .u64 from, .param .u64 to)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [from];
  ld.param.u64 %rd2, [to];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  suld.b.1d.b32.trap {%r3}, [%rd1, {%r2}];
  sust.b.1d.b32.trap [%rd2, {%r2}], {%r3};
  ret;
}
)");
  const std::string file = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nbuffers:\n"
                                                      "  a: {elem: f32, count: 32}\n  b: {elem: f32, count: 32}\n"
                                                      "args:\n  - {surface: {buffer: a, elem: f32, dims: [32]}}\n  - {surface: {buffer: b, elem: f32, dims: [32]}}\n");
  const auto r = test::run_cli({"run", "--arch", "h100", file, "-q", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(json.is_discarded());
  auto metric = [&](const std::string& name) { return json["kernels"][0]["metrics"][name]["value"].get<double>(); };
  EXPECT_EQ(metric("l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum"), 1);
  EXPECT_EQ(metric("l1tex__t_sectors_pipe_tex_mem_surface_op_ld.sum"), 4);
  EXPECT_EQ(metric("l1tex__t_requests_pipe_tex_mem_surface_op_st.sum"), 1);
  EXPECT_EQ(metric("l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum"), 4);
  EXPECT_EQ(metric("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), 0);
  EXPECT_EQ(metric("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), 0);
}

TEST(Textures, ATextureOverBytesNothingWroteIsReported) {
  TempDir dir;
  const std::string ptx = std::string(kTextureHeader) + R"(.visible .entry k(.param .u64 t, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, 3;
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];
  st.global.f32 [%rd2], %f1;
  ret;
}
)";
  dir.write("k.ptx", ptx);
  const std::string file = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [1]\nbuffers:\n"
                                                      "  img: {elem: f32, count: 8, init: none}\n  out: {elem: f32, count: 1}\n"
                                                      "args:\n  - {texture: {buffer: img, elem: f32, dims: [8]}}\n  - {buffer: out}\n");
  const auto r = test::run_cli({"run", "--arch", "a100", file, "-q"});
  EXPECT_EQ(r.exit_code, 6) << r.err;
  EXPECT_NE(r.err.find("k.ptx:12: thread (0,0,0) of CTA (0,0,0) reads byte 12 of buffer 'img', which nothing has written"), std::string::npos) << r.err;
}

// A texture or surface read of bytes the same kernel wrote returns undefined data (the caches are
// not kept coherent within a launch); a later launch reads them safely.
TEST(Textures, ReadingThroughATextureWhatTheSameKernelWroteIsReported) {
  TempDir dir;
  // k stores 2.0 at element `store` of `img` (through its pointer), then fetches element `at` through the texture.
  dir.write("k.ptx", std::string(kTextureHeader) + R"(.visible .entry k(.param .u64 t, .param .u64 img, .param .u64 out, .param .u32 at, .param .u32 store)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [img];
  ld.param.u64 %rd3, [out];
  ld.param.u32 %r1, [at];
  ld.param.u32 %r2, [store];
  mul.wide.u32 %rd4, %r2, 4;
  add.s64 %rd5, %rd2, %rd4;
  st.global.f32 [%rd5], 0f40000000;
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];
  st.global.f32 [%rd3], %f1;
  ret;
}
)");
  // Two launches, each given (at, store).
  auto run = [&](std::pair<int, int> first, std::pair<int, int> second) {
    const std::string launch = "ptx: k.ptx\nbuffers:\n  img: {elem: f32, count: 8}\n  out: {elem: f32, count: 1}\nlaunches:\n";
    std::string launches;
    for (const auto& [at, store] : {first, second}) {
      launches += "  - {kernel: k, grid: [1], block: [1], args: [{texture: {buffer: img, elem: f32, dims: [8]}}, {buffer: img}, {buffer: out}, "
                  "{scalar: u32, value: " + std::to_string(at) + "}, {scalar: u32, value: " + std::to_string(store) + "}]}\n";
    }
    return test::run_cli({"run", "--arch", "a100", dir.write("k.launch.yaml", launch + launches), "-q"});
  };
  // The first launch writes element 5 and fetches 4; the second fetches 5, which an earlier launch wrote: safe.
  const auto clean = run({4, 5}, {5, 0});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  const auto r = run({4, 0}, {5, 5});
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_NE(r.err.find("k.ptx:17: thread (0,0,0) of CTA (0,0,0) reads byte 20 of buffer 'img' through a texture object after this kernel wrote it "
                       "(the write at line 16)"),
            std::string::npos)
      << r.err;
}

// Objects the CUDA runtime would refuse to create are refused at their line in the launch file.
TEST(Textures, ObjectsCudaWouldRefuseAreLaunchFileErrors) {
  TempDir dir;
  dir.write("k.ptx", std::string(kTextureHeader) + ".visible .entry k(.param .u64 t)\n{\n  ret;\n}\n");
  auto refused = [&](const std::string& object, const std::string& message) {
    const std::string file = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [1]\nbuffers:\n"
                                                        "  b: {elem: u8, count: 4096}\nargs:\n  - " + object + "\n");
    const auto r = test::run_cli({"run", "--arch", "a100", file, "-q"});
    EXPECT_EQ(r.exit_code, 3) << object;
    EXPECT_NE(r.err.find(message), std::string::npos) << object << "\n" << r.err;
  };
  refused("{texture: {buffer: b, elem: u8, dims: [16, 16], filter: linear}}",
          "k.launch.yaml:8:61: linear filtering needs a texture that returns floats: f32 or f16 channels, or read: normalized_float");
  refused("{texture: {buffer: b, elem: f32, dims: [16, 16], address: wrap}}", "k.launch.yaml:8:63: wrap addressing needs normalized_coords: true");
  refused("{texture: {buffer: b, elem: f32, dims: [64, 32]}}", "the texture spans 8192 bytes; buffer 'b' has 4096");
  refused("{texture: {buffer: b, elem: u8, channels: 3, dims: [16]}}", "CUDA's channel formats have 1, 2 or 4 channels; not 3");
  refused("{texture: {buffer: b, elem: f32, dims: [16], read: normalized_float}}", "normalized_float reads 8- and 16-bit integer channels as floats");
  refused("{texture: {buffer: b, elem: f32, dims: [16], filter: linear}}", "a linear resource is read with tex1Dfetch");
  refused("{texture: {buffer: b, elem: f32, dims: [8, 8], pitch: 20}}", "the pitch must be a multiple of the texel's 4 bytes and at least a row's 32");
  refused("{texture: {buffer: b, elem: f32, dims: [4, 4], address: [clamp, bounce]}}", "unknown address mode 'bounce'");
  refused("{texture: {buffer: nope, elem: f32, dims: [4]}}", "no buffer 'nope'");
  refused("{surface: {buffer: b, elem: f32, dims: [4, 4], filter: linear}}", "filter");
}

// Layered textures (tex.a1d, tex.a2d; cudaArrayLayered): the first element of the coordinate
// vector picks the layer, the rest address a texel within it, and filtering stays inside the
// layer. The texels are their own indices: layer L of the 4 x 2 texture holds 8L .. 8L + 7.
TEST(Textures, LayeredFetchesPickTheirLayerAndFilterWithinIt) {
  TempDir dir;
  const std::string ptx = std::string(kTextureHeader) + R"(.visible .entry k(.param .u64 t_pt, .param .u64 t_lin, .param .u64 t_1d, .param .u64 layers, .param .u64 xy, .param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<20>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [t_pt];
  ld.param.u64 %rd2, [t_lin];
  ld.param.u64 %rd3, [t_1d];
  ld.param.u64 %rd4, [layers];
  ld.param.u64 %rd5, [xy];
  ld.param.u64 %rd6, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd7, %r1, 4;
  add.s64 %rd8, %rd4, %rd7;
  ld.global.u32 %r2, [%rd8];
  mul.wide.u32 %rd9, %r1, 8;
  add.s64 %rd10, %rd5, %rd9;
  ld.global.v2.f32 {%f1, %f2}, [%rd10];
  tex.a2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%r2, %f1, %f2, %f2}];
  tex.a2d.v4.f32.f32 {%f8, %f9, %f10, %f11}, [%rd2, {%r2, %f1, %f2, %f2}];
  tex.a1d.v4.f32.f32 {%f12, %f13, %f14, %f15}, [%rd3, {%r2, %f1}];
  txq.array_size.b32 %r3, [%rd1];
  cvt.rn.f32.u32 %f16, %r3;
  mul.wide.u32 %rd11, %r1, 16;
  add.s64 %rd12, %rd6, %rd11;
  st.global.v4.f32 [%rd12], {%f4, %f8, %f12, %f16};
  ret;
}
)";
  const uint32_t layer_of[4] = {1, 2, 0, 7};
  std::string layer_bytes(16, '\0');
  std::memcpy(layer_bytes.data(), layer_of, 16);
  dir.write("layers.bin", layer_bytes);
  dir.write("xy.bin", bytes_of({2.5f, 0.5f, 1.0f, 1.5f, 3.75f, 1.25f, 0.5f, 0.5f}));
  const std::string launch = "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [4]\nbuffers:\n"
                             "  img: {elem: f32, count: 24, init: {sequence: {start: 0, step: 1}}}\n"
                             "  layers: {elem: u32, count: 4, init: {file: " + dir.path("layers.bin") + "}}\n"
                             "  xy: {elem: f32, count: 8, init: {file: " + dir.path("xy.bin") + "}}\n"
                             "  out: {elem: f32, count: 16}\n"
                             "args:\n"
                             "  - {texture: {buffer: img, elem: f32, dims: [4, 2], layers: 3}}\n"
                             "  - {texture: {buffer: img, elem: f32, dims: [4, 2], layers: 3, filter: linear}}\n"
                             "  - {texture: {buffer: img, elem: f32, dims: [4], layers: 6, filter: linear}}\n"
                             "  - {buffer: layers}\n  - {buffer: xy}\n  - {buffer: out}\ndump: [out]\n";
  const std::string file = dir.write("k.launch.yaml", launch);
  dir.write("k.ptx", ptx);
  const auto r = test::run_cli({"run", "--arch", "a100", file, "--dump-dir", dir.path("d"), "--checks", "warn"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = floats_of(test::read_file(dir.path("d/out.bin")));
  ASSERT_EQ(out.size(), 16u);
  // Per thread: point a2d, linear a2d (clamp), linear a1d (the same bytes as six 4-texel layers), txq.array_size.
  const std::vector<std::vector<float>> expected = {
      {10, 10, 6, 3},        // layer 1, (2.5, 0.5): texel (2, 0) = 8 + 2, also when filtering at a centre; a1d layer 1 = 4..7: 6
      {21, 20.5f, 8.5f, 3},  // layer 2, (1, 1.5): texel (1, 1) = 21; filtered: halfway between 20 and 21 on row 1; a1d (8 + 9) / 2
      {7, 6, 3, 3},          // layer 0, (3.75, 1.25): texel (3, 1) = 7; filtered: x clamps at 3, rows 0 and 1 weighted 1/4, 3/4: 6
      {16, 16, 20, 3},       // layer 7 is past the last: read as layer 2 (a1d: 5) and reported
  };
  for (size_t t = 0; t < expected.size(); ++t)
    for (size_t k = 0; k < 4; ++k) EXPECT_EQ(out[4 * t + k], expected[t][k]) << "thread " << t << ", value " << k;
  EXPECT_NE(r.err.find("k.ptx:23: thread (3,0,0) of CTA (0,0,0) fetches layer 7 of a texture with 3 layers"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fetches layer 7 of a texture with 6 layers"), std::string::npos) << r.err;
  // A layered fetch from a flat texture, and the reverse, stop the run; layered objects CUDA
  // would refuse are launch-file errors.
  auto run = [&](const std::string& fetch, const std::string& object) {
    dir.write("m.ptx", std::string(kTextureHeader) + ".visible .entry k(.param .u64 t)\n{\n  .reg .b32 %r<4>;\n  .reg .f32 %f<8>;\n"
                                                     "  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [t];\n  mov.u32 %r1, 0;\n  mov.f32 %f1, 0f3F800000;\n" +
                           fetch + "  ret;\n}\n");
    return test::run_cli({"run", "--arch", "a100",
                          dir.write("m.launch.yaml", "ptx: m.ptx\nkernel: k\ngrid: [1]\nblock: [1]\nbuffers:\n  b: {elem: f32, count: 64}\nargs:\n  - " +
                                                         object + "\n"),
                          "-q"});
  };
  const std::string a2d = "  tex.a2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%r1, %f1, %f1, %f1}];\n";
  auto flat = run(a2d, "{texture: {buffer: b, elem: f32, dims: [4, 4]}}");
  EXPECT_NE(flat.err.find("m.ptx:12:1: a layered fetch (tex.a2d) from a texture that is not layered"), std::string::npos) << flat.err;
  auto layered = run("  tex.2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f1, %f1}];\n", "{texture: {buffer: b, elem: f32, dims: [4, 4], layers: 2}}");
  EXPECT_NE(layered.err.find("a 2D fetch from a layered texture (use tex.a2d)"), std::string::npos) << layered.err;
  EXPECT_NE(run(a2d, "{texture: {buffer: b, elem: f32, dims: [4, 4], layers: 5}}").err.find("the texture spans 320 bytes; buffer 'b' has 256"),
            std::string::npos);
  EXPECT_NE(run(a2d, "{texture: {buffer: b, elem: f32, dims: [4, 4], layers: 2, resource: pitch2d}}").err.find("a layered texture is a CUDA array"),
            std::string::npos);
  EXPECT_NE(run(a2d, "{texture: {buffer: b, elem: f32, dims: [2, 2, 2], layers: 2}}").err.find("layered textures are 1D or 2D"), std::string::npos);
  EXPECT_NE(run(a2d, "{surface: {buffer: b, elem: f32, dims: [4, 4], layers: 2}}").err.find("layered surfaces are not modelled"), std::string::npos);
}

// Instructions that misuse an object stop the run at their line; forms not modelled are refused
// when the PTX is lowered.
TEST(Textures, MisusedObjectsAndUnmodelledFormsAreClearErrors) {
  TempDir dir;
  auto run = [&](const std::string& body, const std::string& args) {
    dir.write("k.ptx", std::string(kTextureHeader) + ".visible .entry k(.param .u64 t)\n{\n  .reg .b32 %r<8>;\n  .reg .f32 %f<8>;\n"
                                              "  .reg .b64 %rd<4>;\n  ld.param.u64 %rd1, [t];\n  mov.u32 %r1, 1;\n  mov.f32 %f1, 0f3F800000;\n" +
                                              body + "  ret;\n}\n");
    const std::string file = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [1]\nbuffers:\n"
                                                        "  b: {elem: f32, count: 64}\nargs:\n  - " + args + "\n");
    return test::run_cli({"run", "--arch", "a100", file, "-q"});
  };
  auto expect_error = [&](const test::CliResult& r, const std::string& message) {
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  };
  const std::string texture = "{texture: {buffer: b, elem: f32, dims: [8, 8]}}", surface = "{surface: {buffer: b, elem: f32, dims: [8, 8]}}";
  expect_error(run("  tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1}];\n", texture), "k.ptx:12:1: a 1D fetch from a 2D texture by thread (0,0,0) of CTA (0,0,0)");
  expect_error(run("  tex.2d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f1}];\n", texture),
               "a .s32 fetch from a texture that returns floats (use .f32)");
  expect_error(run("  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f1}];\n", "{buffer: b}"), "is not one a launch file's texture: argument made");
  expect_error(run("  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f1}];\n", surface), "is a surface object; tex needs a texture object");
  expect_error(run("  mov.u32 %r2, 32;\n  suld.b.2d.b32.trap {%r3}, [%rd1, {%r2, %r1}];\n", surface),
               "surface access at (32 bytes, 1, 0) outside the 8x8x1 surface (.trap: the kernel stops, as cudaBoundaryModeTrap does)");
  expect_error(run("  suld.b.2d.b32.trap {%r3}, [%rd1, {%r1, %r1}];\n", surface), "surface byte offset x = 1 is not a multiple of the access's 4 bytes");
  expect_error(run("  tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f1, %f1, %f1}];\n", texture),
               "k.ptx:12:3: the emulator cannot run 'tex.cube.v4.f32.f32': cube-map and multisample textures are not modelled");
  expect_error(run("  suld.p.2d.v4.b32.trap {%r1, %r2, %r3, %r4}, [%rd1, {%r1, %r1}];\n", surface), "formatted surface accesses (.p) are not modelled");
  expect_error(run("  tex.2d.v4.f16.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f1}];\n", texture), "(.f16 results are not modelled)");
  // .zero reads zero outside and drops stores; .clamp moves to the edge: both run.
  EXPECT_EQ(run("  mov.u32 %r2, 400;\n  suld.b.2d.b32.zero {%r3}, [%rd1, {%r2, %r1}];\n  sust.b.2d.b32.zero [%rd1, {%r2, %r1}], {%r3};\n"
                "  suld.b.2d.b32.clamp {%r3}, [%rd1, {%r2, %r1}];\n",
                surface)
                .exit_code,
            0);
}

}  // namespace
}  // namespace warpsim
