#include "mem/dram_controller.h"

#include <algorithm>

namespace warpsim {
namespace {
bool older(const DramController::Request& a, uint64_t a_seq, const DramController::Request& b, uint64_t b_seq) {
  return a.arrival != b.arrival ? a.arrival < b.arrival : a_seq < b_seq;
}
}  // namespace

DramController::DramController(double bytes_per_cycle, const DramTiming& timing, DramPolicy policy, uint32_t window)
    : channel_(bytes_per_cycle, timing), policy_(policy), window_(std::max<uint32_t>(1, window)), banks_(channel_.banks()),
      queues_(banks_), bank_turn_(banks_, kNever) {}

template <typename Queue>
void DramController::insert_sorted(Queue& q, const Waiting& w) {
  // Requests come nearly in arrival order: search from the back.
  auto at = q.end();
  while (at != q.begin() && older(w.request, w.sequence, std::prev(at)->request, std::prev(at)->sequence)) --at;
  q.insert(at, w);
}

void DramController::enqueue(const Request& request) {
  Waiting w{request, sequence_++};
  w.request.bank %= banks_;
  if (in_window_ < window_) {  // room: nothing waits outside either
    admit(w);
  } else if (!older(w.request, w.sequence, youngest_bound_.request, youngest_bound_.sequence)) {
    insert_sorted(outside_, w);  // no younger than anything in the window: the usual case
  } else {
    // The window holds the oldest requests: one older than its youngest takes that one's place.
    uint32_t youngest = banks_;
    for (uint32_t b = 0; b < banks_; ++b) {
      if (queues_[b].empty()) continue;
      const Waiting& last = queues_[b].back();
      if (youngest == banks_ || older(queues_[youngest].back().request, queues_[youngest].back().sequence, last.request, last.sequence)) youngest = b;
    }
    const Waiting& y = queues_[youngest].back();
    youngest_bound_ = y;
    if (older(w.request, w.sequence, y.request, y.sequence)) {
      outside_.push_front(y);
      queues_[youngest].pop_back();
      --in_window_;
      update_bank_turn(youngest);
      admit(w);
    } else {
      insert_sorted(outside_, w);
    }
  }
}

void DramController::admit(const Waiting& w) {
  insert_sorted(queues_[w.request.bank], w);
  ++in_window_;
  if (older(youngest_bound_.request, youngest_bound_.sequence, w.request, w.sequence)) youngest_bound_ = w;
  update_bank_turn(w.request.bank);
  // If it is now its bank's first candidate its turn counts from here; the turn never comes
  // later for a request joining, so a cached next decision only moves earlier.
  next_ = std::min(next_, std::max(bank_turn_[w.request.bank], last_turn_));
}

void DramController::update_bank_turn(uint32_t bank) {
  bank_turn_[bank] = queues_[bank].empty() ? kNever : std::max(channel_.bank_ready(bank), queues_[bank].front().request.arrival);
}

std::pair<Cycle, uint32_t> DramController::next_turn() const {
  // A bank's turn: once it can take a command and its oldest candidate has arrived, and not before
  // the last decision (a request that waited outside the window enters it when an older one
  // leaves, at that decision).
  std::pair<Cycle, uint32_t> best{kNever, 0};
  for (uint32_t bank = 0; bank < banks_; ++bank) {
    const Cycle turn = std::max(bank_turn_[bank], last_turn_);
    if (turn < best.first) best = {turn, bank};
  }
  return best;
}

size_t DramController::choose(uint32_t bank, Cycle turn) const {
  const auto& q = queues_[bank];
  if (policy_ == DramPolicy::kFcfs) return 0;
  const uint64_t open = channel_.open_row(bank, turn);
  for (size_t i = 0; i < q.size() && q[i].request.arrival <= turn; ++i)
    if (q[i].request.row == open) return i;
  return 0;
}

void DramController::issue_until(Cycle now, std::vector<Issued>& issued) {
  for (;;) {
    const auto [turn, bank] = next_turn();
    next_ = turn;
    if (turn > now) return;
    auto& q = queues_[bank];
    const size_t pick = choose(bank, turn);
    const Request r = q[pick].request;
    stats_.reordered += pick > 0;
    stats_.queue_cycles += turn - r.arrival;
    q.erase(q.begin() + static_cast<std::ptrdiff_t>(pick));
    --in_window_;
    if (!outside_.empty()) {  // the oldest one outside comes in
      const Waiting in = outside_.front();
      outside_.pop_front();
      insert_sorted(queues_[in.request.bank], in);
      ++in_window_;
      if (older(youngest_bound_.request, youngest_bound_.sequence, in.request, in.sequence)) youngest_bound_ = in;
      update_bank_turn(in.request.bank);
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
