#pragma once
// The device heap that in-kernel malloc and free use (CUDA C++ Programming Guide, "Dynamic Global
// Memory Allocation and Operations"): a region of global memory of cudaLimitMallocHeapSize bytes
// (8 MB by default) that lives for the whole launch file, so a block malloc'd in one kernel can be
// used and freed in a later one. Blocks are 16-byte aligned (the guide's alignment guarantee),
// placed first fit; a request that does not fit returns NULL, as malloc does on the GPU. A new
// block's bytes are undefined, as malloc leaves them (the initcheck finding reads them so).
#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

namespace warpsim::ptx {

class DeviceHeap {
 public:
  DeviceHeap(uint64_t base, uint64_t bytes) : base_(base), bytes_(bytes) {}

  // The address of a new block of `size` bytes, or 0 when none is free.
  uint64_t allocate(uint64_t size) {
    const uint64_t want = (std::max<uint64_t>(size, 1) + 15) / 16 * 16;
    if (want > bytes_) return 0;
    uint64_t at = 0;  // offset of the first gap considered
    for (const auto& [offset, length] : blocks_) {
      if (offset - at >= want) break;
      at = offset + length;
    }
    if (at + want > bytes_) return 0;
    blocks_[at] = want;
    return base_ + at;
  }
  // False when `address` is not the start of a live block (never allocated, or freed already).
  bool release(uint64_t address) {
    if (address < base_) return false;
    return blocks_.erase(address - base_) == 1;
  }
  // The live block holding `address`: its address and size (rounded), or {0, 0}.
  std::pair<uint64_t, uint64_t> block_at(uint64_t address) const {
    if (address < base_ || blocks_.empty()) return {0, 0};
    auto it = blocks_.upper_bound(address - base_);
    if (it == blocks_.begin()) return {0, 0};
    --it;
    return address - base_ < it->first + it->second ? std::pair{base_ + it->first, it->second} : std::pair<uint64_t, uint64_t>{0, 0};
  }
  uint64_t base() const { return base_; }
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t base_, bytes_;
  std::map<uint64_t, uint64_t> blocks_;  // offset -> rounded size, of each live block
};

}  // namespace warpsim::ptx
