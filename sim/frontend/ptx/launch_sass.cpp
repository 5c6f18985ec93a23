// A launch run from the GPU's own instructions: the SASS listing that tools/kernels_make_sass.sh
// commits beside each PTX file (ptxas's output of that PTX for sm_80 and sm_90a), lowered with
// this launch's shape, parameters and __constant__ values.
#include <filesystem>
#include <map>
#include <memory>

#include "common/error.h"
#include "frontend/ptx/function_addresses.h"
#include "frontend/ptx/launch.h"
#include "frontend/sass/lower_sass.h"

namespace warpsim::ptx {

namespace fs = std::filesystem;

namespace {

// The listing made for GPUs of compute capability `cc` from `ptx`: <dir>/sass/<name>.sm_80.sass
// or .sm_90a.sass beside <dir>/ptx/<name>.sm_NN.ptx; empty where none is made (V100: CUDA 13's
// ptxas no longer targets sm_70; B200: the disassembler here does not read sm_100).
std::string listing_for(const std::string& ptx, uint32_t cc) {
  const char* target = cc >= 80 && cc < 90 ? "sm_80" : cc >= 90 && cc < 100 ? "sm_90a" : nullptr;
  if (!target) return "";
  const fs::path p(ptx);
  std::string name = p.filename().string();
  const size_t at = name.find(".sm_");
  if (at == std::string::npos) return "";
  name = name.substr(0, at) + "." + target + ".sass";
  const fs::path dir = p.parent_path();
  return (dir.filename() == "ptx" ? dir.parent_path() / "sass" / name : dir / name).string();
}

}  // namespace

void PtxWorkload::use_sass(Launch& l, MapReader& r) {
  const std::string path = sass_path_.empty() ? listing_for(spec_.ptx_path, compute_capability_) : sass_path_;
  std::error_code ec;
  if (path.empty() || !fs::exists(path, ec)) {
    if (isa_ == IsaChoice::kSass) {
      config_error(r.location("kernel"), path.empty() ? "no SASS for compute capability " + std::to_string(compute_capability_ / 10) + "." +
                                                            std::to_string(compute_capability_ % 10) + " (warpsim has SASS for sm_80 and sm_90a; run with --isa ptx)"
                                                      : "no SASS listing " + path + " (tools/kernels_make_sass.sh makes it; or run with --isa ptx)");
    }
    return;
  }
  auto& listing = listings_[path];  // one listing serves every launch of the file
  if (!listing) listing = std::make_shared<const sass::SassListing>(sass::read_sass_listing(path));
  sass::SassLaunch launch;
  launch.grid = l.grid;
  launch.block = l.block;
  launch.cluster = l.context.cluster;
  launch.explicit_cluster = l.context.explicit_cluster;
  launch.grid_workspace = l.context.grid_workspace;
  launch.params = l.context.params;
  for (const Variable& v : l.program.param_vars) launch.param_fields.emplace_back(l.program.params.at(v.name), v.size_bytes());
  launch.compute_capability = compute_capability_;
  launch.static_shared_bytes = l.program.static_shared_bytes;
  launch.addresses = global_addresses_;
  for (const Function& f : module_.functions)
    if (!f.is_declaration)
      if (const auto address = function_address(module_, f.name)) launch.functions[f.name] = *address;
  // Bank 3: the listing's bytes, with each __constant__ variable's value as the PTX program
  // holds it (its initializer and the launch file's `constants:`).
  launch.constants = listing->constant_bank;
  for (const auto& [name, place] : l.program.constant_symbols) {
    const auto it = listing->constants.find(name);
    if (it == listing->constants.end()) continue;
    const uint64_t bytes = std::min<uint64_t>(place.second, it->second.bytes);
    if (it->second.offset + bytes > launch.constants.size()) launch.constants.resize(it->second.offset + bytes, 0);
    std::copy_n(l.program.constant_bank.begin() + static_cast<ptrdiff_t>(place.first), bytes,
                launch.constants.begin() + static_cast<ptrdiff_t>(it->second.offset));
  }
  try {
    Program program = sass::lower_sass(*listing, l.entry, launch);
    program.params = l.program.params;
    program.param_vars = l.program.param_vars;
    program.param_bytes = l.program.param_bytes;
    program.reads_envreg = l.program.reads_envreg;
    if (!program.sass_params.empty()) l.context.params = program.sass_params;  // the param space in the listing's layout
    l.program = std::move(program);
    l.sass = true;
    l.context.file = l.file = path;
  } catch (const InputError& e) {
    if (isa_ == IsaChoice::kSass) throw;
    notes_.push_back(l.kernel + ": running the PTX: " + e.what());
  }
}

std::vector<std::string> PtxWorkload::isas() const {
  std::vector<std::string> out;
  for (const auto& l : launches_) out.push_back(l->sass ? "sass" : "ptx");
  return out;
}

}  // namespace warpsim::ptx
