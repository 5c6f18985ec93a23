// A kernel's own launch limits and shapes (PTX ISA, "Performance-Tuning Directives" and
// "Cluster Dimension Directives") applied to a launch file's launch, as the driver and ptxas
// apply them.
#include <algorithm>
#include <string>
#include <vector>

#include "config/map_reader.h"
#include "frontend/ptx/launch.h"

namespace warpsim::ptx {
namespace {

// A performance-tuning directive's values (".maxntid 128, 1, 1"), or null when the kernel has none.
const std::vector<uint64_t>* directive(const Function& f, const char* name) {
  auto it = f.performance.find(name);
  return it == f.performance.end() ? nullptr : &it->second;
}

// A shape directive's dimensions (.reqntid, .reqnctapercluster); those it leaves out are 1.
Dim3 directive_dims(const std::vector<uint64_t>& v) {
  auto at = [&](size_t k) { return v.size() > k ? static_cast<uint32_t>(v[k]) : 1u; };
  return Dim3{at(0), at(1), at(2)};
}

}  // namespace

// The cluster shape: the kernel's own (.reqnctapercluster, from __cluster_dims__) or the launch
// file's `cluster:` (cudaLaunchKernelEx's cluster attribute), which must then agree, as the
// driver requires. A kernel marked .explicitcluster without a shape needs one at launch.
void PtxWorkload::set_cluster(Launch& l, const Function& f, MapReader& r, bool given) {
  if (const auto* v = directive(f, ".reqnctapercluster")) {
    const Dim3 required = directive_dims(*v);
    if (given && !(required == l.context.cluster)) {
      config_error(r.location("cluster"), "kernel '" + l.kernel + "' was compiled for clusters of " + required.str() +
                                              " (.reqnctapercluster); the launch file asks for " + l.context.cluster.str());
    }
    l.context.cluster = required;
  } else if (f.performance.count(".explicitcluster") && !given) {
    config_error(r.location("kernel"), "kernel '" + l.kernel + "' is .explicitcluster: give its cluster shape with 'cluster: [x, y, z]'");
  }
  const Dim3& c = l.context.cluster;
  l.context.explicit_cluster = c.count() > 1 || given || f.performance.count(".explicitcluster");
  if (l.grid.x % c.x || l.grid.y % c.y || l.grid.z % c.z) {
    config_error(r.location(given ? "cluster" : "grid"), "the grid " + l.grid.str() + " is not a whole number of clusters " + c.str() +
                                                          " (CUDA requires each grid dimension to be a multiple of the cluster's)");
  }
}

// The kernel's own limits (PTX ISA, "Performance-Tuning Directives"), as the driver applies
// them: a block beyond .maxntid (__launch_bounds__'s first argument) or other than .reqntid fails
// to launch; .maxnreg (__maxnreg__) caps the registers ptxas allocates, and so do .maxntid with
// .minnctapersm (__launch_bounds__(threads, min_blocks)): ptxas keeps each thread to the registers
// that let min_blocks CTAs (1 when not given) of .maxntid threads reside on an SM at once (CUDA C++
// Programming Guide, "Launch Bounds"). A cap below 32 is the default registers_per_thread, and a
// launch file asking for more than a cap is contradicting the compiled kernel.
void PtxWorkload::check_launch_bounds(Launch& l, const Function& f, MapReader& r, bool registers_given) {
  auto shape = [](const std::vector<uint64_t>& v) {
    std::string s;
    for (uint64_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return s;
  };
  if (const auto* v = directive(f, ".maxntid")) {
    uint64_t most = 1;
    for (uint64_t x : *v) most *= x;
    if (l.block.count() > most) {
      config_error(r.location("block"), "kernel '" + l.kernel + "' allows at most " + std::to_string(most) + " threads per block (.maxntid " + shape(*v) +
                                             ", from __launch_bounds__); this block has " + std::to_string(l.block.count()) +
                                             ", a launch CUDA refuses (too many resources requested for launch)");
    }
  }
  if (const auto* v = directive(f, ".reqntid")) {
    const Dim3 want = directive_dims(*v);
    if (!(want == l.block)) {
      config_error(r.location("block"), "kernel '" + l.kernel + "' must be launched with blocks of " + want.str() + " (.reqntid " + shape(*v) +
                                             "); this one is " + l.block.str());
    }
  }
  auto cap = [&](uint32_t most, const std::string& why) {
    if (registers_given && l.registers_per_thread > most) {
      config_error(r.location("registers_per_thread"), "kernel '" + l.kernel + "' was compiled with at most " + std::to_string(most) +
                                                           " registers per thread (" + why + "); the launch file says " +
                                                           std::to_string(l.registers_per_thread));
    }
    l.registers_per_thread = std::min(l.registers_per_thread, most);
  };
  if (const auto* v = directive(f, ".maxnreg"); v && !v->empty()) cap(static_cast<uint32_t>((*v)[0]), ".maxnreg, from __maxnreg__");
  if (const auto* v = directive(f, ".maxntid")) {
    uint64_t threads = 1;
    for (uint64_t x : *v) threads *= x;
    const auto* min_ctas = directive(f, ".minnctapersm");
    const uint64_t ctas = min_ctas && !min_ctas->empty() && (*min_ctas)[0] > 0 ? (*min_ctas)[0] : 1;
    // Every GPU warpsim models (compute capability 7.0 to 10.0) has 64 K 32-bit registers per SM
    // and allocates them per warp in units of 256, 8 per thread (CUDA C++ Programming Guide,
    // "Compute Capabilities" table; the occupancy calculator's allocation unit).
    constexpr uint64_t kRegistersPerSm = 65536, kPerThreadUnit = 8, kMostPerThread = 255;
    const uint64_t warps = (threads + 31) / 32;
    const uint64_t most = std::min(kMostPerThread, kRegistersPerSm / (ctas * warps * 32) / kPerThreadUnit * kPerThreadUnit);
    // Below one unit ptxas cannot keep the promise; it is left to the occupancy check to refuse.
    if (most >= kPerThreadUnit) {
      cap(static_cast<uint32_t>(most), ".maxntid " + shape(*v) + (min_ctas ? " and .minnctapersm " + std::to_string(ctas) : std::string()) +
                                           ", from __launch_bounds__: " + std::to_string(ctas) + " CTA" + (ctas == 1 ? "" : "s") + " of " +
                                           std::to_string(threads) + " threads per SM");
    }
  }
}

}  // namespace warpsim::ptx
