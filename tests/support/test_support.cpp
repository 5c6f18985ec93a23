#include "support/test_support.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "frontend/accelsim/accelsim_workload.h"
#include "frontend/trace/trace_reader.h"

namespace warpsim::test {
namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "warpsim_test_XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& content) const {
  std::string p = path(name);
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

std::string source_path(const std::string& relative) { return std::string(WARPSIM_SOURCE_DIR) + "/" + relative; }

std::string shipped_launch(const std::string& name, const std::string& dir) {
  std::string text = read_file(source_path(dir + "/" + name));
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"ptx: ptx/", "ptx: " + source_path(dir + "/ptx/")},
                                 std::pair<std::string, std::string>{"file: ref/", "file: " + source_path(dir + "/ref/")}})
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

std::vector<uint32_t> read_words(const std::string& path) {
  const std::string bytes = read_file(path);
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {
std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
}  // namespace

CliResult run_cli(const std::vector<std::string>& args) {
  TempDir dir;
  std::string cmd = quote(WARPSIM_BINARY);
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " >" + quote(dir.path("out")) + " 2>" + quote(dir.path("err")) + " </dev/null";
  int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(dir.path("out"));
  r.err = read_file(dir.path("err"));
  return r;
}

Simulated simulate_file(const std::string& arch, const std::string& path, const std::vector<std::string>& sets,
                        const std::function<void(Gpu&)>& prepare) {
  Simulated s;
  s.config = load_gpu_config(arch, sets);
  s.gpu_spec = std::make_unique<GpuSpec>(s.config.spec);
  s.gpu = std::make_unique<Gpu>(*s.gpu_spec);
  // Every test simulating through here can run on several host threads: with this set, the whole
  // suite checks that they change no expectation (docs/performance.md#host-threads).
  if (const char* threads = std::getenv("WARPSIM_TEST_HOST_THREADS")) s.gpu->set_host_threads(static_cast<unsigned>(std::atoi(threads)));
  if (prepare) prepare(*s.gpu);
  std::unique_ptr<Workload> workload;
  if (AccelSimWorkload::accepts(path)) {
    workload = std::make_unique<AccelSimWorkload>(path);
  } else {
    workload = std::make_unique<TraceWorkload>(path);
  }
  s.runs = simulate(*s.gpu, *workload).kernels;
  for (const auto& r : s.runs) s.kernels.push_back(summarize_kernel(s.config.spec, s.gpu->stats(), r));
  s.total = summarize_run(s.config.spec, s.gpu->stats(), s.runs);
  return s;
}

Simulated simulate_text(const std::string& arch, const std::string& trace_text, const std::vector<std::string>& sets,
                        const std::function<void(Gpu&)>& prepare) {
  TempDir dir;
  return simulate_file(arch, dir.write("t.trace", trace_text), sets, prepare);
}

Replay run_and_replay(const std::string& arch, const std::string& launch, const TempDir& dir) {
  Replay r;
  auto summary = [&](const CliResult& run, const char* file) {
    if (run.exit_code != 0) return "error: " + run.err;
    const std::string json = read_file(dir.path(file));
    const size_t at = json.find("\"summary\"", json.find("\"kernels\""));
    return at == std::string::npos ? std::string("error: no kernel summary") : json.substr(at, 400);
  };
  auto t = run_cli({"trace", "--arch", arch, launch, "-o", dir.path("replay.trace")});
  if (t.exit_code != 0) {
    r.direct = r.replay = "error: " + t.err;
    return r;
  }
  r.trace = read_file(dir.path("replay.trace"));
  // warpsim trace records the PTX emulation: the direct run it must match is the PTX's.
  r.direct = summary(run_cli({"run", "--arch", arch, "--isa", "ptx", launch, "--json", dir.path("direct.json")}), "direct.json");
  r.replay = summary(run_cli({"run", "--arch", arch, dir.path("replay.trace"), "--json", dir.path("replay.json")}), "replay.json");
  return r;
}

std::string run_and_dump(const std::string& arch, const std::string& ptx, const std::string& launch, const std::string& buffer) {
  TempDir dir;
  dir.write("k.ptx", ptx);
  auto r = run_cli({"run", "--arch", arch, dir.write("k.launch.yaml", launch), "--dump-dir", dir.path(""), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? read_file(dir.path(buffer + ".bin")) : "";
}

std::vector<uint32_t> run_words(const std::string& arch, const std::string& ptx, uint32_t count, uint32_t threads, uint32_t dynamic_shared) {
  const std::string launch = "ptx: k.ptx\nkernel: k\ngrid: [1]\nblock: [" + std::to_string(threads) + "]\ndynamic_shared_bytes: " +
                             std::to_string(dynamic_shared) + "\nargs:\n  - {buffer: {name: out, elem: u32, count: " + std::to_string(count) +
                             "}}\ndump: [out]\n";
  const std::string bytes = run_and_dump(arch, ptx, launch, "out");
  std::vector<uint32_t> words(bytes.size() / 4);
  if (!bytes.empty()) std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

std::string kernel_header(const std::string& name, unsigned grid, unsigned block, unsigned shared, unsigned regs) {
  std::ostringstream o;
  o << ".version 1\n.kernel " << name << "\n.grid " << grid << "\n.block " << block << "\n.shared " << shared << "\n.regs "
    << regs << "\n";
  return o.str();
}

}  // namespace warpsim::test
