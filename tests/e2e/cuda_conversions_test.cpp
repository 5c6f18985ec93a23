// warpsim's float encodings against the host code of CUDA's own conversion headers
// (tools/conversions/compare_with_cuda.cu), over 2 M floats in its --quick mode. Needs nvcc (not
// a GPU); skipped where it is not installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "support/test_support.h"

namespace warpsim {
namespace {

TEST(CudaConversions, EveryEncodingMatchesCudasHostCode) {
  bool have_nvcc = false;
  for (const char* c : {"nvcc", "/usr/local/cuda/bin/nvcc"})
    have_nvcc |= std::system((std::string("command -v ") + c + " >/dev/null 2>&1").c_str()) == 0;
  if (!have_nvcc) GTEST_SKIP() << "nvcc is not installed here";
  test::TempDir dir;
  const std::string cmd = test::source_path("tools/conversions/compare_with_cuda.sh") + " --quick >" + dir.path("log") + " 2>&1";
  const int status = std::system(cmd.c_str());
  const std::string log = test::read_file(dir.path("log"));
  EXPECT_EQ(status, 0) << log;
  EXPECT_NE(log.find("all equal"), std::string::npos) << log;
}

}  // namespace
}  // namespace warpsim
