#include "views/divergence_view.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <sstream>

#include "common/format.h"

namespace warpsim {
namespace {

std::string pad(const std::string& s, size_t w) { return s.size() >= w ? s : std::string(w - s.size(), ' ') + s; }

// One colour per distinct path (mask), so the two sides of a branch read apart.
const char* path_colour(uint32_t mask) {
  static const char* const kColours[] = {"\033[32m", "\033[36m", "\033[33m", "\033[35m", "\033[34m", "\033[31m"};
  return kColours[((mask * 2654435761u) >> 29) % 6];
}

std::string lanes(uint32_t mask, uint32_t full, bool colour) {
  std::string s;
  const char* current = "";
  for (int l = 0; l < 32; ++l) {
    const bool on = mask >> l & 1, exists = full >> l & 1;
    const char* want = on ? path_colour(mask) : "\033[2m";
    if (colour && want != current) {
      s += "\033[0m";
      s += want;
      current = want;
    }
    s += on ? '#' : exists ? '.' : ' ';
  }
  if (colour) s += "\033[0m";
  return s;
}

void picture(std::ostringstream& o, const KernelDivergence& k, const WarpPicture& p, bool colour, bool ptx) {
  o << "warp " << p.warp << " of CTA (" << p.cta.x << "," << p.cta.y << "," << p.cta.z << "), on SM " << p.sm << " slot " << p.slot
    << ": " << p.issued << " instructions, lane efficiency " << fmt("%.1f%%", p.issued ? 100.0 * double(p.active_lanes) / (double(p.issued) * std::popcount(p.full_mask)) : 0)
    << "\n";
  o << "   cycle    +dt " << (ptx ? "   pc  ptx  src" : " line") << "  lanes 0..31                       n  instruction\n";
  uint32_t previous = p.full_mask;
  for (const IssuedRow& r : p.rows) {
    std::string wait = r.waited > 1 ? "+" + std::to_string(r.waited) : "";
    o << pad(std::to_string(r.cycle), 8) << pad(wait, 7) << " ";
    if (ptx) {
      o << pad(std::to_string(r.pc), 4) << pad(std::to_string(r.line), 5) << pad(r.source_line ? std::to_string(r.source_line) : "-", 5);
    } else {
      o << pad(std::to_string(r.line), 5);
    }
    o << "  " << lanes(r.mask, p.full_mask, colour) << pad(std::to_string(std::popcount(r.mask)), 3) << "  " << r.opcode;
    if (r.mask != previous) {
      const bool grew = (r.mask & previous) == previous, shrank = (r.mask & ~previous) == 0;
      o << (shrank ? "   <- diverged" : grew ? "   <- reconverge" : "   <- other path");
    }
    if (r.waited > 1 && r.waited_on != StallReason::kSelected && r.waited_on != StallReason::kNoInstruction)
      o << "   (waited: " << stall_reason_name(r.waited_on) << ")";
    o << "\n";
    previous = r.mask;
  }
  if (p.issued > p.rows.size()) o << "   ... " << p.issued - p.rows.size() << " more instructions (raise --view-rows to see them)\n";
  (void)k;
  o << "\n";
}

}  // namespace

std::string divergence_view(const std::vector<KernelDivergence>& kernels, bool colour) {
  std::ostringstream o;
  for (const KernelDivergence& k : kernels) {
    const bool ptx = k.source_file.size() > 4 && k.source_file.compare(k.source_file.size() - 4, 4, ".ptx") == 0;
    o << "divergence view: kernel " << k.name << "  (# active lane, . idle lane; pc = PTX instruction index, ptx = line in "
      << "the .ptx file, src = CUDA line from .loc)\n\n";
    if (k.warps.empty()) o << "(no chosen warp ran in this kernel; pick warps with --view-warps)\n\n";
    for (const WarpPicture& p : k.warps) picture(o, k, p, colour, ptx);
    const double eff = k.possible_lanes ? double(k.active_lanes) / double(k.possible_lanes) : 1.0;
    o << "kernel " << k.name << ": lane efficiency " << fmt("%.1f%%", eff * 100) << " over " << k.warp_instructions
      << " warp instructions; idle lanes = " << (k.possible_lanes - k.active_lanes) << " lane-slots ("
      << fmt("%.1f", double(k.possible_lanes - k.active_lanes) / 32.0) << " issue cycles of a full warp)\n";
    std::vector<const BranchCost*> order;
    for (const auto& [key, b] : k.branches) order.push_back(&b);
    std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->idle_lanes > b->idle_lanes; });
    if (!order.empty()) {
      o << "  branches, costliest first (idle lanes while its paths ran; / 32 = issue cycles lost to divergence):\n";
      o << "  " << (ptx ? "   pc  ptx  src" : " line") << "  executed  diverged  path insts  idle lanes  cycles lost\n";
      for (const BranchCost* b : order) {
        o << "  ";
        if (ptx) {
          o << pad(std::to_string(b->pc), 5) << pad(std::to_string(b->line), 5) << pad(b->source_line ? std::to_string(b->source_line) : "-", 5);
        } else {
          o << pad(std::to_string(b->line), 5);
        }
        o << pad(std::to_string(b->executed), 10) << pad(std::to_string(b->diverged), 10) << pad(std::to_string(b->instructions_on_paths), 12)
          << pad(std::to_string(b->idle_lanes), 12) << pad(fmt("%.1f", double(b->idle_lanes) / 32.0), 13) << "\n";
      }
    }
    if (k.unattributed_idle_lanes)
      o << "  idle lanes outside any divergence (partial warps, or masks a trace gives without a branch): " << k.unattributed_idle_lanes << "\n";
    o << "\n";
  }
  return o.str();
}

}  // namespace warpsim
