#pragma once
// Helpers shared by the tests: temporary files, running the CLI, and simulating a trace text.
#include <functional>
#include <string>
#include <vector>

#include "config/load_config.h"
#include "gpu/simulation.h"
#include "report/kernel_summary.h"

namespace warpsim::test {

// Every shipped config, oldest first.
inline const std::vector<std::string> kArchs = {"v100", "a100", "h100", "h200", "b200"};

// A fresh directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::string dir_;
};

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};
// Runs the warpsim binary with `args` (shell-quoted here).
CliResult run_cli(const std::vector<std::string>& args);

std::string source_path(const std::string& relative);  // inside the repository
std::string read_file(const std::string& path);
// The text of a launch file shipped in `dir` (traces/kernels/ unless given; `name`, e.g.
// "saxpy.launch.yaml") with its `ptx: ptx/` and `file: ref/` paths made absolute, so that a
// variant written elsewhere runs.
std::string shipped_launch(const std::string& name, const std::string& dir = "traces/kernels");
// A file of 32-bit words (a dumped u32 buffer), in the host's byte order.
std::vector<uint32_t> read_words(const std::string& path);

// Simulates `trace_text` on a shipped config (with overrides); returns the summaries.
struct Simulated {
  LoadedConfig config;
  std::vector<KernelRun> runs;
  std::vector<Summary> kernels;
  Summary total;
  std::unique_ptr<GpuSpec> gpu_spec;  // what `gpu` refers to: on the heap, so moving this struct keeps it valid
  std::unique_ptr<Gpu> gpu;
  uint64_t sum(const std::string& group, size_t kernel = 0) const { return gpu->stats().sum(group, runs.at(kernel).stats); }
};
// `prepare` (optional) sees the GPU before the run, to attach observers.
Simulated simulate_text(const std::string& arch, const std::string& trace_text, const std::vector<std::string>& sets = {},
                        const std::function<void(Gpu&)>& prepare = nullptr);
Simulated simulate_file(const std::string& arch, const std::string& path, const std::vector<std::string>& sets = {},
                        const std::function<void(Gpu&)>& prepare = nullptr);

// Runs a launch file directly and replayed from the trace `warpsim trace` writes of it, both
// with --json; `direct` and `replay` are the first kernel's JSON summaries (or the failing
// command's stderr, prefixed "error: "), `trace` the trace text.
struct Replay {
  std::string direct, replay, trace;
};
Replay run_and_replay(const std::string& arch, const std::string& launch, const TempDir& dir);

// Runs the kernel `ptx` (written as k.ptx) through `warpsim run` with `launch` (a launch file
// naming k.ptx and dumping `buffer`) and returns that buffer's bytes (empty, with a test
// failure, when the run fails).
std::string run_and_dump(const std::string& arch, const std::string& ptx, const std::string& launch, const std::string& buffer);

// Runs `ptx`, whose entry `k` takes one .u64 parameter `out`, with one CTA of `threads` threads
// (and `dynamic_shared` bytes of dynamic shared memory); `out` holds `count` 32-bit words,
// returned after the run (empty, with a test failure, when the run fails).
std::vector<uint32_t> run_words(const std::string& arch, const std::string& ptx, uint32_t count, uint32_t threads = 1,
                                uint32_t dynamic_shared = 0);

// Builds trace text: ".version 1", a kernel header, and CTAs added by the caller.
std::string kernel_header(const std::string& name, unsigned grid, unsigned block, unsigned shared = 0, unsigned regs = 32);

}  // namespace warpsim::test
