#pragma once
// SASS's control flow, which the convergence model runs (sass_step.cpp) rather than the
// per-lane arithmetic: branches, the convergence barriers Volta introduced (BSSY sets a barrier
// register to the lanes that must meet again, BSYNC waits until every one of them that has not
// exited is there, BREAK takes lanes out, WARPSYNC waits for a mask of lanes), exits, and
// ptxas's subroutine calls (CALL.REL.NOINC leaves the return address in a register, RET.REL
// jumps to it).
#include <cstdint>

namespace warpsim::sass {

enum class SassFlow : uint8_t {
  kNone,
  kBra,        // BRA [.U]: the guard's lanes go to the target
  kBraAny,     // BRA.U.ANY: the whole group goes when any lane's guard holds
  kBraDiv,     // BRA.DIV mask: the group goes when it is not every live lane of the mask
  kBraConv,    // BRA.CONV mask: the group goes when it is
  kBssy,       // BSSY Bn, target: Bn = the group's lanes
  kBsync,      // BSYNC Bn: wait for Bn's live lanes
  kBreak,      // BREAK Bn: the guard's lanes leave Bn
  kWarpsync,   // WARPSYNC mask: wait for the mask's live lanes
  // WARPSYNC.EXCLUSIVE and .COLLECTIVE: the same, then the lanes of each mask run apart from the
  // others until a BSYNC (a tile's collective sees only its tile)
  kWarpsyncExclusive,
  kYield,      // YIELD: the lanes may be passed over by a BSYNC while they spin
  kExit,       // EXIT: the guard's lanes finish
  kCall,       // CALL.REL.NOINC: go to the subroutine
  kCallIndirect,  // CALL.REL.NOINC Rn: go to the subroutine of the function whose address Rn holds
  kRet,        // RET.REL.NODEC Rn: go to the address in Rn
};

}  // namespace warpsim::sass
