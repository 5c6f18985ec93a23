#include "frontend/ptx/device_memory.h"

#include <algorithm>
#include <cstdio>

namespace warpsim::ptx {

uint64_t DeviceMemory::allocate(const std::string& name, std::vector<uint8_t> bytes, bool undefined) {
  uint64_t base = next_;
  next_ = (base + bytes.size() + 0x10000 + 255) / 256 * 256;
  std::vector<uint8_t> written(undefined ? bytes.size() : 0, 0);
  buffers_.push_back(Buffer{name, base, std::move(bytes), std::move(written), {}});
  tracks_writes_ = tracks_writes_ || undefined;
  return base;
}

DeviceMemory::Buffer* DeviceMemory::buffer_at(uint64_t address, uint64_t size) {
  auto inside = [&](const Buffer& b) { return address >= b.base && address + size <= b.base + b.bytes.size() && address + size >= address; };
  // Consecutive accesses mostly hit the same buffer: try it before searching.
  if (last_ < buffers_.size() && inside(buffers_[last_])) return &buffers_[last_];
  for (size_t i = 0; i < buffers_.size(); ++i) {
    if (inside(buffers_[i])) {
      last_ = i;
      return &buffers_[i];
    }
  }
  return nullptr;
}

uint8_t* DeviceMemory::at(uint64_t address, uint64_t size) {
  Buffer* b = buffer_at(address, size);
  return b ? b->bytes.data() + (address - b->base) : nullptr;
}

void DeviceMemory::mark_written(uint64_t address, uint64_t size, uint32_t line) {
  Buffer* b = buffer_at(address, size);
  if (!b) return;
  const auto at = static_cast<std::ptrdiff_t>(address - b->base);
  if (!b->written.empty()) std::fill_n(b->written.begin() + at, size, uint8_t{1});
  if (!b->launch_written.empty()) std::fill_n(b->launch_written.begin() + at, size, std::max(line, 1u));
}

void DeviceMemory::watch_texture_reads(const std::string& name) {
  for (Buffer& b : buffers_)
    if (b.name == name && b.launch_written.empty()) b.launch_written.assign(b.bytes.size(), 0);
  tracks_writes_ = true;
}

void DeviceMemory::begin_launch() {
  for (Buffer& b : buffers_)
    if (!b.launch_written.empty()) std::fill(b.launch_written.begin(), b.launch_written.end(), 0u);
}

int64_t DeviceMemory::first_written_in_launch(uint64_t address, uint64_t size, uint32_t* writer_line) {
  const Buffer* b = buffer_at(address, size);
  if (!b || b->launch_written.empty()) return -1;
  for (uint64_t k = 0; k < size; ++k) {
    if (const uint32_t line = b->launch_written[address - b->base + k]) {
      if (writer_line) *writer_line = line;
      return static_cast<int64_t>(address - b->base + k);
    }
  }
  return -1;
}

void DeviceMemory::mark_unwritten(uint64_t address, uint64_t size) {
  Buffer* b = buffer_at(address, size);
  if (b && !b->written.empty()) std::fill_n(b->written.begin() + static_cast<std::ptrdiff_t>(address - b->base), size, uint8_t{0});
}

const DeviceMemory::Buffer* DeviceMemory::first_unwritten(uint64_t address, uint64_t size, uint64_t* offset) {
  const Buffer* b = buffer_at(address, size);
  if (!b || b->written.empty()) return nullptr;
  for (uint64_t k = 0; k < size; ++k) {
    if (!b->written[address - b->base + k]) {
      if (offset) *offset = address - b->base + k;
      return b;
    }
  }
  return nullptr;
}

std::string DeviceMemory::nearest(uint64_t address) const {
  const Buffer* best = nullptr;
  uint64_t best_distance = UINT64_MAX;
  for (const auto& b : buffers_) {
    uint64_t end = b.base + b.bytes.size();
    uint64_t d = address < b.base ? b.base - address : address >= end ? address - end + 1 : 0;
    if (d < best_distance) best = &b, best_distance = d;
  }
  if (!best) return "no buffer";
  char buf[160];
  std::snprintf(buf, sizeof buf, "buffer '%s' [0x%llx, 0x%llx)", best->name.c_str(), static_cast<unsigned long long>(best->base),
                static_cast<unsigned long long>(best->base + best->bytes.size()));
  return buf;
}

const DeviceMemory::Buffer* DeviceMemory::find(const std::string& name) const {
  for (const auto& b : buffers_)
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace warpsim::ptx
