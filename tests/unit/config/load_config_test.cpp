// Shipped configs load and agree with their datasheets; extends and --set work; every config
// error names file:line:col and says what was expected.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/error.h"
#include "config/derived_peaks.h"
#include "config/load_config.h"
#include "support/test_support.h"

namespace warpsim {
namespace {

using test::TempDir;

const std::vector<std::string> kShipped = {"a100", "b200", "h100", "h200", "v100"};

TEST(ShippedConfigs, AllFiveAreListed) { EXPECT_EQ(shipped_config_names(), kShipped); }

TEST(ShippedConfigs, EachLoadsAndNamesItself) {
  for (const auto& name : kShipped) {
    SCOPED_TRACE(name);
    LoadedConfig c = load_gpu_config(name);
    EXPECT_EQ(c.spec.name, name);
    EXPECT_GT(c.spec.topology.sms, 0u);
  }
}

TEST(ShippedConfigs, DerivedPeaksMatchDatasheetWithin2PercentOrExplain) {
  for (const auto& name : kShipped) {
    LoadedConfig c = load_gpu_config(name);
    DerivedPeaks d = derive_peaks(c.spec);
    EXPECT_GE(d.checks.size(), 3u) << name << " should cite FP32, FP64 and HBM figures at least";
    for (const auto& ch : d.checks) {
      EXPECT_TRUE(ch.acceptable()) << name << " " << ch.what << ": derived " << ch.derived << " vs datasheet " << ch.datasheet;
    }
  }
}

TEST(ShippedConfigs, PeaksFollowFromUnitsAndClocks) {
  // A100: 108 SMs x 64 FP32 lanes x 2 FLOP x 1.41 GHz = 19.49 TFLOP/s (WP-A).
  DerivedPeaks d = derive_peaks(load_gpu_config("a100").spec);
  EXPECT_NEAR(d.fp32_tflops, 108 * 64 * 2 * 1.41e9 / 1e12, 1e-9);
  EXPECT_NEAR(d.hbm_tbps, 5120 / 8.0 * 3.186e9 / 1e12, 1e-9);
  EXPECT_NEAR(d.ridge_fp32, d.fp32_tflops / d.hbm_tbps, 1e-12);
}

TEST(ShippedConfigs, TensorPrecisionsPerGeneration) {
  EXPECT_TRUE(load_gpu_config("v100").spec.tensor.supports(TensorPrecision::kFp16));
  EXPECT_FALSE(load_gpu_config("v100").spec.tensor.supports(TensorPrecision::kBf16));
  EXPECT_FALSE(load_gpu_config("a100").spec.tensor.supports(TensorPrecision::kFp8));
  EXPECT_TRUE(load_gpu_config("h100").spec.tensor.supports(TensorPrecision::kFp8));
  EXPECT_FALSE(load_gpu_config("h100").spec.tensor.supports(TensorPrecision::kFp4));
  EXPECT_TRUE(load_gpu_config("b200").spec.tensor.supports(TensorPrecision::kFp4));
}

TEST(Extends, H200TakesH100AndChangesMemory) {
  GpuSpec h100 = load_gpu_config("h100").spec, h200 = load_gpu_config("h200").spec;
  EXPECT_EQ(h200.topology.sms, h100.topology.sms);
  EXPECT_EQ(h200.pipe(Pipe::kFma).lanes, h100.pipe(Pipe::kFma).lanes);
  EXPECT_EQ(h200.memory.hbm.type, "HBM3e");
  EXPECT_GT(h200.memory.hbm.peak_bytes_per_second(), h100.memory.hbm.peak_bytes_per_second());
  EXPECT_EQ(h200.name, "h200");
}

TEST(Overrides, SetChangesALeafAndTheResolvedTree) {
  LoadedConfig c = load_gpu_config("a100", {"memory.l2.size_kib=81920", "scheduler.policy=lrr"});
  EXPECT_EQ(c.spec.memory.l2.size_bytes, 81920ull * 1024);
  EXPECT_EQ(c.spec.scheduler, SchedulerPolicy::kLrr);
  EXPECT_EQ(c.resolved.find("memory")->find("l2")->find("size_kib")->scalar, "81920");
}

TEST(Overrides, SetTakesAListValue) {
  LoadedConfig c = load_gpu_config("a100", {"memory.l1.shared_carveouts_kib=[0, 64, 164]"});
  EXPECT_EQ(c.spec.memory.l1.shared_carveouts_bytes.size(), 3u);
}

void expect_error(const std::function<void()>& f, const std::string& location, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing '" << text << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(location), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(Overrides, UnknownKeyNamesTheArgumentAndTheKeyMeant) {
  expect_error([] { load_gpu_config("a100", {"memory.l2.sise_kib=1"}); }, "--set #1 'memory.l2.sise_kib=1'",
               "unknown key 'memory.l2.sise_kib' in section 'memory.l2'; did you mean 'size_kib'?");
  // Optional keys are suggested too, stated or not.
  expect_error([] { load_gpu_config("h100", {"memory.hbm.fetch_byte=64"}); }, "--set #1",
               "unknown key 'memory.hbm.fetch_byte' in section 'memory.hbm'; did you mean 'fetch_bytes'?");
  expect_error([] { load_gpu_config("a100", {"memory.l2.colour=1"}); }, "--set #1",
               "unknown key 'memory.l2.colour' in section 'memory.l2'; see docs/configs.md");
  // A section that does not exist is named with the ones that do.
  expect_error([] { load_gpu_config("a100", {"memory.l3.size_kib=1"}); }, "--set #1",
               "unknown key 'memory.l3'; expected one of: ");
}

// A key a config leaves at its default (h100.yaml states no memory.hbm.fetch_bytes: 32) can be
// set as any other.
TEST(Overrides, AKeyLeftAtItsDefaultCanBeSet) {
  const LoadedConfig plain = load_gpu_config("h100");
  ASSERT_EQ(plain.resolved.find_path("memory.hbm.fetch_bytes"), nullptr);
  EXPECT_EQ(plain.spec.memory.hbm.fetch_bytes, 32u);
  EXPECT_EQ(load_gpu_config("h100", {"memory.hbm.fetch_bytes=64"}).spec.memory.hbm.fetch_bytes, 64u);
  expect_error([] { load_gpu_config("h100", {"memory.hbm.fetch_bytes=48"}); }, "--set #1", "must be 32 or 64");
}

TEST(Overrides, SectionIsNotALeaf) {
  expect_error([] { load_gpu_config("a100", {"memory.l2=5"}); }, "--set #1", "is a section");
}

TEST(Overrides, MissingEqualsSign) {
  expect_error([] { load_gpu_config("a100", {"memory.l2.size_kib"}); }, "--set #1", "expected key.path=value");
}

TEST(Overrides, BadValueIsCheckedLikeTheFile) {
  expect_error([] { load_gpu_config("a100", {"topology.sms=many"}); }, "--set #1", "'topology.sms' must be an integer, got 'many'");
}

TEST(ConfigNames, UnknownNameListsShippedConfigs) {
  expect_error([] { load_gpu_config("a200"); }, "a200", "shipped configs are: a100, b200, h100, h200, v100");
}

// Copies a100.yaml with one edit and returns the expected "file:line:col" of the edited text.
struct Edited {
  std::string path;
  std::string location;
};
Edited edit_a100(const TempDir& dir, const std::string& find, const std::string& replace, size_t column_offset = 0) {
  std::string text = test::read_file(test::source_path("configs/a100.yaml"));
  size_t at = text.find(find);
  EXPECT_NE(at, std::string::npos) << find;
  text.replace(at, find.size(), replace);
  size_t line = std::count(text.begin(), text.begin() + static_cast<long>(at), '\n') + 1;
  size_t col = at - (text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1) + 1 + column_offset;
  std::string path = dir.write("edited.yaml", text);
  return {path, path + ":" + std::to_string(line) + ":" + std::to_string(col)};
}

TEST(ConfigErrors, UnknownKeyPointsAtTheKey) {
  TempDir dir;
  Edited e = edit_a100(dir, "  hit_latency: 36", "  hit_latncy: 36", 2);
  expect_error([&] { load_gpu_config(e.path); }, e.location, "unknown key 'memory.l1.hit_latncy'; did you mean 'hit_latency'?");
}

TEST(ConfigErrors, ExtraKeyIsRejected) {
  TempDir dir;
  Edited e = edit_a100(dir, "  hit_latency: 36", "  hit_latency: 36\n    prefetcher: none", 0);
  std::string loc = e.location.substr(0, e.location.rfind(':', e.location.rfind(':') - 1));
  int line = std::stoi(e.location.substr(loc.size() + 1)) + 1;
  expect_error([&] { load_gpu_config(e.path); }, loc + ":" + std::to_string(line) + ":5",
               "unknown key 'memory.l1.prefetcher' in section 'memory.l1'");
}

TEST(ConfigErrors, WrongTypePointsAtTheValue) {
  TempDir dir;
  Edited e = edit_a100(dir, "sms: 108", "sms: lots", 5);
  expect_error([&] { load_gpu_config(e.path); }, e.location, "'topology.sms' must be an integer, got 'lots'");
}

TEST(ConfigErrors, OutOfRangeSaysTheRange) {
  TempDir dir;
  Edited e = edit_a100(dir, "fma:    {lanes: 16", "fma:    {lanes: 64", 16);
  expect_error([&] { load_gpu_config(e.path); }, e.location, "'pipes.fma.lanes' = 64 is out of range; expected 1 to 32");
}

TEST(ConfigErrors, InconsistentThreadsAndWarps) {
  TempDir dir;
  Edited e = edit_a100(dir, "max_threads_per_sm: 2048", "max_threads_per_sm: 1024");
  expect_error([&] { load_gpu_config(e.path); }, e.path + ":", "max_threads_per_sm must equal limits.max_warps_per_sm x 32");
}

TEST(ConfigErrors, L2SizeMustFitItsGeometry) {
  TempDir dir;
  Edited e = edit_a100(dir, "size_kib: 40960", "size_kib: 40961", 10);
  expect_error([&] { load_gpu_config(e.path); }, e.location, "multiple of slices x associativity x line_bytes");
}

TEST(ConfigErrors, MissingKeyNamesIt) {
  TempDir dir;
  Edited e = edit_a100(dir, "  sub_partitions_per_sm: 4", "");
  expect_error([&] { load_gpu_config(e.path); }, e.path + ":", "missing required key 'topology.sub_partitions_per_sm'");
}

TEST(ConfigErrors, UnknownTensorPrecision) {
  TempDir dir;
  Edited e = edit_a100(dir, "    int4: 8192", "    int3: 8192", 4);
  expect_error([&] { load_gpu_config(e.path); }, e.location, "unknown tensor precision 'int3'");
}

TEST(ConfigErrors, DatasheetPrecisionTheTensorCoresLack) {
  TempDir dir;
  Edited e = edit_a100(dir, "    int4: {value: 1248", "    fp8: {value: 1248", 4);
  expect_error([&] { load_gpu_config(e.path); }, e.location, "datasheet lists tensor precision 'fp8'");
}

TEST(ConfigErrors, YamlSyntaxError) {
  TempDir dir;
  Edited e = edit_a100(dir, "  gpcs: 7 ", "  gpcs: [7 ");
  expect_error([&] { load_gpu_config(e.path); }, e.path + ":", "invalid YAML");
}

TEST(ConfigErrors, DuplicateKey) {
  TempDir dir;
  Edited e = edit_a100(dir, "  gpcs: 7 ", "  gpcs: 7\n  gpcs: 8 ", 0);
  expect_error([&] { load_gpu_config(e.path); }, e.path + ":", "duplicate key 'gpcs'");
}

TEST(ConfigErrors, BadChoice) {
  TempDir dir;
  Edited e = edit_a100(dir, "policy: gto", "policy: fifo", 8);
  expect_error([&] { load_gpu_config(e.path); }, e.location, "'scheduler.policy' = 'fifo' is not valid; expected one of: gto, lrr");
}

TEST(ConfigErrors, ExtendsCycleAndMissingParent) {
  TempDir dir;
  dir.write("x.yaml", "extends: y.yaml\nname: x\n");
  std::string y = dir.write("y.yaml", "extends: x.yaml\nname: y\n");
  expect_error([&] { load_gpu_config(y); }, dir.path("x.yaml") + ":1:10", "extends: cycle");
  std::string z = dir.write("z.yaml", "extends: nowhere.yaml\nname: z\n");
  expect_error([&] { load_gpu_config(z); }, z + ":1:10", "no config");
}

TEST(ConfigErrors, ChildMustNameItself) {
  TempDir dir;
  std::string child = dir.write("child.yaml", "extends: " + test::source_path("configs/h100.yaml") + "\nproduct: x\n");
  expect_error([&] { load_gpu_config(child); }, "", "'name' must be a value");
}

}  // namespace
}  // namespace warpsim

namespace warpsim {
namespace {

// More error paths, each as an edit of a100.yaml and the message it must produce.
struct ConfigCase {
  const char* name;
  const char* find;
  const char* replace;
  const char* message;
};

void PrintTo(const ConfigCase& c, std::ostream* os) { *os << c.name; }

class ConfigErrorTable : public testing::TestWithParam<ConfigCase> {};

TEST_P(ConfigErrorTable, NamesTheProblemAtItsFile) {
  const ConfigCase& c = GetParam();
  TempDir dir;
  Edited e = edit_a100(dir, c.find, c.replace);
  expect_error([&] { load_gpu_config(e.path); }, e.path + ":", c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ConfigErrorTable,
    testing::Values(
        ConfigCase{"section_not_map", "clocks:\n  boost_mhz: 1410", "clocks: 1410\nx:\n  boost_mhz: 1410", "'clocks' must be a map, got a scalar '1410'"},
        ConfigCase{"number_not_number", "data_rate_gtps: 3.186", "data_rate_gtps: fast", "'memory.hbm.data_rate_gtps' must be a number, got 'fast'"},
        ConfigCase{"number_out_of_range", "data_rate_gtps: 3.186", "data_rate_gtps: 1000", "'memory.hbm.data_rate_gtps' = 1000 is out of range"},
        ConfigCase{"list_of_words", "[0, 8, 16, 32, 64, 100, 132, 164]", "[zero, 8]", "'memory.l1.shared_carveouts_kib' must list integers"},
        ConfigCase{"list_not_list", "[0, 8, 16, 32, 64, 100, 132, 164]", "164", "'memory.l1.shared_carveouts_kib' must be a list"},
        ConfigCase{"empty_carveouts", "[0, 8, 16, 32, 64, 100, 132, 164]", "[]", "must list at least one size"},
        ConfigCase{"carveout_too_big", "[0, 8, 16, 32, 64, 100, 132, 164]", "[0, 8, 200]", "largest shared carve-out exceeds memory.l1.unified_kib"},
        ConfigCase{"l1_geometry", "associativity: 4       # assumed: not published; only", "associativity: 3  #", "is not a multiple of associativity x line_bytes"},
        ConfigCase{"sector_not_power_of_two", "sector_bytes: 32", "sector_bytes: 48", "must be powers of two"},
        ConfigCase{"sector_larger_than_line", "sector_bytes: 32", "sector_bytes: 256", "memory.line_bytes must be a multiple of memory.sector_bytes"},
        ConfigCase{"gpcs_more_than_tpcs", "gpcs: 7 ", "gpcs: 70 ", "topology: expected gpcs <= tpcs <= sms"},
        ConfigCase{"warps_not_divisible", "max_warps_per_sm: 64 ", "max_warps_per_sm: 66 ", "max_threads_per_sm must equal"},
        ConfigCase{"cta_shared_above_sm", "max_shared_per_cta_kib: 163", "max_shared_per_cta_kib: 165", "limits.max_shared_per_cta_kib exceeds limits.max_shared_per_sm_kib"},
        ConfigCase{"sm_shared_above_carveout", "max_shared_per_sm_kib: 164", "max_shared_per_sm_kib: 180", "limits.max_shared_per_sm_kib exceeds the largest"},
        ConfigCase{"slices_not_dividing", "partitions: 2 ", "partitions: 3 ", "memory.l2.slices must divide evenly into partitions"},
        ConfigCase{"datasheet_figure_missing_source", "{value: 19.5, source: \"WP-A Table 1\"}", "{value: 19.5}", "missing required key 'datasheet.fp32_tflops.source'"},
        ConfigCase{"key_not_plain", "name: a100", "[name]: a100", "map keys must be plain names"},
        ConfigCase{"extends_not_a_name", "name: a100", "extends: [h100]\nname: a100", "'extends' must name a config"},
        ConfigCase{"bad_mma_shape", "mma_shapes: [m8n8k4, ", "mma_shapes: [m8n8x4, ", "'tensor.mma_shapes' entry 'm8n8x4' is not a shape"},
        ConfigCase{"pipe_missing", "  branch: {lanes: 16, latency: 4}", "", "missing required key 'pipes.branch'"}),
    [](const testing::TestParamInfo<ConfigCase>& i) { return std::string(i.param.name); });

TEST(ConfigErrors, TopLevelMustBeAMap) {
  TempDir dir;
  std::string p = dir.write("list.yaml", "- 1\n- 2\n");
  expect_error([&] { load_gpu_config(p); }, p + ":1:1", "a GPU config must be a map of sections");
}

TEST(ConfigErrors, ClustersAndTensorClocksAreChecked) {
  TempDir dir;
  // A per-precision tensor clock for a precision the GPU lacks; clusters before Hopper.
  Edited e = edit_a100(dir, "  dense_flops_per_clk_per_sm:", "  clock_mhz: {fp8: 1500}\n  dense_flops_per_clk_per_sm:", 14);
  expect_error([&] { load_gpu_config(e.path); }, e.location, "tensor.clock_mhz names 'fp8', which tensor.dense_flops_per_clk_per_sm does not list");
  Edited c = edit_a100(dir, "datasheet:", "clusters: {max_portable_size: 8, max_size: 16, dsmem_latency: 180, dsmem_bytes_per_clk_per_sm: 32, "
                                           "barrier_latency: 180}\ndatasheet:");
  expect_error([&] { load_gpu_config(c.path); }, c.location, "clusters: thread-block clusters need compute capability 9.0 or later");
}

TEST(ConfigErrors, TensorBlockSumsAreChecked) {
  TempDir dir;
  Edited p = edit_a100(dir, "    tf32: {terms: 4, extra_bits: 1}", "    fp8: {terms: 4, extra_bits: 1}", 4);
  expect_error([&] { load_gpu_config(p.path); }, p.location, "tensor.block_sum names 'fp8', which tensor.dense_flops_per_clk_per_sm does not list");
  Edited i = edit_a100(dir, "    tf32: {terms: 4, extra_bits: 1}", "    int8: {terms: 4, extra_bits: 1}", 4);
  expect_error([&] { load_gpu_config(i.path); }, i.location, "tensor.block_sum is for floating-point inputs");
  Edited r = edit_a100(dir, "    tf32: {terms: 4, extra_bits: 1}", "    tf32: {terms: 4, extra_bits: 9}", 33);
  expect_error([&] { load_gpu_config(r.path); }, r.location, "'tensor.block_sum.tf32.extra_bits' = 9 is out of range; expected -22 to 8");
}

TEST(ShippedConfigs, TensorBlockSumsPerGeneration) {
  // Khattak and Mikaitis's models: 4, 8, 16 products per block from Volta to Hopper; Hopper's
  // FP8 path 13 fraction bits, Blackwell's full precision.
  auto sum = [](const char* name, TensorPrecision p) { return load_gpu_config(name).spec.tensor.block_sum[static_cast<int>(p)]; };
  EXPECT_EQ(sum("v100", TensorPrecision::kFp16).terms, 4u);
  EXPECT_EQ(sum("a100", TensorPrecision::kFp16).terms, 8u);
  EXPECT_EQ(sum("h100", TensorPrecision::kFp16).terms, 16u);
  EXPECT_EQ(sum("h200", TensorPrecision::kFp8).extra_bits, -10);  // through extends: h100
  EXPECT_EQ(sum("b200", TensorPrecision::kFp8).extra_bits, 2);
  EXPECT_EQ(sum("b200", TensorPrecision::kFp4).terms, 0u);  // not measured: IEEE arithmetic
}

TEST(ShippedConfigs, Fp64TensorMmasRunAtTheBoostClockOnHopperAndBlackwell) {
  for (const char* name : {"h100", "h200", "b200"}) {
    const GpuSpec s = load_gpu_config(name).spec;
    EXPECT_EQ(s.tensor_clock_mhz(TensorPrecision::kFp64), s.clocks.boost_mhz) << name;
    EXPECT_EQ(s.tensor_clock_mhz(TensorPrecision::kFp16), s.clocks.tensor_peak_mhz) << name;
    EXPECT_TRUE(s.clusters.supported()) << name;
  }
  EXPECT_FALSE(load_gpu_config("a100").spec.clusters.supported());
}

}  // namespace
}  // namespace warpsim
