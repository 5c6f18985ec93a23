#include "frontend/trace/trace_writer.h"

#include <cstdio>
#include <memory>
#include <sstream>
#include <vector>

#include "common/error.h"
#include "common/format.h"
#include "frontend/in_order_run.h"

namespace warpsim {

namespace {
// A tensor copy's in-bounds rows: rows=R1xR2.. row_bytes=B stride=S1xS2.., up to the last
// box dimension with more than one row.
std::string box_rows(const MbarrierUse& m) {
  int dims = MbarrierUse::kRowDims;
  while (dims > 1 && m.rows[dims - 1] == 1) --dims;
  std::string rows, strides;
  for (int d = 0; d < dims; ++d) {
    rows += (d ? "x" : "") + std::to_string(m.rows[d]);
    strides += (d ? "x" : "") + std::to_string(m.row_stride(d));
  }
  return " rows=" + rows + " row_bytes=" + std::to_string(m.row_bytes) + " stride=" + strides;
}

std::string mask_prefix(uint32_t mask, uint32_t full_mask) {
  if (mask == full_mask) return "";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x ", mask);
  return buf;
}
}  // namespace

TraceWriter::TraceWriter(std::ostream& out) : out_(out) { out_ << ".version 1\n"; }

void TraceWriter::comment(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out_ << "# " << line << "\n";
}

void TraceWriter::begin_kernel(const KernelInfo& k) {
  out_ << "\n.kernel " << k.name << "\n.grid " << k.grid.x << " " << k.grid.y << " " << k.grid.z << "\n.block "
       << k.block.x << " " << k.block.y << " " << k.block.z << "\n";
  if (k.clustered()) out_ << ".cluster " << k.cluster.x << " " << k.cluster.y << " " << k.cluster.z << "\n";
  out_ << ".shared " << k.shared_bytes << "\n.regs " << k.registers_per_thread << "\n";
  if (!k.stream.empty()) out_ << ".stream " << k.stream << "\n";
  if (!k.waits_for.empty()) {
    out_ << ".wait_for";
    for (const auto& s : k.waits_for) out_ << " " << s;
    out_ << "\n";
  }
}

void TraceWriter::begin_cta(const Dim3& id) { out_ << ".cta " << id.x << " " << id.y << " " << id.z << "\n"; }

void TraceWriter::cancelled_cta(const Dim3& id) { out_ << ".cancelled " << id.x << " " << id.y << " " << id.z << "\n"; }

void TraceWriter::begin_warp(uint32_t index) { out_ << ".warp " << index << "\n"; }

void TraceWriter::instruction(const WarpInst& inst, uint32_t full_mask, const std::function<std::string(RegId)>& name_of,
                              const std::string& comment) {
  std::string line = mask_prefix(inst.active_mask, full_mask) + inst.op->mnemonic;
  bool first = true;
  auto sep = [&] {
    line += first ? " " : ", ";
    first = false;
  };
  if (inst.op->writes_destination) {
    sep();
    if (inst.num_dst == 1) {
      line += name_of(inst.dst(0));
    } else {
      line += "{";
      for (int i = 0; i < inst.num_dst; ++i) line += (i ? "," : "") + name_of(inst.dst(i));
      line += "}";
    }
  }
  for (int i = 0; i < inst.num_src; ++i) {
    sep();
    line += name_of(inst.src(i));
  }
  if (inst.op->space != MemSpace::kNone && inst.active_mask != 0 && (inst.addr.list || inst.op->space != MemSpace::kParam)) {
    line += first ? " ; addr=" : "; addr=";  // with no operands, a space keeps ';' off the mnemonic
    // An explicit list that is really lane-indexed base + stride is written in the short form.
    uint64_t base = 0;
    int64_t stride = 0;
    const bool strided = inst.active_lanes() >= 2 || !inst.addr.list ? inst.strided_form(base, stride) : false;
    if (!strided) {
      for (int i = 0; i < inst.active_lanes(); ++i) line += (i ? "," : "") + hex(inst.addr.list[i]);
    } else {
      line += hex(base) + (stride < 0 ? "-" : "+") + std::to_string(stride < 0 ? -stride : stride);
    }
  }
  if (inst.op->sleep && inst.sleep_ns) line += (first ? " ; ns=" : "; ns=") + std::to_string(inst.sleep_ns);
  if (inst.op->op_class == OpClass::kBarrier && (inst.barrier_id != 0 || inst.barrier_warps != 0)) {
    line += (first ? " ; bar=" : "; bar=") + std::to_string(inst.barrier_id);
    if (inst.barrier_warps) line += " threads=" + std::to_string(uint32_t{inst.barrier_warps} * 32);
  }
  if (inst.op->bulk_store && inst.active_mask != 0) {
    line += " tx=" + std::to_string(inst.mbar.tx_bytes);
    if (inst.op->bulk_reduce) line += " elem=" + std::to_string(inst.mbar.elem_bytes);
    if (inst.mbar.row_count() != 1 || inst.mbar.row_bytes != 0) line += box_rows(inst.mbar);
  }
  if (inst.op->mbarrier != MbarrierOp::kNone && inst.active_mask != 0) {
    const bool after_addr = inst.op->space != MemSpace::kNone;  // a bulk copy, st.async or red.async
    line += (after_addr ? " mbar=" : first ? " ; mbar=" : "; mbar=") + hex(inst.mbar.address);
    if (inst.mbar.arrivals) line += (inst.op->mbarrier == MbarrierOp::kInit ? " count=" : " arrive=") + std::to_string(inst.mbar.arrivals);
    if (inst.mbar.tx_bytes) line += " tx=" + std::to_string(inst.mbar.tx_bytes);
    if (inst.op->mbarrier == MbarrierOp::kWait) line += " phase=" + std::to_string(inst.mbar.phase);
    if (inst.mbar.multicast) line += " mcast=" + hex(inst.mbar.multicast);
    if (inst.mbar.row_count() != 1 || inst.mbar.row_bytes != 0) line += box_rows(inst.mbar);
  }
  if (!comment.empty()) line += "  # " + comment;
  out_ << line << "\n";
}

void TraceWriter::raw_instruction(uint32_t mask, uint32_t full_mask, const std::string& text) {
  out_ << mask_prefix(mask, full_mask) << text << "\n";
}

void TraceWriter::workload(Workload& workload, const std::function<std::string(RegId)>& name_of,
                           const std::function<std::string(const WarpInst&)>& comment_of, const std::function<void(const KernelInfo&)>& check) {
  InOrderVisitor visit;
  visit.kernel = [&](const KernelInfo& info) {
    if (check) check(info);
    begin_kernel(info);
  };
  visit.cta = [&](const Dim3& id) { begin_cta(id); };
  visit.warp = [&](uint32_t w) { begin_warp(w); };
  visit.instruction = [&](const WarpInst& inst, uint32_t full_mask) { instruction(inst, full_mask, name_of, comment_of ? comment_of(inst) : ""); };
  visit.kernel_done = [&](const KernelSource& kernel) {
    for (const Dim3& id : kernel.cancelled_ctas()) cancelled_cta(id);
  };
  run_in_order(workload, visit);
}

}  // namespace warpsim
