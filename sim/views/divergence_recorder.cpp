#include "views/divergence_recorder.h"

#include <algorithm>
#include <bit>

namespace warpsim {

DivergenceRecorder::DivergenceRecorder(std::vector<uint32_t> warps, uint32_t max_rows_per_warp)
    : chosen_(std::move(warps)), max_rows_(max_rows_per_warp) {}

void DivergenceRecorder::kernel_started(const KernelInfo& kernel, Cycle) {
  running_[&kernel] = kernels_.size();
  kernels_.push_back({});
  kernels_.back().name = kernel.name;
  kernels_.back().source_file = kernel.source_file;
}

void DivergenceRecorder::kernel_finished(const KernelInfo& kernel, Cycle) { running_.erase(&kernel); }

void DivergenceRecorder::warp_launched(uint32_t sm, uint32_t slot, const KernelInfo& kernel, Dim3 cta, uint32_t warp_in_cta,
                                       Cycle first) {
  const auto running = running_.find(&kernel);
  if (running == running_.end()) return;  // started before this recorder was attached
  KernelDivergence& k = kernels_[running->second];
  Live l;
  l.kernel = running->second;
  const std::string& f = kernel.source_file;
  l.ptx = f.size() > 4 && f.compare(f.size() - 4, 4, ".ptx") == 0;
  l.full_mask = kernel.full_mask(warp_in_cta);
  l.last_issue = first;
  const uint64_t linear = cta.x + uint64_t{kernel.grid.x} * (cta.y + uint64_t{kernel.grid.y} * cta.z);
  const uint64_t global = linear * kernel.warps_per_cta() + warp_in_cta;
  if (global <= UINT32_MAX && std::binary_search(chosen_.begin(), chosen_.end(), static_cast<uint32_t>(global))) {
    l.picture = static_cast<int>(k.warps.size());
    WarpPicture p;
    p.cta = cta;
    p.warp = warp_in_cta;
    p.sm = sm;
    p.slot = slot;
    p.full_mask = l.full_mask;
    k.warps.push_back(std::move(p));
  }
  live_[uint64_t{sm} << 32 | slot] = std::move(l);
}

void DivergenceRecorder::warp_state(uint32_t sm, uint32_t slot, Cycle at, StallReason reason, const WarpInst* in) {
  auto it = live_.find(uint64_t{sm} << 32 | slot);
  if (it == live_.end()) return;
  Live& l = it->second;
  if (!in) {
    l.last_state = reason;
    return;
  }
  KernelDivergence& k = kernels_[l.kernel];
  const uint32_t m = in->active_mask;
  const int active = std::popcount(m);
  const uint32_t key = l.ptx ? in->pc : in->line;
  ++k.warp_instructions;
  ++k.active_lane_histogram[static_cast<size_t>(active)];
  k.active_lanes += static_cast<uint64_t>(active);
  k.possible_lanes += static_cast<uint64_t>(std::popcount(l.full_mask));
  if (l.after_branch) {
    l.after_branch = false;
    if (m != l.branch_mask && (m & ~l.branch_mask) == 0) {
      ++k.branches[l.branch_key].diverged;
      l.open.push_back({l.branch_key, l.branch_mask});
    }
  }
  while (!l.open.empty() && (m & l.open.back().mask) == l.open.back().mask) l.open.pop_back();
  const uint64_t idle = static_cast<uint64_t>(std::popcount(l.full_mask) - std::min(active, std::popcount(l.full_mask)));
  if (!l.open.empty()) {
    BranchCost& b = k.branches[l.open.back().key];
    ++b.instructions_on_paths;
    b.idle_lanes += idle;
  } else {
    k.unattributed_idle_lanes += idle;
  }
  const bool branch = in->op->op_class == OpClass::kBranch;
  if (branch) {
    BranchCost& b = k.branches[key];
    b.pc = in->pc;
    b.line = in->line;
    b.source_line = in->source_line;
    ++b.executed;
    l.after_branch = true;
    l.branch_key = key;
    l.branch_mask = m;
  }
  if (l.picture >= 0) {
    WarpPicture& p = k.warps[static_cast<size_t>(l.picture)];
    ++p.issued;
    p.active_lanes += static_cast<uint64_t>(active);
    if (p.rows.size() < max_rows_) {
      p.rows.push_back({at, m, in->pc, in->line, in->source_line, in->op->mnemonic, branch, at - l.last_issue, l.last_state});
    }
  }
  l.last_issue = at;
  l.last_state = reason;
}

void DivergenceRecorder::warp_retired(uint32_t sm, uint32_t slot, Cycle) { live_.erase(uint64_t{sm} << 32 | slot); }

}  // namespace warpsim
