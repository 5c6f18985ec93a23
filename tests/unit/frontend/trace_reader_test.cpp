// The trace reader: what a trace means, the round trip through the writer, gzip, and a clear
// file:line:col message for each kind of malformed input.
#include "frontend/trace/trace_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <sstream>

#include "common/error.h"
#include "frontend/trace/trace_writer.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using test::TempDir;

const char* const kSmall = R"(.version 1
# a comment
.kernel k1
.grid 2 1 1
.block 48 1 1
.shared 128
.regs 10
.cta 0 0 0
.warp 0
ld.global.f32 %f1, [%rd1]; addr=0x1000+4
0000ffff fma.rn.f32 %f2, %f1, %f1, %f3   # trailing comment
@%p1 st.global.f32 [%rd2], %f2; addr=0x2000+4
.warp 1
0000ffff ld.shared.v2.f32 {%f1,%f2}, [%r1]; addr=0x0,0x8,0x10,0x18,0x20,0x28,0x30,0x38,0x40,0x48,0x50,0x58,0x60,0x68,0x70,0x78
setp.lt.s32 %p1|%p2, %r1, 16
.cta 1 0 0
.warp 1
exit
.warp 0
)";

struct Read {
  std::shared_ptr<TraceWorkload> owner;  // owns the decoded opcodes the instructions point at
  KernelInfo info;
  std::vector<std::vector<std::vector<WarpInst>>> ctas;  // [cta][warp][inst]
  std::vector<std::vector<std::vector<std::vector<uint64_t>>>> addresses;
};

Read read_all(const std::string& path) {
  Read r;
  r.owner = std::make_shared<TraceWorkload>(path);
  TraceWorkload& w = *r.owner;
  auto k = w.next_kernel();
  r.info = k->info();
  // Keep the CTAs alive while collecting, as the timing model would.
  std::vector<std::unique_ptr<CtaWork>> keep;
  while (auto cta = k->next_cta()) {
    r.ctas.emplace_back();
    r.addresses.emplace_back();
    for (uint32_t i = 0; i < cta->num_warps(); ++i) {
      r.ctas.back().emplace_back();
      r.addresses.back().emplace_back();
      while (const WarpInst* in = cta->warp(i).next()) {
        r.ctas.back().back().push_back(*in);
        std::vector<uint64_t> a;
        in->for_each_address([&](int, uint64_t x) { a.push_back(x); });
        r.addresses.back().back().push_back(a);
      }
    }
    keep.push_back(std::move(cta));
  }
  keep.clear();
  k.reset();
  EXPECT_EQ(w.next_kernel(), nullptr);
  return r;
}

TEST(TraceReader, ReadsHeaderMasksRegistersAndAddresses) {
  TempDir dir;
  Read r = read_all(dir.write("small.trace", kSmall));
  EXPECT_EQ(r.info.name, "k1");
  EXPECT_EQ(r.info.grid, (Dim3{2, 1, 1}));
  EXPECT_EQ(r.info.block.x, 48u);
  EXPECT_EQ(r.info.shared_bytes, 128u);
  EXPECT_EQ(r.info.registers_per_thread, 10u);
  ASSERT_EQ(r.ctas.size(), 2u);
  ASSERT_EQ(r.ctas[0].size(), 2u);  // 48 threads = 2 warps
  const auto& w0 = r.ctas[0][0];
  ASSERT_EQ(w0.size(), 3u);
  EXPECT_EQ(w0[0].active_mask, 0xffffffffu);  // no mask given: all lanes of a full warp
  EXPECT_EQ(w0[0].num_dst, 1);
  EXPECT_EQ(w0[0].num_src, 1);
  EXPECT_EQ(r.addresses[0][0][0].size(), 32u);
  EXPECT_EQ(r.addresses[0][0][0][31], 0x1000u + 31 * 4);
  EXPECT_EQ(w0[1].active_mask, 0x0000ffffu);
  EXPECT_EQ(w0[1].num_src, 3);
  EXPECT_EQ(w0[2].num_src, 3);  // guard predicate, address register, data
  EXPECT_EQ(w0[2].num_dst, 0);
  const auto& w1 = r.ctas[0][1];
  EXPECT_EQ(w1[0].active_mask, 0x0000ffffu);  // warp 1 has 16 threads
  EXPECT_EQ(w1[0].num_dst, 2);
  EXPECT_EQ(r.addresses[0][1][0][15], 0x78u);
  EXPECT_EQ(w1[1].num_dst, 2);  // %p1|%p2
  EXPECT_EQ(w1[1].num_src, 1);  // the immediate is not a register
  EXPECT_EQ(w1[1].active_mask, 0x0000ffffu);
  EXPECT_TRUE(r.ctas[1][0].empty());
  EXPECT_EQ(r.ctas[1][1].size(), 1u);
  EXPECT_EQ(w0[1].line, 11u);
}

TEST(TraceReader, SpecialRegistersAreNotScoreboarded) {
  TempDir dir;
  Read r = read_all(dir.write("t.trace", test::kernel_header("k", 1, 32) + ".cta 0 0 0\n.warp 0\nmad.lo.s32 %r1, %ctaid.x, %ntid.x, %tid.x\n"));
  EXPECT_EQ(r.ctas[0][0][0].num_dst, 1);
  EXPECT_EQ(r.ctas[0][0][0].num_src, 0);
}

TEST(TraceReader, GzipReadsTheSameAsPlain) {
  TempDir dir;
  std::string gz = dir.path("small.trace.gz");
  gzFile f = gzopen(gz.c_str(), "wb");
  gzwrite(f, kSmall, static_cast<unsigned>(std::string(kSmall).size()));
  gzclose(f);
  Read a = read_all(dir.write("small.trace", kSmall)), b = read_all(gz);
  ASSERT_EQ(a.ctas.size(), b.ctas.size());
  EXPECT_EQ(a.addresses, b.addresses);
  EXPECT_EQ(a.ctas[0][0][1].active_mask, b.ctas[0][0][1].active_mask);
}

TEST(TraceWriter, RoundTripKeepsEveryInstruction) {
  TempDir dir;
  std::string first = dir.write("a.trace", kSmall);
  // Re-read with register names, write, read again: the instructions must be the same.
  TraceWorkload w(first);
  auto k = w.next_kernel();
  std::ostringstream out;
  TraceWriter writer(out);
  writer.begin_kernel(k->info());
  std::map<RegId, std::string> names;
  auto name_of = [&](RegId r) { return "%r" + std::to_string(r); };
  while (auto cta = k->next_cta()) {
    writer.begin_cta(cta->id());
    for (uint32_t i = 0; i < cta->num_warps(); ++i) {
      writer.begin_warp(i);
      while (const WarpInst* in = cta->warp(i).next()) writer.instruction(*in, k->info().full_mask(i), name_of);
    }
  }
  k.reset();
  Read a = read_all(first), b = read_all(dir.write("b.trace", out.str()));
  ASSERT_EQ(a.ctas.size(), b.ctas.size());
  EXPECT_EQ(a.addresses, b.addresses);
  for (size_t c = 0; c < a.ctas.size(); ++c) {
    for (size_t wi = 0; wi < a.ctas[c].size(); ++wi) {
      ASSERT_EQ(a.ctas[c][wi].size(), b.ctas[c][wi].size());
      for (size_t i = 0; i < a.ctas[c][wi].size(); ++i) {
        const auto &x = a.ctas[c][wi][i], &y = b.ctas[c][wi][i];
        EXPECT_EQ(x.op->mnemonic, y.op->mnemonic);
        EXPECT_EQ(x.active_mask, y.active_mask);
        EXPECT_EQ(x.num_dst, y.num_dst);
        EXPECT_EQ(x.num_src, y.num_src);
      }
    }
  }
}

TEST(TraceReader, ExampleTracesParse) {
  for (const char* f : {"divergence.trace", "fma_ilp.trace", "loop_trip_counts.trace", "shared_reduction.trace",
                        "vector_add.trace.gz", "tensor_mma.trace.gz", "fma_throughput.trace.gz"}) {
    SCOPED_TRACE(f);
    TraceWorkload w(test::source_path(std::string("traces/examples/") + f));
    int kernels = 0;
    while (auto k = w.next_kernel()) {
      ++kernels;
      while (auto cta = k->next_cta()) {
      }
    }
    EXPECT_GT(kernels, 0);
  }
}

// Each malformed input gives InputError at the right place with a message naming the problem.
struct BadCase {
  const char* name;
  std::string text;
  std::string location;  // ":line:col" (or ":line" for whole-kernel problems)
  std::string message;
};

std::string body(const std::string& lines, unsigned grid = 1, unsigned block = 32) {
  return test::kernel_header("k", grid, block) + ".cta 0 0 0\n.warp 0\n" + lines;
}

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class TraceErrors : public testing::TestWithParam<BadCase> {};

TEST_P(TraceErrors, ReportFileLineColumn) {
  const BadCase& c = GetParam();
  TempDir dir;
  std::string path = dir.write("bad.trace", c.text);
  try {
    TraceWorkload w(path);
    while (auto k = w.next_kernel())
      while (auto cta = k->next_cta()) {
      }
    ADD_FAILURE() << "no error for " << c.name;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + c.location), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
  }
}

// The header is 6 lines, ".cta" line 7, ".warp" line 8, so the first instruction is line 9.
INSTANTIATE_TEST_SUITE_P(
    Cases, TraceErrors,
    testing::Values(
        BadCase{"empty", "", ":1:1", "empty trace"},
        BadCase{"no version", ".kernel k\n", ":1:1", "expected '.version 1'"},
        BadCase{"bad version", ".version 7\n", ":1:10", "unsupported trace version '7'"},
        BadCase{"junk before kernel", ".version 1\nadd.f32 %f1, %f2, %f3\n", ":2:1", "expected .kernel NAME"},
        BadCase{"unknown kernel directive", ".version 1\n.kernel k\n.grod 1\n", ":3:1", "unknown kernel directive '.grod'"},
        BadCase{"missing grid", ".version 1\n.kernel k\n.block 32\n.cta 0 0 0\n", ":2:1", "has no .grid line"},
        BadCase{"bad number", ".version 1\n.kernel k\n.grid x\n", ":3:7", "expected grid dimension, got 'x'"},
        BadCase{"zero block", ".version 1\n.kernel k\n.grid 1\n.block 0\n", ":4:8", "out of range"},
        BadCase{"instruction before warp", test::kernel_header("k", 1, 32) + ".cta 0 0 0\nexit\n", ":8:1",
                "instruction before any .warp line"},
        BadCase{"unknown mnemonic", body("  frob.f32 %f1, %f2\n"), ":9:3", "unknown instruction 'frob'"},
        BadCase{"mask beyond the warp", body("ffffffff add.f32 %f1, %f2, %f3\n", 1, 16), ":9:1",
                "active mask ffffffff names lanes the warp does not have"},
        BadCase{"missing addresses", body("ld.global.f32 %f1, [%rd1]\n"), ":9:1", "needs '; addr=BASE+STRIDE'"},
        BadCase{"too few addresses", body("00000007 ld.global.f32 %f1, [%rd1]; addr=0x0,0x4\n"), ":9:42",
                "expected 3 addresses (one per active lane), got 2"},
        BadCase{"misaligned", body("ld.global.f32 %f1, [%rd1]; addr=0x2+4\n"), ":9:33", "multiples of the 4-byte access"},
        BadCase{"misaligned in list", body("00000003 ld.global.v2.f32 {%f1,%f2}, [%rd1]; addr=0x0,0xc\n"), ":9:55",
                "address 0xc is not aligned to the 8-byte access"},
        BadCase{"bad address", body("ld.global.f32 %f1, [%rd1]; addr=0xzz+4\n"), ":9:33", "expected BASE+STRIDE"},
        BadCase{"bad stride", body("ld.global.f32 %f1, [%rd1]; addr=0x10+q\n"), ":9:37", "expected a stride"},
        BadCase{"address on arithmetic", body("add.f32 %f1, %f2, %f3; addr=0x0+4\n"), ":9:24", "does not access memory"},
        BadCase{"unknown annotation", body("add.f32 %f1, %f2, %f3; lat=4\n"), ":9:24", "unknown annotation 'lat=4'"},
        BadCase{"unbalanced", body("ld.global.v2.f32 {%f1,%f2, [%rd1]; addr=0x0+8\n"), ":9:", "unbalanced"},
        BadCase{"bad predicate", body("@p1 add.f32 %f1, %f2, %f3\n"), ":9:1", "expected a predicate"},
        BadCase{"cta outside grid", test::kernel_header("k", 1, 32) + ".cta 3 0 0\n", ":7:1", "CTA (3,0,0) lies outside the grid (1,1,1)"},
        BadCase{"duplicate cta", test::kernel_header("k", 2, 32) + ".cta 0 0 0\n.warp 0\n.cta 0 0 0\n.warp 0\n", ":9:1",
                "CTA (0,0,0) is listed twice"},
        BadCase{"missing warp", test::kernel_header("k", 1, 64) + ".cta 0 0 0\n.warp 0\n", ":7:1", "has no .warp 1"},
        BadCase{"duplicate warp", body(".warp 0\n"), ":9:7", "warp 0 is listed twice"},
        BadCase{"warp out of range", body(".warp 5\n"), ":9:7", "warp index 5 is out of range; expected 0 to 0"},
        BadCase{"too few ctas", test::kernel_header("k", 3, 32) + ".cta 0 0 0\n.warp 0\n", ":2:1",
                "has a grid of 3 CTAs but the trace lists 1"},
        BadCase{"directive in cta", body(".shared 5\n"), ":9:1", "unknown directive '.shared' inside a CTA"},
        BadCase{"trailing junk", test::kernel_header("k", 1, 32) + ".cta 0 0 0 7\n", ":7:12", "expected end of line"},
        BadCase{"kernel without name", ".version 1\n.kernel\n", ":2:8", "expected a kernel name after .kernel"},
        BadCase{"mask only", body("0000ffff\n"), ":9:9", "expected an instruction mnemonic"},
        BadCase{"addr twice", body("ld.global.f32 %f1, [%rd1]; addr=0x0+4 addr=0x0+4\n"), ":9:39", "addr= given twice"},
        BadCase{"bare percent", body("add.f32 %, %f2, %f3\n"), ":9:9", "expected a register name after '%'"},
        BadCase{"huge block", ".version 1\n.kernel k\n.grid 1\n.block 1024 1024\n", ":4:1", "expected at most 65536"},
        BadCase{"unknown top-level after kernel", test::kernel_header("k", 1, 32) + ".cta 0 0 0\n.warp 0\n.kernel k2\n.grid 1\n.block 32\nfoo\n", ":12:1",
                "unknown kernel directive 'foo'"}),
    [](const testing::TestParamInfo<BadCase>& i) {
      std::string n = i.param.name;
      for (char& ch : n)
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(TraceReader, TruncatedGzipIsAnErrorNotACrash) {
  TempDir dir;
  std::string gz = dir.path("t.trace.gz");
  std::string text = body(std::string(2000, '#') + "\nexit\n");
  gzFile f = gzopen(gz.c_str(), "wb");
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  std::string bytes = test::read_file(gz);
  std::string cut = dir.write("cut.trace.gz", bytes.substr(0, bytes.size() / 2));
  EXPECT_THROW(
      {
        TraceWorkload w(cut);
        while (auto k = w.next_kernel())
          while (auto cta = k->next_cta()) {
          }
      },
      InputError);
}

TEST(TraceReader, MissingFile) {
  try {
    TraceWorkload w("/nonexistent/x.trace");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.trace: cannot open trace"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace warpsim
