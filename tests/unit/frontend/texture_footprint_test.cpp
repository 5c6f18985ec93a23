// What a texture fetch reads, as the timing model sees it: a filtered fetch reads its texel and
// the next along x, and in 2D and 3D the same texels of the next row and slice; tld4 reads the
// same 2 x 2 footprint. Sector counts worked out from the texture's layout (rows of 64 4-byte
// texels, 256 bytes apart, 32-byte sectors).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace warpsim {
namespace {

using test::TempDir;

// Lane t fetches `fetch` (a tex or tld4 instruction text) with x = t + 0.5 in %f1, y = 5.5 in %f6
// and z = 2.5 in %f7; returns the sectors of texture fetches the run counted.
double fetch_sectors(const std::string& fetch, const std::string& texture) {
  TempDir dir;
  dir.write("k.ptx", R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 t, .param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  add.f32 %f1, %f1, 0f3F000000;
  mov.f32 %f6, 0f40B00000;
  mov.f32 %f7, 0f40200000;
  )" + fetch + R"(;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f2;
  ret;
}
)");
  const std::string file = dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nbuffers:\n"
                                                      "  img: {elem: f32, count: 16384}\n  out: {elem: f32, count: 32}\n"
                                                      "args:\n  - {texture: {buffer: img, elem: f32, " + texture + "}}\n  - {buffer: out}\n");
  const auto r = test::run_cli({"run", "--arch", "h100", file, "-q", "--json", "-"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out, nullptr, false);
  if (json.is_discarded()) return -1;
  return json["kernels"][0]["metrics"]["l1tex__t_sectors_pipe_tex_mem_texture.sum"]["value"].get<double>();
}

TEST(TextureFootprint, FilteredFetchesReadTheNextRowAndSliceToo) {
  const std::string tex2d = "tex.2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f1, %f6}]";
  const std::string tex3d = "tex.3d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f1, %f6, %f7, %f8}]";
  const std::string image = "dims: [64, 64], resource: array";
  // Point sampling: row 5, texels 0-31: 128 bytes at 1280, 4 sectors.
  EXPECT_EQ(fetch_sectors(tex2d, image), 4);
  // Filtering at y = 5.5 blends rows 5 and 6 (weights 1 and 0: both are read), texels 0-32 of
  // each: 132 bytes from a sector boundary, 5 sectors a row.
  EXPECT_EQ(fetch_sectors(tex2d, image + ", filter: linear"), 10);
  // tld4 gathers the same 2 x 2 footprint.
  EXPECT_EQ(fetch_sectors("tld4.r.2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd1, {%f1, %f6}]", image), 10);
  // 3D, 64 x 8 x 8 (slices of 8 rows, 2,048 bytes apart): rows 5 and 6 of slices 2 and 3.
  EXPECT_EQ(fetch_sectors(tex3d, "dims: [64, 8, 8], resource: array"), 4);
  EXPECT_EQ(fetch_sectors(tex3d, "dims: [64, 8, 8], resource: array, filter: linear"), 20);
}

// warpsim trace writes the footprint into the mnemonic (.texelN.rowN.sliceN), so a replay reads
// the same sectors; the suffixes belong to texture fetches only.
TEST(TextureFootprint, TheMnemonicCarriesTheFootprint) {
  auto sectors = [](const std::string& mnemonic) {
    const auto r = test::simulate_text("h100", test::kernel_header("k", 1, 32, 0) + ".cta 0 0 0\n.warp 0\n"
                                                   "ffffffff " + mnemonic + " {%f2,%f3,%f4,%f5}, %rd1, %f1, %f6; addr=0x10000500+4\nexit\n");
    return r.sum("gpu.sm[*].texture_load.sectors");
  };
  EXPECT_EQ(sectors("tex.2d.v4.f32.f32.texel8"), 5u);
  EXPECT_EQ(sectors("tex.2d.v4.f32.f32.texel8.row256"), 10u);
  EXPECT_EQ(sectors("tex.3d.v4.f32.f32.texel8.row256.slice2048"), 20u);
  // On anything but a fetch the suffixes are an error at their line, not ignored.
  try {
    test::simulate_text("h100", test::kernel_header("k", 1, 32, 0) + ".cta 0 0 0\n.warp 0\n"
                                    "ffffffff ld.global.f32.row256 %f1, %rd1; addr=0x10000500+4\nexit\n");
    ADD_FAILURE() << "a footprint on a global load was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("'.row256' gives a texture fetch's footprint (tex, tld4); 'ld.global.f32.row256' is not a fetch"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace warpsim
