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
    // For a buffer allocated undefined (`init: none`): per byte, whether anything has written
    // it. Empty: every byte is defined.
    std::vector<uint8_t> written;
    // For a buffer a texture or surface object reads (watch_texture_reads): per byte, the source
    // line of the instruction that last wrote it in the launch under way, 0 if none has. Empty:
    // not watched.
    std::vector<uint32_t> launch_written;
  };

  // Returns the new buffer's address (256-byte aligned, 64 KiB after the previous buffer).
  // `undefined`: its bytes start undefined (as cudaMalloc leaves them), and reads of bytes
  // nothing has written can be found (first_unwritten).
  uint64_t allocate(const std::string& name, std::vector<uint8_t> bytes, bool undefined = false);
  // Whether any buffer started undefined: only then do the emulator's accesses mark and check.
  bool tracks_writes() const { return tracks_writes_; }
  // Records that [address, address + size) has been written by the instruction at source line
  // `line` (bytes outside buffers are ignored), or, for memory handed out anew (a device malloc
  // block), that it is undefined again.
  void mark_written(uint64_t address, uint64_t size, uint32_t line);
  void mark_unwritten(uint64_t address, uint64_t size);
  // Texture and surface reads are not coherent with the same kernel's writes (CUDA C++
  // Programming Guide, "Read/Write Coherency"): for a buffer they read, writes are remembered
  // per launch (mark_written) and begin_launch forgets them.
  void watch_texture_reads(const std::string& name);
  void begin_launch();
  // The offset in its buffer of the first byte of [address, address + size) the launch under way
  // has written, in a watched buffer, and the source line of its last writer; -1 when none.
  int64_t first_written_in_launch(uint64_t address, uint64_t size, uint32_t* writer_line = nullptr);
  // The buffer and the offset in it of the first byte of [address, address + size) nothing has
  // written; null when every byte is defined.
  const Buffer* first_unwritten(uint64_t address, uint64_t size, uint64_t* offset = nullptr);
  // The buffer holding all of [address, address + size), or null.
  Buffer* buffer_at(uint64_t address, uint64_t size);
  // A pointer to `size` bytes at `address`, or nullptr if they are not all inside one buffer.
  uint8_t* at(uint64_t address, uint64_t size);
  // "buffer 'x' [0x..., 0x...)" for the buffer nearest `address`, for messages.
  std::string nearest(uint64_t address) const;
  const Buffer* find(const std::string& name) const;
  const std::vector<Buffer>& buffers() const { return buffers_; }

 private:
  std::vector<Buffer> buffers_;  // ascending base
  size_t last_ = 0;              // the buffer the previous access hit
  bool tracks_writes_ = false;
  uint64_t next_ = 0x10000000;
};

}  // namespace warpsim::ptx
