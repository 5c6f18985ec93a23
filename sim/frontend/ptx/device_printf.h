#pragma once
// CUDA's device-side printf, as the runtime's vprintf receives it: a format string and a buffer
// holding the arguments, each at the next multiple of its own size (nvcc's layout: int, unsigned
// and char as 4 bytes; long long, double (a float is promoted), pointers and strings as 8).
#include <cstdint>
#include <functional>
#include <string>

namespace warpsim::ptx {

struct PrintfArguments {
  std::function<uint64_t(uint64_t offset, uint32_t bytes)> read;  // little-endian bytes of the buffer
  std::function<std::string(uint64_t address)> string;            // the string a %s argument points to
};

// The text printf would produce, C's conversions applied to the buffer's values; `count` is set to
// the number of arguments consumed (what CUDA's printf returns). A conversion C does not define
// is copied through as written.
std::string format_device_printf(const std::string& format, const PrintfArguments& args, uint32_t& count);

}  // namespace warpsim::ptx
