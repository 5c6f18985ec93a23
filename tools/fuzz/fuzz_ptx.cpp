// Fuzzes the PTX frontend: parsing, lowering every function, then emulating the first kernel
// (one CTA of 64 threads, a buffer per pointer-sized parameter, small scalars otherwise) and
// timing it on a small B200, whose compute capability admits every instruction warpsim knows.
#include <sstream>

#include "frontend/ptx/launch.h"
#include "frontend/ptx/program.h"
#include "fuzz_support.h"

namespace {

// A launch file for `f` with an argument for each parameter it declares.
std::string launch_for(const warpsim::ptx::Function& f, const std::string& ptx_path) {
  std::ostringstream o;
  o << "ptx: " << ptx_path << "\nkernel: " << f.name << "\ngrid: [1, 1, 1]\nblock: [64, 1, 1]\n"
    << "max_warp_instructions: 20000\nargs:\n";
  int buffer = 0;
  for (const auto& p : f.params) {
    const bool wide = p.type == ".u64" || p.type == ".s64" || p.type == ".b64";
    if (wide && p.dims.empty()) {
      o << "  - {buffer: {name: b" << buffer++ << ", elem: u32, count: 1024}}\n";
    } else if (p.dims.empty() && p.type == ".f32") {
      o << "  - {scalar: f32, value: 1.5}\n";
    } else if (p.dims.empty() && (p.type == ".u32" || p.type == ".s32" || p.type == ".b32")) {
      o << "  - {scalar: u32, value: 64}\n";
    } else {
      return "";  // an array or other parameter the generated launch does not fill
    }
  }
  return o.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace warpsim;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string ptx_path = fuzz::write_file("in.ptx", text);
  fuzz::expect_clean_errors([&] {
    const ptx::Module module = ptx::parse_ptx(text, ptx_path);
    for (const auto& f : module.functions) {
      if (f.is_entry && !f.is_declaration) ptx::lower(module, f.name);
    }
    for (const auto& f : module.functions) {
      if (!f.is_entry || f.is_declaration) continue;
      const std::string launch = launch_for(f, ptx_path);
      if (launch.empty()) return;
      ptx::PtxWorkload workload(fuzz::write_file("in.launch.yaml", launch), fuzz::small_gpu("b200"));  // sm_100, as `warpsim run`
      fuzz::simulate_on("b200", workload);
      return;
    }
  });
  return 0;
}
