// Which files a sweep point's run reads (what its result's digest covers), and the digest
// changing with any of their bytes and with nothing else.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.h"
#include "sweep/input_digest.h"

namespace warpsim {
namespace {

TEST(InputDigest, ALaunchFileReadsEveryPtxVariantAndTheFilesItNames) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.path("ptx"));
  for (const char* sm : {"75", "90", "100a"}) dir.write(std::string("ptx/k.sm_") + sm + ".ptx", sm);
  dir.write("ptx/k.sm_90.ptx.bak", "not a variant");
  dir.write("ptx/other.sm_90.ptx", "another kernel");
  const std::string launch = dir.write("k.launch.yaml",
                                       "ptx: ptx/k.sm_{sm}.ptx\nkernel: k\nargs:\n  - {buffer: {name: a, elem: f32, count: 4, init: {file: in.bin}}}\n"
                                       "expect:\n  a: {file: ref/a.bin}\n");
  const std::vector<std::string> expected{dir.path("in.bin"), dir.path("k.launch.yaml"), dir.path("ptx/k.sm_100a.ptx"), dir.path("ptx/k.sm_75.ptx"),
                                          dir.path("ptx/k.sm_90.ptx"), dir.path("ref/a.bin")};
  EXPECT_EQ(files_read_by(launch), expected);
}

TEST(InputDigest, AnAccelSimCommandListReadsItsKernelTraces) {
  test::TempDir dir;
  const std::string list = dir.write("kernelslist.g", "MemcpyHtoD,0x7f0000000000,64\nkernel-1.traceg\nkernel-2.traceg\r\nMemcpyDtoH,0x7f0000000000,64\n");
  EXPECT_EQ(files_read_by(list), (std::vector<std::string>{dir.path("kernel-1.traceg"), dir.path("kernel-2.traceg"), dir.path("kernelslist.g")}));
  EXPECT_EQ(files_read_by(dir.path("k.trace")), std::vector<std::string>{dir.path("k.trace")});
}

TEST(InputDigest, ChangesWithAnyByteOfAnyFileAndWhetherItExists) {
  test::TempDir dir;
  const std::string a = dir.write("a", "0123456789"), b = dir.write("b", "xyz");
  const std::string both = digest_files({a, b});
  EXPECT_EQ(digest_files({a, b}), both);
  EXPECT_EQ(both.size(), 16u);
  dir.write("b", "xyZ");
  EXPECT_NE(digest_files({a, b}), both);
  dir.write("b", "xyz");
  EXPECT_EQ(digest_files({a, b}), both);
  // Bytes moved from one file to the next are a different pair of files.
  dir.write("a", "012345678");
  dir.write("b", "9xyz");
  EXPECT_NE(digest_files({a, b}), both);
  std::filesystem::remove(b);
  const std::string missing = digest_files({a, b});
  dir.write("b", "");
  EXPECT_NE(digest_files({a, b}), missing);
}

}  // namespace
}  // namespace warpsim
