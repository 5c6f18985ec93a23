#include "mem/dram_channel.h"

#include <algorithm>

namespace warpsim {

DramChannel::DramChannel(double bytes_per_cycle, const DramTiming& timing)
    : timing_(timing), bus_(bytes_per_cycle), banks_(std::max<uint32_t>(1, timing.banks)) {}

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
