#include "mem/dram_controller.h"

#include <algorithm>

namespace warpsim {

DramController::DramController(double bytes_per_cycle, const DramTiming& timing, DramPolicy policy, uint32_t window)
    : channel_(bytes_per_cycle, timing), policy_(policy), window_(std::max<uint32_t>(1, window)), banks_(channel_.banks()),
      first_(banks_, kNever), in_window_(banks_, 0), bank_turn_(banks_, kNever) {}

void DramController::enqueue(const Request& request) {
  Waiting w{request, sequence_++};
  w.request.bank %= banks_;
  // Requests come nearly in arrival order: search from the back.
  auto at = waiting_.end();
  while (at != waiting_.begin() && std::prev(at)->request.arrival > w.request.arrival) --at;
  const auto index = static_cast<size_t>(at - waiting_.begin());
  waiting_.insert(at, w);
  if (index >= window_) return;
  join_window(w.request);
  if (waiting_.size() > window_) leave_window(waiting_[window_].request.bank);  // pushed out by it
  // If it is its bank's first candidate, the bank's turn is this; if not, the bank's turn is
  // earlier and already counted. (A request it pushed out of the window can only turn later.)
  next_ = std::min(next_, std::max({channel_.bank_ready(w.request.bank), w.request.arrival, last_turn_}));
}

void DramController::join_window(const Request& r) {
  ++in_window_[r.bank];
  first_[r.bank] = std::min(first_[r.bank], r.arrival);
  update_bank_turn(r.bank);
}

void DramController::leave_window(uint32_t bank) {
  // The entry leaving is its bank's youngest candidate: the bank's first changes only if none is left.
  if (--in_window_[bank] == 0) first_[bank] = kNever;
  update_bank_turn(bank);
}

void DramController::update_bank_turn(uint32_t bank) {
  bank_turn_[bank] = first_[bank] == kNever ? kNever : std::max(channel_.bank_ready(bank), first_[bank]);
}

std::pair<Cycle, uint32_t> DramController::next_turn() const {
  // A bank's turn: once it can take a command and its oldest candidate has arrived, and not before
  // the last decision (a request that waited outside the window enters it when an older one
  // leaves, at that decision). Every request ahead of a bank's first candidate has arrived by
  // then (the list is in arrival order), so that one is inside the window at its turn.
  std::pair<Cycle, uint32_t> best{kNever, 0};
  for (uint32_t bank = 0; bank < banks_; ++bank) {
    const Cycle turn = std::max(bank_turn_[bank], last_turn_);
    if (turn < best.first) best = {turn, bank};
  }
  return best;
}

size_t DramController::choose(uint32_t bank, Cycle turn, bool& overtook) const {
  const size_t end = std::min<size_t>(window_, waiting_.size());
  size_t oldest = end;
  uint32_t seen = 0;
  for (size_t i = 0; i < end && seen < in_window_[bank] && waiting_[i].request.arrival <= turn; ++i) {
    const Request& r = waiting_[i].request;
    if (r.bank != bank) continue;
    ++seen;
    if (policy_ == DramPolicy::kFcfs) return i;
    if (channel_.row_open(bank, r.row, turn)) {
      overtook = oldest != end;
      return i;
    }
    if (oldest == end) oldest = i;
  }
  return oldest;
}

void DramController::issue_until(Cycle now, std::vector<Issued>& issued) {
  for (;;) {
    const auto [turn, bank] = next_turn();
    next_ = turn;
    if (turn > now) return;
    bool overtook = false;
    const size_t pick = choose(bank, turn, overtook);
    const Request r = waiting_[pick].request;
    stats_.reordered += overtook;
    stats_.queue_cycles += turn - r.arrival;
    waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(pick));
    --in_window_[bank];
    if (waiting_.size() >= window_) join_window(waiting_[window_ - 1].request);  // the next one outside comes in
    first_[bank] = kNever;
    if (in_window_[bank] > 0) {
      for (size_t i = 0;; ++i) {
        if (waiting_[i].request.bank != bank) continue;
        first_[bank] = waiting_[i].request.arrival;
        break;
      }
    }
    // The channel starts the request at max(arrival, the bank's fractional ready time), of which
    // the turn is the cycle it falls in, unless the request waited outside the window.
    const Cycle start = turn > std::max(r.arrival, channel_.bank_ready(bank)) ? turn : r.arrival;
    last_turn_ = turn;
    issued.push_back(Issued{r.tag, channel_.access(start, bank, r.row, r.bytes)});
    update_bank_turn(bank);
  }
}

}  // namespace warpsim
