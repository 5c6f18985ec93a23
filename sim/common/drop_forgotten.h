#pragma once
// A vector consumed from the front (entries before `first` are done with) drops them now and then,
// in bulk: erasing a few at every step would move the whole vector each time, and never erasing
// lets it grow through memory the host has long evicted.
#include <cstddef>
#include <vector>

namespace warpsim {

template <class T>
void drop_forgotten(std::vector<T>& v, size_t& first) {
  if (first > 64 && first * 2 > v.size()) {
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(first));
    first = 0;
  }
}

}  // namespace warpsim
