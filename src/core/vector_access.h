// VectorAccess<Derived, T>: the read side of a vector whose elements lie in
// one contiguous block (size, element access, iterators, comparison), for
// SmallVector (core/small_vector.h) and InlineVector (core/inline_vector.h),
// which differ only in how they construct, grow and destroy elements.
// Derived keeps `T* data_` and `size_t size_, cap_` and befriends this base.
// Iterators are plain pointers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>

namespace tsr {

template <typename Derived, typename T>
class VectorAccess {
 public:
  using value_type = T;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  // ---- size and capacity
  size_t size() const noexcept { return self().size_; }
  bool empty() const noexcept { return self().size_ == 0; }
  size_t capacity() const noexcept { return self().cap_; }

  // ---- element access
  T* data() noexcept { return self().data_; }
  const T* data() const noexcept { return self().data_; }
  T& operator[](size_t i) noexcept { return data()[i]; }
  const T& operator[](size_t i) const noexcept { return data()[i]; }
  T& at(size_t i) {
    check_index(i);
    return data()[i];
  }
  const T& at(size_t i) const {
    check_index(i);
    return data()[i];
  }
  T& front() noexcept { return data()[0]; }
  const T& front() const noexcept { return data()[0]; }
  T& back() noexcept { return data()[size() - 1]; }
  const T& back() const noexcept { return data()[size() - 1]; }

  iterator begin() noexcept { return data(); }
  iterator end() noexcept { return data() + size(); }
  const_iterator begin() const noexcept { return data(); }
  const_iterator end() const noexcept { return data() + size(); }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }

  friend bool operator==(const Derived& a, const Derived& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const Derived& a, const Derived& b) { return !(a == b); }

 private:
  const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
  Derived& self() noexcept { return static_cast<Derived&>(*this); }
  void check_index(size_t i) const {
    if (i >= size()) throw std::out_of_range(Derived::kName + std::string("::at"));
  }
};

}  // namespace tsr
