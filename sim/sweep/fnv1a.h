#pragma once
// FNV-1a, 64 bits, fed piece by piece: stable across runs, machines and compilers (std::hash is
// not), for sweep point ids and the digests of the files a point's run reads.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace warpsim {

class Fnv1a {
 public:
  void add(const void* data, size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < bytes; ++i) {
      hash_ ^= p[i];
      hash_ *= 0x100000001b3ULL;
    }
  }
  std::string hex() const {
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash_));
    return out;
  }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace warpsim
