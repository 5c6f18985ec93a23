// tcgen05.ld/st of every shape: one warp stores lane t's columns c = 0..31 of tensor memory as
// t * 256 + c with .32x32b (thread t, lane t, register c: the plain layout), then reads them back
// with the shape under test; each register must hold the cell CUTLASS's SM100 copy traits put it
// at. The expectation is worked out here in CuTe's terms, as the traits state it (a thread's
// and a register's offsets as strides into the instruction's bits, W bits to a lane), not from
// the closed forms the emulator uses (tmem_fragment.h, as TVM's TIRx tabulates them): the two
// published readings of the PTX ISA's figures must agree.
#include <gtest/gtest.h>

#include "support/test_support.h"

namespace warpsim {
namespace {

struct Cell {
  uint32_t lane, column;
};

// Thread l's register r of `shape`.xN (split: 16x32bx2's immHalfSplitoff, in columns).
Cell cute_cell(const std::string& shape, uint32_t n, uint32_t l, uint32_t r, uint32_t split = 0) {
  uint32_t w = 0, bit = 0;  // bits per lane of the whole instruction; the register's first bit
  if (shape == "32x32b") {
    w = 32 * n, bit = w * l + 32 * r;
  } else if (shape == "16x64b") {  // threads (2,2,8):(8W,32,W), values (32,N):(1,64)
    w = 64 * n, bit = 8 * w * (l % 2) + 32 * (l / 2 % 2) + w * (l / 4) + 64 * r;
  } else if (shape == "16x128b") {  // threads (4,8):(32,W), values (32,2,N):(1,8W,128)
    w = 128 * n, bit = 32 * (l % 4) + w * (l / 4) + 8 * w * (r % 2) + 128 * (r / 2);
  } else if (shape == "16x256b") {  // threads (4,8):(64,W), values (64,2,N):(1,8W,256)
    w = 256 * n, bit = 64 * (l % 4) + w * (l / 4) + 32 * (r % 2) + 8 * w * (r / 2 % 2) + 256 * (r / 4);
  } else {  // 16x32bx2: threads (16,2):(W, split), values 32N:1
    w = 1024, bit = w * (l % 16) + 32 * split * (l / 16) + 32 * r;
  }
  return {bit / w, bit % w / 32};
}

// One warp: alloc 32 columns, store t * 256 + c into lane t's columns 0..31, run `access` (which
// leaves `regs` registers in %r40...), write them to out[t * 16 + i].
std::string tmem_kernel(const std::string& access, uint32_t regs) {
  std::string k = R"(.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<80>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 base;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, base;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r2], 32;
  bar.sync 0;
  ld.shared.u32 %r3, [%r2];
  shl.b32 %r4, %r1, 8;
)";
  std::string list;
  for (int c = 0; c < 32; ++c) {
    k += "  add.u32 %r" + std::to_string(5 + c) + ", %r4, " + std::to_string(c) + ";\n";
    list += (c ? ", %r" : "%r") + std::to_string(5 + c);
  }
  k += "  tcgen05.st.sync.aligned.32x32b.x32.b32 [%r3], {" + list + "};\n  tcgen05.wait::st.sync.aligned;\n";
  k += access + "  tcgen05.wait::ld.sync.aligned;\n  mul.wide.u32 %rd2, %r1, 64;\n  add.s64 %rd3, %rd1, %rd2;\n";
  for (uint32_t i = 0; i < regs; ++i) k += "  st.global.u32 [%rd3+" + std::to_string(4 * i) + "], %r" + std::to_string(40 + i) + ";\n";
  return k + "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 32;\n  ret;\n}\n";
}

std::string regs_list(uint32_t regs, uint32_t first = 40) {
  std::string s;
  for (uint32_t i = 0; i < regs; ++i) s += (i ? ", %r" : "{%r") + std::to_string(first + i);
  return s + "}";
}

// Runs the tmem_kernel on b200; out[t * 16 + i] for each thread t and register i < 16.
std::vector<uint32_t> run_tmem(test::TempDir& dir, const std::string& ptx, test::CliResult* result = nullptr) {
  dir.write("k.ptx", ptx);
  const std::string launch = "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [32]\n"
                             "args:\n  - {buffer: {name: out, elem: u32, count: 512}}\ndump: [out]\n";
  const auto r = test::run_cli({"run", "--arch", "b200", dir.write("k.launch.yaml", launch), "--dump-dir", dir.path(""), "-q"});
  if (result) *result = r;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? test::read_words(dir.path("out.bin")) : std::vector<uint32_t>{};
}

TEST(TmemFragments, EveryShapeReadsTheCellsCutlassTracesName) {
  struct Case {
    std::string shape;
    uint32_t n, regs, split;
  };
  const Case cases[] = {{"32x32b", 4, 4, 0},  {"16x64b", 4, 4, 0},    {"16x64b", 8, 8, 0},  {"16x128b", 2, 4, 0},
                        {"16x128b", 4, 8, 0}, {"16x256b", 1, 4, 0},   {"16x256b", 4, 16, 0}, {"16x32bx2", 4, 4, 4},
                        {"16x32bx2", 8, 8, 8}, {"16x32bx2", 2, 2, 11}};
  test::TempDir dir;
  for (const auto& c : cases) {
    const std::string split = c.shape == "16x32bx2" ? ", " + std::to_string(c.split) : "";
    const auto out = run_tmem(dir, tmem_kernel("  tcgen05.ld.sync.aligned." + c.shape + ".x" + std::to_string(c.n) + ".b32 " + regs_list(c.regs) +
                                         ", [%r3]" + split + ";\n",
                                     c.regs));
    ASSERT_EQ(out.size(), 512u) << c.shape;
    int wrong = 0;
    for (uint32_t t = 0; t < 32; ++t)
      for (uint32_t r = 0; r < c.regs; ++r) {
        const Cell at = cute_cell(c.shape, c.n, t, r, c.split);
        if (out[t * 16 + r] != at.lane * 256 + at.column && ++wrong < 4) {
          ADD_FAILURE() << c.shape << ".x" << c.n << ": thread " << t << " register " << r << " read lane " << out[t * 16 + r] / 256
                        << " column " << out[t * 16 + r] % 256 << ", expected lane " << at.lane << " column " << at.column;
        }
      }
    EXPECT_EQ(wrong, 0) << c.shape << ".x" << c.n;
  }
  // A few cells worked out by hand from the traits: 16x256b.x1 thread 5 register 2 is lane
  // 5/4 + 8 = 9, column 2 (5%4) = 2; 16x64b.x1 thread 3 is lane 8, column 1.
  EXPECT_EQ(cute_cell("16x256b", 1, 5, 2).lane, 9u);
  EXPECT_EQ(cute_cell("16x256b", 1, 5, 2).column, 2u);
  EXPECT_EQ(cute_cell("16x64b", 1, 3, 0).lane, 8u);
  EXPECT_EQ(cute_cell("16x64b", 1, 3, 0).column, 1u);
}

// A 16-lane shape reaches the upper half of the warp's lanes through the address's lane field.
TEST(TmemFragments, TheAddressSelectsTheUpperSixteenLanes) {
  test::TempDir dir;
  const auto out = run_tmem(dir, tmem_kernel("  add.u32 %r38, %r3, 1048576;\n  tcgen05.ld.sync.aligned.16x256b.x1.b32 " + regs_list(4) + ", [%r38];\n", 4));
  ASSERT_EQ(out.size(), 512u);
  for (uint32_t t = 0; t < 32; ++t)
    for (uint32_t r = 0; r < 4; ++r) {
      const Cell at = cute_cell("16x256b", 1, t, r);
      EXPECT_EQ(out[t * 16 + r], (16 + at.lane) * 256 + at.column) << t << " " << r;
    }
  // Lane 16 + 16 is warp 1's: a fault naming the lanes warp 0 may reach.
  dir.write("k.ptx", tmem_kernel("  add.u32 %r38, %r3, 1572864;\n  tcgen05.ld.sync.aligned.16x256b.x1.b32 " + regs_list(4) + ", [%r38];\n", 4));
  const auto r = test::run_cli({"run", "--arch", "b200", dir.path("k.launch.yaml"), "-q"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("warp 0 may reach tensor memory lanes 0-31 only, not lane 32"), std::string::npos) << r.err;
}

// .pack::16b: each register takes the low halves of two adjacent columns (the lower column in
// the low half); .unpack::16b stores a register's halves into the low halves of two columns.
TEST(TmemFragments, PackingJoinsTheLowHalvesOfAdjacentColumns) {
  test::TempDir dir;
  auto out = run_tmem(dir, tmem_kernel("  tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 " + regs_list(2) + ", [%r3];\n", 2));
  ASSERT_EQ(out.size(), 512u);
  for (uint32_t t = 0; t < 32; ++t)
    for (uint32_t r = 0; r < 2; ++r) EXPECT_EQ(out[t * 16 + r], (t * 256 + 2 * r) | (t * 256 + 2 * r + 1) << 16) << t << " " << r;
  // 16x256b.x1 packed: register r's unpacked column c becomes columns 2c and 2c + 1.
  out = run_tmem(dir, tmem_kernel("  tcgen05.ld.sync.aligned.16x256b.x1.pack::16b.b32 " + regs_list(4) + ", [%r3];\n", 4));
  ASSERT_EQ(out.size(), 512u);
  for (uint32_t t = 0; t < 32; ++t)
    for (uint32_t r = 0; r < 4; ++r) {
      const Cell at = cute_cell("16x256b", 1, t, r);
      const uint32_t low = at.lane * 256 + 2 * at.column;
      EXPECT_EQ(out[t * 16 + r], low | (low + 1) << 16) << t << " " << r;
    }
  // Unpacked store of 0xBBBBAAAA-like words into columns 20-21, read back plainly: the halves
  // land in the two columns' low halves, the upper halves zero.
  out = run_tmem(dir, tmem_kernel("  add.u32 %r38, %r3, 20;\n  mul.lo.u32 %r39, %r1, 65537;\n"
                        "  tcgen05.st.sync.aligned.32x32b.x1.unpack::16b.b32 [%r38], {%r39};\n  tcgen05.wait::st.sync.aligned;\n"
                        "  tcgen05.ld.sync.aligned.32x32b.x2.b32 " + regs_list(2) + ", [%r38];\n",
                        2));
  ASSERT_EQ(out.size(), 512u);
  for (uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(out[t * 16], t) << t;
    EXPECT_EQ(out[t * 16 + 1], t) << t;
  }
}

TEST(TmemFragments, MisformedAccessesAreRefusedAtTheirLine) {
  test::TempDir dir;
  auto error = [&](const std::string& access) {
    dir.write("k.ptx", tmem_kernel(access, 0));
    dir.write("k.launch.yaml", "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [32]\nargs:\n  - {buffer: {name: out, elem: u32, count: 512}}\n");
    const auto r = test::run_cli({"run", "--arch", "b200", dir.path("k.launch.yaml"), "-q"});
    EXPECT_NE(r.exit_code, 0) << access;
    return r.err;
  };
  EXPECT_NE(error("  tcgen05.ld.sync.aligned.16x256b.x1.b32 " + regs_list(2) + ", [%r3];\n").find("expected {4 registers}, [taddr]"),
            std::string::npos);
  EXPECT_NE(error("  tcgen05.ld.sync.aligned.16x32bx2.x1.b32 " + regs_list(1) + ", [%r3];\n").find("[taddr], immHalfSplitoff"),
            std::string::npos);
  EXPECT_NE(error("  tcgen05.ld.sync.aligned.16x128b.x3.b32 " + regs_list(6) + ", [%r3];\n").find("expected .x1, .x2, .x4"), std::string::npos);
  EXPECT_NE(error("  tcgen05.st.sync.aligned.32x32b.x1.pack::16b.b32 [%r3], {%r40};\n").find("stores unpack"), std::string::npos);
  const std::string red = error("  tcgen05.ld.red.sync.aligned.32x32b.x2.min.u32 " + regs_list(2) + ", %r50, [%r3];\n");
  EXPECT_NE(red.find("k.ptx:"), std::string::npos) << red;
  EXPECT_NE(red.find("tcgen05.ld.red"), std::string::npos) << red;
}

}  // namespace
}  // namespace warpsim
