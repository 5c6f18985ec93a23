// Operand values other than plain registers: immediates and PTX's special registers (%tid,
// %ctaid, the %cluster_* family, lane masks...), read per lane.
#include "frontend/ptx/cta_emulator.h"

namespace warpsim::ptx {

Special special_register(const std::string& name, uint8_t& dim) {
  std::string base = name;
  dim = 0;
  size_t dot = name.find('.');
  if (dot != std::string::npos) {
    base = name.substr(0, dot);
    char d = name.back();
    dim = d == 'y' ? 1 : d == 'z' ? 2 : 0;
  }
  if (base == "%tid") return Special::kTid;
  if (base == "%ntid") return Special::kNtid;
  if (base == "%ctaid") return Special::kCtaid;
  if (base == "%nctaid") return Special::kNctaid;
  if (base == "%laneid") return Special::kLaneid;
  if (base == "%warpid") return Special::kWarpid;
  if (base == "%nwarpid") return Special::kNwarpid;
  if (base == "%smid") return Special::kSmid;
  if (base == "%nsmid") return Special::kNsmid;
  if (base == "%clock" || base == "%clock64" || base == "%globaltimer") return Special::kClock;
  if (base == "%lanemask_lt") return Special::kLanemaskLt;
  if (base == "%lanemask_le") return Special::kLanemaskLe;
  if (base == "%lanemask_eq") return Special::kLanemaskEq;
  if (base == "%lanemask_gt") return Special::kLanemaskGt;
  if (base == "%lanemask_ge") return Special::kLanemaskGe;
  if (base == "%dynamic_smem_size") return Special::kDynamicSmemSize;
  if (base == "%total_smem_size") return Special::kTotalSmemSize;
  if (base == "%cluster_ctarank") return Special::kClusterCtarank;
  if (base == "%cluster_nctarank") return Special::kClusterNctarank;
  if (base == "%cluster_ctaid") return Special::kClusterCtaid;
  if (base == "%cluster_nctaid") return Special::kClusterNctaid;
  if (base == "%clusterid") return Special::kClusterid;
  if (base == "%nclusterid") return Special::kNclusterid;
  if (base == "%is_explicit_cluster") return Special::kIsExplicitCluster;
  if (base == "%gridid") return Special::kGridid;
  if (base.starts_with("%envreg") && base.size() > 7 && base.size() <= 9 && base.find_first_not_of("0123456789", 7) == std::string::npos) {
    const int n = std::stoi(base.substr(7));
    if (n < 32) {
      dim = static_cast<uint8_t>(n);
      return Special::kEnvreg;
    }
  }
  return Special::kNone;
}

uint64_t CtaEmulator::read_other(const WarpState& w, const EmuOperand& o, uint32_t lane) const {
  switch (o.kind) {
    case EmuOperand::Kind::kReg: {
      uint64_t v = w.regs.get(o.reg, lane);
      return o.negated ? (v ^ 1) : v;
    }
    case EmuOperand::Kind::kImm:
      return o.bits;
    case EmuOperand::Kind::kSpecial: {
      const Dim3& b = launch_.block;
      uint32_t ntid[3] = {b.x, b.y, b.z}, ctaid[3] = {id_.x, id_.y, id_.z};
      uint32_t nctaid[3] = {launch_.grid.x, launch_.grid.y, launch_.grid.z};
      const uint32_t cl[3] = {launch_.cluster.x, launch_.cluster.y, launch_.cluster.z};
      switch (o.special) {
        case Special::kTid: {  // read by every lane of nearly every kernel: no division that o.dim does not need
          const uint32_t t = w.index * 32 + lane;
          return o.dim == 0 ? (b.y == 1 && b.z == 1 ? t : t % b.x) : o.dim == 1 ? (t / b.x) % b.y : t / (b.x * b.y);
        }
        case Special::kNtid: return ntid[o.dim];
        case Special::kCtaid: return ctaid[o.dim];
        case Special::kNctaid: return nctaid[o.dim];
        case Special::kLaneid: return lane;
        case Special::kWarpid: return w.index;
        case Special::kNwarpid: return warps_.size();
        // The SM the GPU placed the CTA on, and the GPU's SM count (the PTX ISA allows %nsmid to
        // exceed it; SMs are numbered 0 to sms - 1 here).
        case Special::kSmid: return sm_;
        case Special::kNsmid: return sms_;
        // The emulator runs ahead of the timing model, so no simulated time exists yet: the
        // warp's count of executed instructions, monotonic, so a loop waiting for the clock to
        // advance ends, and the same on every run.
        case Special::kClock: return w.executed;
        case Special::kLanemaskLt: return (1ull << lane) - 1;
        case Special::kLanemaskLe: return (2ull << lane) - 1;
        case Special::kLanemaskEq: return 1ull << lane;
        case Special::kLanemaskGt: return 0xffffffffull & ~((2ull << lane) - 1);
        case Special::kLanemaskGe: return 0xffffffffull & ~((1ull << lane) - 1);
        case Special::kDynamicSmemSize: return launch_.dynamic_shared_bytes;
        case Special::kTotalSmemSize: {  // static plus dynamic, in whole allocation units
          const uint64_t unit = launch_.shared_allocation_unit;
          return (launch_.program->static_shared_bytes + launch_.dynamic_shared_bytes + unit - 1) / unit * unit;
        }
        case Special::kClusterCtarank: return rank_;
        case Special::kClusterNctarank: return launch_.cluster.count();
        case Special::kClusterCtaid: return ctaid[o.dim] % cl[o.dim];
        case Special::kClusterNctaid: return cl[o.dim];
        case Special::kClusterid: return ctaid[o.dim] / cl[o.dim];
        case Special::kNclusterid: return nctaid[o.dim] / cl[o.dim];
        case Special::kIsExplicitCluster: return launch_.explicit_cluster ? 1 : 0;
        // A temporal grid id (PTX ISA: what debuggers use to tell concurrent grids apart); the
        // driver's values are not specified, so each launch's number in the launch file.
        case Special::kGridid: return launch_.grid_id;
        // The CUDA driver puts the address of a cooperative launch's grid-barrier workspace in
        // %envreg1 (high 32 bits) and %envreg2 (low), which cooperative groups' this_grid()
        // reads (nvcc's PTX: bfi.b64 of the two); 0 in an ordinary launch, where grid.sync() traps.
        case Special::kEnvreg:
          return o.dim == 1 ? launch_.grid_workspace >> 32 : o.dim == 2 ? launch_.grid_workspace & 0xffffffffu : 0;
        case Special::kNone: return 0;
      }
      return 0;
    }
    case EmuOperand::Kind::kVector:
      // A SASS register pair standing for one 64-bit value (its low word first), as SASS's
      // 64-bit operands are lowered to the PTX instructions that read one register.
      if (o.regs.size() == 2 && !o.wide) return element(w, o, 0, lane) | element(w, o, 1, lane) << 32;
      return 0;
    default:
      return 0;
  }
}

}  // namespace warpsim::ptx
