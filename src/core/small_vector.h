// SmallVector<T, N>: a vector that keeps up to N elements inline (in the
// object, no heap allocation) and moves them to the heap beyond that, as
// c10::SmallVector / llvm::SmallVector. Shape (core/shape.h) is
// SmallVector<int64_t, 6>, so sizes and strides of tensors up to 6 dims and
// the loop geometry of kernels cost no allocation.
//
// Only for trivially copyable T (elements are moved with memcpy and never
// destroyed one by one). The interface is the subset of std::vector the
// library uses; iterators are plain pointers, invalidated as std::vector's
// are (any growth may move the elements).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "core/vector_access.h"

namespace tsr {

template <typename T, size_t N>
class SmallVector : public VectorAccess<SmallVector<T, N>, T> {
  friend class VectorAccess<SmallVector<T, N>, T>;
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds trivially copyable types");
  static_assert(N > 0, "SmallVector needs an inline capacity");

 public:
  using typename VectorAccess<SmallVector<T, N>, T>::iterator;
  using typename VectorAccess<SmallVector<T, N>, T>::const_iterator;
  using VectorAccess<SmallVector<T, N>, T>::begin;
  using VectorAccess<SmallVector<T, N>, T>::end;
  using VectorAccess<SmallVector<T, N>, T>::back;

  static constexpr size_t inline_capacity = N;
  static constexpr const char* kName = "SmallVector";

  SmallVector() noexcept = default;
  explicit SmallVector(size_t count) { assign(count, T()); }
  SmallVector(size_t count, const T& value) { assign(count, value); }
  template <std::input_iterator It>
  SmallVector(It first, It last) {
    assign(first, last);
  }
  SmallVector(std::initializer_list<T> init) { assign(init.begin(), init.end()); }
  // From a std::vector: explicit, so that a conversion is visible at the
  // call site.
  explicit SmallVector(const std::vector<T>& v) { assign(v.begin(), v.end()); }

  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  SmallVector& operator=(std::initializer_list<T> init) {
    assign(init.begin(), init.end());
    return *this;
  }
  ~SmallVector() { release(); }

  // ---- size and capacity
  bool is_inline() const noexcept { return data_ == inline_data(); }
  void reserve(size_t n) {
    if (n > cap_) grow_to(n);
  }
  void clear() noexcept { size_ = 0; }

  // ---- modifiers
  void push_back(const T& v) {
    if (size_ == cap_) {
      T copy = v;  // v may live inside this vector
      grow_to(next_capacity(size_ + 1));
      data_[size_++] = copy;
      return;
    }
    data_[size_++] = v;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    push_back(T(std::forward<Args>(args)...));
    return back();
  }
  void pop_back() noexcept { --size_; }

  void resize(size_t n) { resize(n, T()); }
  void resize(size_t n, const T& v) {
    if (n > size_) {
      T copy = v;
      reserve(n);
      std::fill(data_ + size_, data_ + n, copy);
    }
    size_ = n;
  }

  void assign(size_t count, const T& v) {
    T copy = v;
    size_ = 0;
    reserve(count);
    std::fill(data_, data_ + count, copy);
    size_ = count;
  }
  template <std::input_iterator It>
  void assign(It first, It last) {
    if constexpr (std::forward_iterator<It>) {
      size_t n = size_t(std::distance(first, last));
      if (n > cap_) {
        // first..last may point into this vector: copy before freeing.
        SmallVector tmp;
        tmp.grow_to(n);
        std::copy(first, last, tmp.data_);
        tmp.size_ = n;
        *this = std::move(tmp);
        return;
      }
      // Within capacity: std::copy handles a source that overlaps from the
      // left (a sub-range of this vector starts at or after data_).
      std::copy(first, last, data_);
      size_ = n;
    } else {
      SmallVector tmp;
      for (; first != last; ++first) tmp.push_back(*first);
      *this = std::move(tmp);
    }
  }
  void assign(std::initializer_list<T> init) { assign(init.begin(), init.end()); }

  iterator insert(const_iterator pos, const T& v) { return insert(pos, size_t(1), v); }
  iterator insert(const_iterator pos, size_t count, const T& v) {
    size_t at = size_t(pos - data_);
    T copy = v;
    make_gap(at, count);
    std::fill(data_ + at, data_ + at + count, copy);
    return data_ + at;
  }
  template <std::input_iterator It>
  iterator insert(const_iterator pos, It first, It last) {
    size_t at = size_t(pos - data_);
    // Copy the source first: it may be a range of this vector.
    SmallVector src(first, last);
    make_gap(at, src.size_);
    if (src.size_) std::memcpy(data_ + at, src.data_, src.size_ * sizeof(T));
    return data_ + at;
  }
  iterator insert(const_iterator pos, std::initializer_list<T> init) {
    return insert(pos, init.begin(), init.end());
  }

  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    size_t at = size_t(first - data_), n = size_t(last - first);
    if (n) {
      std::memmove(data_ + at, data_ + at + n, (size_ - at - n) * sizeof(T));
      size_ -= n;
    }
    return data_ + at;
  }

  void swap(SmallVector& o) noexcept {
    SmallVector tmp(std::move(o));
    o = std::move(*this);
    *this = std::move(tmp);
  }

  // An explicit copy for the places that need a std::vector.
  std::vector<T> to_vector() const { return std::vector<T>(begin(), end()); }

  friend bool operator<(const SmallVector& a, const SmallVector& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  T* inline_data() noexcept { return reinterpret_cast<T*>(storage_); }
  const T* inline_data() const noexcept { return reinterpret_cast<const T*>(storage_); }

  static size_t next_capacity(size_t need) { return std::max(need, 2 * need - need / 2); }

  void grow_to(size_t n) {
    n = std::max(n, 2 * cap_);
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    T* p = static_cast<T*>(std::malloc(n * sizeof(T)));
    if (!p) throw std::bad_alloc();
    if (size_) std::memcpy(p, data_, size_ * sizeof(T));
    release();
    data_ = p;
    cap_ = n;
  }
  void release() noexcept {
    if (!is_inline()) std::free(data_);
    data_ = inline_data();
    cap_ = N;
  }
  // Takes o's elements; o is left empty and inline. *this must hold no heap
  // block.
  void steal(SmallVector& o) noexcept {
    if (o.is_inline()) {
      if (o.size_) std::memcpy(inline_data(), o.data_, o.size_ * sizeof(T));
      data_ = inline_data();
      cap_ = N;
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_data();
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }
  // Opens count uninitialised slots at index at.
  void make_gap(size_t at, size_t count) {
    if (!count) return;
    reserve(size_ + count);
    std::memmove(data_ + at + count, data_ + at, (size_ - at) * sizeof(T));
    size_ += count;
  }

  T* data_ = inline_data();
  size_t size_ = 0;
  size_t cap_ = N;
  alignas(T) unsigned char storage_[N * sizeof(T)];
};

// A stable sort that allocates nothing (std::stable_sort takes a temporary
// buffer from the heap): insertion sort, for the few dims of a shape.
template <typename It, typename Less>
void stable_sort_small(It first, It last, Less less) {
  if (first == last) return;
  for (It i = std::next(first); i != last; ++i) {
    auto v = std::move(*i);
    It j = i;
    while (j != first && less(v, *std::prev(j))) {
      *j = std::move(*std::prev(j));
      --j;
    }
    *j = std::move(v);
  }
}

}  // namespace tsr
