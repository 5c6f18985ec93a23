// Kernels run from their SASS: the instruction counts the H200 measured (Nsight Compute's
// smsp__inst_executed.sum, in the committed profile), the PTX emulator as the oracle of every
// shipped launch file's results, and the --isa choices and their errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "support/test_support.h"

namespace warpsim {
namespace {

uint64_t warp_instructions(const std::vector<std::string>& args) {
  const auto r = test::run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  const std::regex count(R"((?:warp instructions +|functional run \(no timing\): )([0-9]+))");
  EXPECT_TRUE(std::regex_search(r.out, m, count)) << r.out;
  return m.empty() ? 0 : std::stoull(m[1]);
}

// The counts come from NVIDIA_H200-20261204-1333.ncu.csv (the H200 ran harness.cu built for
// sm_90a, whose SASS for these kernels is the committed listing's, word for word): what the GPU
// issued, against what warpsim's SASS run issues. The PTX ran 254,976 and 1,072,900.
TEST(SassRun, IssuesTheInstructionsTheH200Counted) {
  auto issued = [](const std::string& launch) {
    return warp_instructions({"run", "--arch", "h200", "--isa", "sass", "--functional", test::source_path(launch)});
  };
  EXPECT_EQ(issued("traces/kernels/reduce_sum.launch.yaml"), 266240u);
  EXPECT_EQ(issued("tools/validation/launch/diverge_1paths.launch.yaml"), 1653696u);
  EXPECT_EQ(issued("tools/validation/launch/shared_no_conflict.launch.yaml"), 2720256u);
  // Divergent regions: each group that reaches a BSYNC issues it, so the region of diverge_paths
  // that splits each warp in two issues its BSYNC twice, and lane_trips' loop, which the lanes
  // leave in 16 groups, issues its BSYNC 16 times (one BSYNC per region: 1,797,312 and 436,128).
  EXPECT_EQ(issued("tools/validation/launch/diverge_2paths.launch.yaml"), 1814208u);
  EXPECT_EQ(issued("tools/validation/launch/lane_trips.launch.yaml"), 453024u);
  // Transaction barriers and bulk copies (SYNCS, UBLKCP), issued as the GPU counted them.
  EXPECT_EQ(issued("traces/kernels/bulk_copy.launch.yaml"), 19360u);
  EXPECT_EQ(issued("traces/kernels/bulk_store.launch.yaml"), 888u);
  // Clusters: the cluster barrier (UCGABAR), distributed shared memory by CTA rank, and stores
  // that complete on another CTA's mbarrier (STAS).
  EXPECT_EQ(issued("traces/kernels/cluster_exchange.launch.yaml"), 4288u);
  EXPECT_EQ(issued("traces/kernels/async_store_ring.launch.yaml"), 3104u);
  // Tensor copies with multicast into a cluster (UTMALDG.2D.MULTICAST), the map a
  // __grid_constant__ parameter placed where the listing says (EIATTR_KPARAM_INFO).
  EXPECT_EQ(issued("traces/kernels/tma_multicast.launch.yaml"), 14512u);
}

// Where ptxas's SASS computes something else than the PTX ISA says, the SASS run computes what
// the GPU did: mma_sparse_e4m3 (sparse FP8 MMA, sm_90a) failed its reference on the H200 with
// d[0] = 0.145479292 for 0.290967792 (NVIDIA_H200-20261204-1333.json), and so does its listing
// here. The launch file pins the PTX for --isa auto, saying so.
TEST(SassRun, ReproducesTheH200sSparseFp8Result) {
  test::TempDir dir;
  const std::string launch = test::source_path("traces/kernels/mma_sparse_e4m3.launch.yaml");
  auto r = test::run_cli({"run", "--arch", "h100", "--isa", "sass", launch, "--dump-dir", dir.path(""), "-q"});
  EXPECT_NE(r.exit_code, 0);  // the reference check fails, as it did on the GPU
  const std::string bytes = test::read_file(dir.path("d.bin"));
  ASSERT_GE(bytes.size(), 4u);
  float d0;
  std::memcpy(&d0, bytes.data(), 4);
  EXPECT_NEAR(d0, 0.145479292f, 1e-6f);
  r = test::run_cli({"run", "--arch", "h100", launch});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("mma_sparse_e4m3: running the PTX: the launch file says `isa: ptx`"), std::string::npos) << r.err;
}

// Per pipe, as Nsight Compute counted on the H200 (sm__inst_executed_pipe_*, same profile): the
// SASS opcodes' own pipes (frontend/sass/sass_pipes.cpp), HFMA2.MMA on the tensor pipe, VIADD
// and IMAD.MOV on the FMA pipe, per-thread S2Rs, shared accesses and LDGDEPBAR on the LSU.
TEST(SassRun, CountsEachPipeAsTheH200Did) {
  struct Expected {
    std::string launch;
    std::map<std::string, double> pipes;
  };
  const std::vector<Expected> cases = {
      {"traces/kernels/attention_mma.launch.yaml", {{"alu", 13232}, {"fma", 16256}, {"lsu", 4304}, {"xu", 3200}, {"tensor", 4096}}},
      {"traces/kernels/softmax.launch.yaml", {{"alu", 6208}, {"fma", 8576}, {"lsu", 2752}, {"xu", 2048}, {"tensor", 128}}},
      {"tools/validation/launch/fp64_throughput.launch.yaml", {{"alu", 42240}, {"fma", 44352}, {"lsu", 4224}, {"xu", 0}, {"tensor", 2112}}},
  };
  for (const Expected& c : cases) {
    const auto r = test::run_cli({"run", "--arch", "h200", "--isa", "sass", test::source_path(c.launch), "-q", "--json", "-"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json metrics = nlohmann::json::parse(r.out)["kernels"][0]["metrics"];
    for (const auto& [pipe, count] : c.pipes)
      EXPECT_EQ(metrics["sm__inst_executed_pipe_" + pipe + ".sum"]["value"].get<double>(), count) << c.launch << " " << pipe;
  }
}

// Every shipped launch file whose SASS the emulator runs passes its reference from the SASS
// (EveryShippedKernel runs them with the default, SASS where it runs) and computes what the PTX
// computes: buffers checked exactly are equal bit for bit. The launch files whose SASS uses an
// instruction the emulator does not run yet are listed, so that one more (or fewer) shows here;
// those for a newer GPU than `arch` are left out.
void agrees_with_the_ptx_run_on_every_shipped_kernel(const std::string& arch, const std::set<std::string>& ptx_only) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(test::source_path("traces/kernels")))
    if (e.path().string().ends_with(".launch.yaml")) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
#ifdef WARPSIM_SANITIZED
  files.resize(std::min<size_t>(files.size(), 12));  // a sample under the sanitizers
#endif
  std::set<std::string> fell_back, pinned;
  for (const std::string& f : files) {
    const std::string name = fs::path(f).filename().string().substr(0, fs::path(f).filename().string().find('.'));
    // A launch file whose SASS is known to compute something else than the PTX ISA says keeps
    // the PTX (`isa: ptx`, with the measurement in its comment; ReproducesTheH200sSparseFp8Result).
    if (test::read_file(f).find("\nisa: ptx\n") != std::string::npos) {
      pinned.insert(name);
      continue;
    }
    test::TempDir dir;
    const auto sass = test::run_cli({"run", "--arch", arch, "--isa", "sass", "--functional", f, "--dump-dir", dir.path("sass"), "--json", dir.path("s.json")});
    if (sass.exit_code == 3 && sass.err.find("this kernel needs compute capability") != std::string::npos) continue;
    if (sass.exit_code == 3) {
      fell_back.insert(name);
      continue;
    }
    EXPECT_EQ(sass.exit_code, 0) << name << "\n" << sass.err;
    const auto ptx = test::run_cli({"run", "--arch", arch, "--isa", "ptx", "--functional", f, "--dump-dir", dir.path("ptx")});
    ASSERT_EQ(ptx.exit_code, 0) << name << "\n" << ptx.err;
    EXPECT_NE(sass.out.find("isa: sass"), std::string::npos) << name;
    EXPECT_NE(sass.out.find("check: passed"), std::string::npos) << name << "\n" << sass.out;
    // Exactly checked buffers (no tolerance in the launch file) agree bit for bit.
    std::smatch m;
    std::string rest = sass.out;
    const std::regex exact(R"(\n  ([A-Za-z0-9_]+): [0-9]+ elements match \(rtol 0, atol 0;)");
    while (std::regex_search(rest, m, exact)) {
      const std::string buffer = m[1];
      if (fs::exists(dir.path("ptx/" + buffer + ".bin"))) {
        EXPECT_EQ(test::read_file(dir.path("sass/" + buffer + ".bin")), test::read_file(dir.path("ptx/" + buffer + ".bin"))) << name << " " << buffer;
      }
      rest = m.suffix();
    }
  }
#ifndef WARPSIM_SANITIZED
  EXPECT_EQ(pinned, std::set<std::string>{"mma_sparse_e4m3"});
  std::set<std::string> unexpected;
  for (const auto& n : fell_back)
    if (!ptx_only.count(n)) unexpected.insert(n);
  EXPECT_TRUE(unexpected.empty()) << "now PTX only on " << arch << ": " << *unexpected.begin();
  for (const auto& n : ptx_only) EXPECT_TRUE(fell_back.count(n)) << n << " runs from its SASS on " << arch << " now: take it off the list";
#endif
}

TEST(SassRun, AgreesWithThePtxRunOnEveryShippedKernelOnH100) {
  agrees_with_the_ptx_run_on_every_shipped_kernel("h100", {});
}

TEST(SassRun, AgreesWithThePtxRunOnEveryShippedKernelOnA100) {
  agrees_with_the_ptx_run_on_every_shipped_kernel("a100", {});
}

TEST(SassRun, IsaChoicesAndTheirErrors) {
  const std::string launch = test::source_path("traces/kernels/saxpy.launch.yaml");
  auto r = test::run_cli({"run", "--arch", "v100", "--isa", "sass", launch, "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no SASS for compute capability 7.0"), std::string::npos) << r.err;
  r = test::run_cli({"run", "--arch", "v100", launch});  // auto: the PTX, where no SASS exists
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("isa: ptx"), std::string::npos);
  EXPECT_EQ(test::run_cli({"run", "--arch", "a100", "--isa", "sideways", launch}).exit_code, 2);
  r = test::run_cli({"run", "--arch", "a100", "--isa", "sass", "--reconvergence", "stack", launch});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--reconvergence applies to PTX"), std::string::npos);
  r = test::run_cli({"run", "--arch", "a100", launch, "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["isa"][0], "sass");
  // An opcode the emulator does not run: a located error under --isa sass, one note and the PTX
  // under auto.
  test::TempDir dir;
  const std::string listing = test::read_file(test::source_path("traces/kernels/sass/saxpy.sm_80.sass"));
  const size_t at = listing.find("/*0010*/", listing.find(".text.saxpy"));
  ASSERT_NE(at, std::string::npos);
  const size_t end = listing.find(';', at);
  dir.write("odd.sass", listing.substr(0, at) + "/*0010*/ XMAD R2, R3, R4, R5 " + listing.substr(end));
  dir.write("k.launch.yaml", "sass: " + dir.path("odd.sass") + "\n" + test::shipped_launch("saxpy.launch.yaml"));
  r = test::run_cli({"run", "--arch", "a100", "--isa", "sass", dir.path("k.launch.yaml"), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(odd\.sass:[0-9]+:[0-9]+: the SASS emulator cannot run XMAD yet)"))) << r.err;
  r = test::run_cli({"run", "--arch", "a100", dir.path("k.launch.yaml")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(warpsim: note: [a-z_]+: running the PTX: .*odd\.sass:[0-9]+:[0-9]+: the SASS emulator cannot run XMAD)"))) << r.err;
  EXPECT_NE(r.out.find("isa: ptx"), std::string::npos);
}

// A call through a pointer that holds no function's address stops the run at the CALL, as the
// GPU's launch fails: function_pointers' SASS with the pointer's load replaced by a copy of the
// table's own address.
TEST(SassRun, ACallThroughAPointerToNoFunctionIsAFault) {
  test::TempDir dir;
  std::string listing = test::read_file(test::source_path("traces/kernels/sass/function_pointers.sm_90a.sass"));
  const std::string load = "LDG.E.64 R6, desc[UR36][R6.64] ;";
  const size_t at = listing.find(load);
  ASSERT_NE(at, std::string::npos);
  listing.replace(at, load.size(), "MOV R6, R6 ;");
  dir.write("fp.sass", listing);
  dir.write("k.launch.yaml", "sass: " + dir.path("fp.sass") + "\n" + test::shipped_launch("function_pointers.launch.yaml"));
  const auto r = test::run_cli({"run", "--arch", "h100", "--isa", "sass", dir.path("k.launch.yaml"), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(fp\.sass:[0-9]+:[0-9]+: indirect call to 0x[0-9a-f]+, which is not the address of a function)"))) << r.err;
}

// A listing that is not one (or names a kernel it lacks) is a located error at the listing's line.
TEST(SassRun, ABrokenListingIsALocatedError) {
  test::TempDir dir;
  std::string text = test::shipped_launch("saxpy.launch.yaml");
  const std::string listing = test::read_file(test::source_path("traces/kernels/sass/saxpy.sm_80.sass"));
  const size_t at = listing.find("/*0010*/", listing.find(".text.saxpy"));
  ASSERT_NE(at, std::string::npos);
  dir.write("bad.sass", listing.substr(0, at) + "/*0010*/ IMAD.WIDE R2, R3 Q R4 ; garbage\n" + listing.substr(at));
  dir.write("k.launch.yaml", "sass: " + dir.path("bad.sass") + "\n" + text);
  auto r = test::run_cli({"run", "--arch", "a100", "--isa", "sass", dir.path("k.launch.yaml"), "-q"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(bad\.sass:[0-9]+:[0-9]+: )"))) << r.err;
}

// The mbarrier's word as SASS handles it: ptxas's SYNCS.EXCH.64 of a fresh barrier's word runs
// (async_barrier passes from its SASS in AgreesWithThePtxRunOnEveryShippedKernel); any other
// word, or an arrive form the emulator does not know, is an error at the listing's line.
TEST(SassRun, MbarrierWordsItDoesNotModelAreLocatedErrors) {
  const std::string listing = test::read_file(test::source_path("traces/kernels/sass/async_barrier.sm_90a.sass"));
  const std::string launch = test::shipped_launch("async_barrier.launch.yaml");
  struct Edit {
    std::string from, to, message;
  };
  for (const Edit& e : {Edit{"SYNCS.EXCH.64 URZ, [UR6], UR4", "SYNCS.EXCH.64 URZ, [UR6], UR8", "not a fresh barrier's word"},
                        Edit{"SYNCS.ARRIVE.TRANS64.A1T0", "SYNCS.ARRIVE.TRANS64.A2T0", "an arrive form the SASS emulator does not know"}}) {
    test::TempDir dir;
    const size_t at = listing.find(e.from);
    ASSERT_NE(at, std::string::npos) << e.from;
    const auto line = std::count(listing.begin(), listing.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
    dir.write("bad.sass", listing.substr(0, at) + e.to + listing.substr(at + e.from.size()));
    dir.write("k.launch.yaml", "sass: " + dir.path("bad.sass") + "\n" + launch);
    const auto r = test::run_cli({"run", "--arch", "h100", "--isa", "sass", dir.path("k.launch.yaml"), "-q"});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("bad.sass:" + std::to_string(line) + ":"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(e.message), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace warpsim
