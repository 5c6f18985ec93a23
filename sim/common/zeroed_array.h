#pragma once
// A fixed-size array whose elements start as all-zero bytes, taken from calloc. A large one comes
// from fresh pages the OS zeroes when first touched, so a 50 MB L2's tag array costs nothing until
// the simulation uses a set; a std::vector writes every byte up front, which was a third of a
// small run's instructions. For implicit-lifetime types whose zero bytes are their empty value.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace warpsim {

template <class T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  ZeroedArray() = default;
  explicit ZeroedArray(size_t size) : data_(size ? static_cast<T*>(std::calloc(size, sizeof(T))) : nullptr), size_(size) {
    if (size && !data_) throw std::bad_alloc();
  }
  T& operator[](size_t i) { return data_.get()[i]; }
  const T& operator[](size_t i) const { return data_.get()[i]; }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> data_;
  size_t size_ = 0;
};

}  // namespace warpsim
