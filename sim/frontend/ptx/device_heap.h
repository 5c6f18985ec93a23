#pragma once
// The device heap that in-kernel malloc and free use (CUDA C++ Programming Guide, "Dynamic Global
// Memory Allocation and Operations"): a region of global memory of cudaLimitMallocHeapSize bytes
// (8 MB by default) that lives for the whole launch file, so a block malloc'd in one kernel can be
// used and freed in a later one. Blocks are 16-byte aligned (the guide's alignment guarantee),
// placed first fit; a request that does not fit returns NULL, as malloc does on the GPU.
#include <algorithm>
#include <cstdint>
#include <map>

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
  uint64_t base() const { return base_; }
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t base_, bytes_;
  std::map<uint64_t, uint64_t> blocks_;  // offset -> rounded size, of each live block
};

}  // namespace warpsim::ptx
