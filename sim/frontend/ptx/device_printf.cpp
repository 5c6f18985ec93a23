#include "frontend/ptx/device_printf.h"

#include <bit>
#include <cstdio>
#include <cstring>

namespace warpsim::ptx {
namespace {

std::string printed(const char* spec, auto value) {
  const int n = std::snprintf(nullptr, 0, spec, value);
  if (n <= 0) return {};
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), spec, value);
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace

std::string format_device_printf(const std::string& format, const PrintfArguments& args, uint32_t& count) {
  std::string out;
  uint64_t offset = 0;
  count = 0;
  auto next = [&](uint32_t bytes) {
    offset = (offset + bytes - 1) / bytes * bytes;
    const uint64_t v = args.read(offset, bytes);
    offset += bytes;
    ++count;
    return v;
  };
  size_t i = 0;
  while (i < format.size()) {
    const char c = format[i];
    if (c != '%') {
      out += c;
      ++i;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out += '%';
      i += 2;
      continue;
    }
    // %[flags][width][.precision][length]conversion; a '*' width or precision takes an int.
    const size_t start = i++;
    std::string spec = "%";
    while (i < format.size() && std::strchr("-+ #0", format[i])) spec += format[i++];
    auto number = [&] {
      if (i < format.size() && format[i] == '*') {
        spec += std::to_string(static_cast<int32_t>(next(4)));
        ++i;
        return;
      }
      while (i < format.size() && format[i] >= '0' && format[i] <= '9') spec += format[i++];
    };
    number();
    if (i < format.size() && format[i] == '.') {
      spec += format[i++];
      number();
    }
    uint32_t longs = 0;
    while (i < format.size() && std::strchr("hlLqjzt", format[i])) longs += std::strchr("lLqjzt", format[i++]) ? 1 : 0;
    if (i >= format.size()) {  // a lone '%' at the end
      out += format.substr(start);
      break;
    }
    const char conv = format[i++];
    const bool wide = longs > 0;
    switch (conv) {
      case 'd': case 'i': {
        const uint64_t v = next(wide ? 8 : 4);
        const int64_t x = wide ? std::bit_cast<int64_t>(v) : static_cast<int32_t>(v);
        out += printed((spec + "lld").c_str(), static_cast<long long>(x));
        break;
      }
      case 'u': case 'x': case 'X': case 'o': {
        const uint64_t v = next(wide ? 8 : 4);
        out += printed((spec + "ll" + conv).c_str(), static_cast<unsigned long long>(wide ? v : static_cast<uint32_t>(v)));
        break;
      }
      case 'c':
        out += printed((spec + "c").c_str(), static_cast<int>(static_cast<int32_t>(next(4))));
        break;
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
        out += printed((spec + conv).c_str(), std::bit_cast<double>(next(8)));
        break;
      case 'p':
        out += printed("0x%llx", static_cast<unsigned long long>(next(8)));
        break;
      case 's':
        out += printed((spec + "s").c_str(), args.string(next(8)).c_str());
        break;
      default:  // not a C conversion: print it as written
        out += format.substr(start, i - start);
    }
  }
  return out;
}

}  // namespace warpsim::ptx
