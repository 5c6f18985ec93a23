#pragma once
// What the fuzz targets share: the fuzzed bytes written to a file (every input path of warpsim
// reads files), a small GPU to simulate on, and the rule that bad input may only end in an
// InputError (a located message) or a SimulationError (the watchdog); anything else aborts, so
// libFuzzer reports it with the input that caused it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "common/error.h"
#include "config/load_config.h"
#include "frontend/kernel_source.h"
#include "gpu/simulation.h"

namespace warpsim::fuzz {

// A directory of this process's own, so parallel fuzzing jobs (-jobs=N) do not collide.
inline const std::filesystem::path& work_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("warpsim-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline std::string write_file(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = (work_dir() / name).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

inline std::string write_file(const std::string& name, const std::string& text) {
  return write_file(name, reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

// A shipped GPU cut down to two SMs, so that a kernel with many CTAs still simulates quickly.
inline const GpuSpec& small_gpu(const std::string& arch) {
  static const LoadedConfig config = load_gpu_config(arch, {"topology.gpcs=1", "topology.tpcs=1", "topology.sms=2"});
  return config.spec;
}

inline void simulate_on(const std::string& arch, Workload& workload) {
  Gpu gpu(small_gpu(arch));
  simulate(gpu, workload);
}

// Runs `body`; a located input error or a watchdog report is the expected end of bad input.
template <typename Body>
void expect_clean_errors(Body&& body) {
  try {
    body();
  } catch (const InputError&) {
  } catch (const SimulationError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: unexpected %s: %s\n", typeid(e).name(), e.what());
    std::abort();
  }
}

}  // namespace warpsim::fuzz
