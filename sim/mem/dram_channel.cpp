#include "mem/dram_channel.h"

#include <algorithm>
#include <span>

namespace warpsim {

DramChannel::DramChannel(double bytes_per_cycle, const DramTiming& timing)
    : timing_(timing), bus_(bytes_per_cycle), banks_(std::max<uint32_t>(1, timing.banks)),
      activates_(std::clamp<uint32_t>(timing.activate_groups, 1, std::max<uint32_t>(1, timing.banks))) {}

uint64_t DramChannel::book_activate(uint64_t t, uint32_t b) {
  if (timing_.rrd == 0 && timing_.faw == 0) return t;
  Activates& booked = activates_[b * activates_.size() / banks_.size()];
  const uint64_t rrd = timing_.rrd * kScale, faw = timing_.faw * kScale;
  // Activates long before t constrain nothing (requests reach the channel nearly in time order).
  const uint64_t horizon = std::max(rrd, faw) + 4096 * kScale;
  if (t > horizon) {
    while (booked.first < booked.times.size() && booked.times[booked.first] < t - horizon) ++booked.first;
    drop_forgotten(booked.times, booked.first);
  }
  const std::span<uint64_t> list(booked.times.data() + booked.first, booked.times.size() - booked.first);
  if (list.empty() || t > list.back()) {
    // After every booked activate (the usual case): only the last one (tRRD) and the last four
    // (tFAW) can move it, and each move keeps it after them, so one pass settles it.
    if (!list.empty()) t = std::max(t, list.back() + rrd);
    if (faw != 0 && list.size() >= 4) t = std::max(t, list[list.size() - 4] + faw);
    booked.times.push_back(t);
    return t;
  }
  // Activates are booked like the bus: the earliest time at or after t that keeps every pair
  // tRRD apart and every five consecutive activates at least tFAW from first to last. Each
  // violation moves t later, so the search ends past the last booked activate at the latest.
  for (bool moved = true; moved;) {
    moved = false;
    const auto next = std::lower_bound(list.begin(), list.end(), t);
    const auto at = static_cast<std::ptrdiff_t>(next - list.begin());
    if (next != list.begin() && *std::prev(next) + rrd > t) {
      t = *std::prev(next) + rrd, moved = true;
      continue;
    }
    if (next != list.end() && *next < t + rrd) {
      t = *next + rrd, moved = true;
      continue;
    }
    if (faw == 0) break;
    // The windows of five that would hold t: four booked neighbours around it.
    for (std::ptrdiff_t first = std::max<std::ptrdiff_t>(0, at - 4); first <= at && !moved; ++first) {
      const std::ptrdiff_t last = first + 3;  // the window is list[first .. last] plus t
      if (last >= static_cast<std::ptrdiff_t>(list.size())) break;
      const uint64_t lo = std::min(list[static_cast<size_t>(first)], t), hi = std::max(list[static_cast<size_t>(last)], t);
      if (hi - lo < faw) t = std::max(t, list[static_cast<size_t>(first)] + faw), moved = true;
    }
  }
  booked.times.insert(std::lower_bound(booked.times.begin() + static_cast<std::ptrdiff_t>(booked.first), booked.times.end(), t), t);
  return t;
}

uint64_t DramChannel::outside_refresh(uint64_t t, uint32_t b) const {
  const uint64_t offset = refresh_offset(b), refi = timing_.refi * kScale;
  if (refi == 0 || t < offset + refi) return t;  // the first refresh starts at tREFI
  const uint64_t into = (t - offset) % refi;
  return into < timing_.rfc * kScale ? t - into + timing_.rfc * kScale : t;
}

Cycle DramChannel::access(Cycle arrival, uint32_t bank_index, uint64_t row, uint64_t bytes, RowResult* result) {
  const auto b = static_cast<uint32_t>(bank_index % banks_.size());
  Bank& bank = banks_[b];
  const uint64_t wanted = std::max(arrival * kScale, bank.ready);
  uint64_t t = outside_refresh(wanted, b);
  stats_.refresh_wait_cycles += (t - wanted) / kScale;
  if (refreshes_before(t, b) > bank.refreshes) {  // a refresh has precharged the bank since
    bank.row = kNoRow;
    bank.refreshes = refreshes_before(t, b);
  }
  RowResult kind;
  uint64_t column;  // when the column command can issue
  if (bank.row == row) {
    kind = RowResult::kHit;
    ++stats_.row_hits;
    column = t;
  } else {
    uint64_t activate = t;
    if (bank.row != kNoRow) {
      kind = RowResult::kConflict;
      ++stats_.row_conflicts;
      activate = outside_refresh(std::max(t, bank.activated + timing_.ras * kScale) + timing_.rp * kScale, b);
    } else {
      kind = RowResult::kEmpty;
      ++stats_.row_empty;
    }
    const uint64_t wanted_activate = activate;
    activate = book_activate(activate, b);
    stats_.activate_wait_cycles += (activate - wanted_activate) / kScale;
    bank.row = row;
    bank.activated = activate;
    column = activate + timing_.rcd * kScale;
  }
  // The controller issues the column command so that its data lands in the first free stretch
  // of the bus; the bank takes its next column command once this one's data is on its way.
  const uint64_t done = bus_.book_fp(column + timing_.cl * kScale, bytes);
  bank.ready = done - timing_.cl * kScale;
  if (result) *result = kind;
  return (done + kScale - 1) / kScale;
}

}  // namespace warpsim
