#pragma once
// A first-in first-out queue on one vector. Nothing is allocated until the first push (libstdc++'s
// std::deque allocates two blocks even when empty) and the storage is reused once the queue
// drains: the PTX emulator keeps two per warp, nearly always empty, and a big grid builds
// hundreds of thousands of warps (docs/performance.md, "Emulated PTX").
#include <cstddef>
#include <utility>
#include <vector>

namespace warpsim {

template <class T>
class Fifo {
 public:
  bool empty() const { return head_ == items_.size(); }
  size_t size() const { return items_.size() - head_; }
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  void push_back(T item) { items_.push_back(std::move(item)); }
  void pop_front() {
    if (++head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= kCompactAfter && 2 * head_ >= items_.size()) {
      // A queue that is pushed to as fast as it is popped never drains: drop the popped half, so
      // memory stays bounded by twice the queue's length (amortised O(1) per pop).
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }
  auto begin() const { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  auto end() const { return items_.end(); }

 private:
  static constexpr size_t kCompactAfter = 32;
  std::vector<T> items_;
  size_t head_ = 0;
};

}  // namespace warpsim
