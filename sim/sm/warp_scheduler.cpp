#include "sm/warp_scheduler.h"

namespace warpsim {

std::unique_ptr<WarpScheduler> make_warp_scheduler(SchedulerPolicy policy) {
  switch (policy) {
    case SchedulerPolicy::kGto: return make_gto_scheduler();
    case SchedulerPolicy::kLrr: return make_lrr_scheduler();
  }
  return make_gto_scheduler();
}

}  // namespace warpsim
