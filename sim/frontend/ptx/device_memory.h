#pragma once
// Global memory of an emulated launch: named buffers at fixed addresses with unmapped gaps
// between them, so an out-of-bounds access is caught and reported against the nearest buffer.
#include <cstdint>
#include <string>
#include <vector>

namespace warpsim::ptx {

class DeviceMemory {
 public:
  struct Buffer {
    std::string name;
    uint64_t base = 0;
    std::vector<uint8_t> bytes;
  };

  // Returns the new buffer's address (256-byte aligned, 64 KiB after the previous buffer).
  uint64_t allocate(const std::string& name, std::vector<uint8_t> bytes);
  // A pointer to `size` bytes at `address`, or nullptr if they are not all inside one buffer.
  uint8_t* at(uint64_t address, uint64_t size);
  // "buffer 'x' [0x..., 0x...)" for the buffer nearest `address`, for messages.
  std::string nearest(uint64_t address) const;
  const Buffer* find(const std::string& name) const;
  const std::vector<Buffer>& buffers() const { return buffers_; }

 private:
  std::vector<Buffer> buffers_;  // ascending base
  size_t last_ = 0;              // the buffer the previous access hit
  uint64_t next_ = 0x10000000;
};

}  // namespace warpsim::ptx
