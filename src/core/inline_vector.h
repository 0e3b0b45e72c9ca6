// InlineVector<T, N>: a vector that keeps up to N elements inline (in the
// object, no heap allocation) and moves them to the heap beyond that, for
// element types with constructors and destructors (Tensor). SmallVector
// (core/small_vector.h) is the memcpy version for trivially copyable types.
//
// Used for prim::Tensors, the inputs and outputs of every primitive run:
// almost every op has at most 4 of each, so running one allocates no list.
//
// The interface is the subset of std::vector the library uses; iterators
// are plain pointers, invalidated as std::vector's are. It converts to and
// from std::vector<T> implicitly (the conversion moves the elements when the
// source is an rvalue), so code written for std::vector<Tensor> keeps
// working; each such conversion costs the allocation InlineVector saves, so
// the hot paths (autograd::run, the engine) use InlineVector throughout.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/vector_access.h"

namespace tsr {

template <typename T, size_t N>
class InlineVector : public VectorAccess<InlineVector<T, N>, T> {
  friend class VectorAccess<InlineVector<T, N>, T>;
  static_assert(N > 0, "InlineVector needs an inline capacity");
  static_assert(std::is_nothrow_move_constructible_v<T>, "InlineVector moves elements with noexcept");

 public:
  using typename VectorAccess<InlineVector<T, N>, T>::iterator;
  using typename VectorAccess<InlineVector<T, N>, T>::const_iterator;
  using VectorAccess<InlineVector<T, N>, T>::begin;
  using VectorAccess<InlineVector<T, N>, T>::end;
  using VectorAccess<InlineVector<T, N>, T>::back;

  static constexpr size_t inline_capacity = N;
  static constexpr const char* kName = "InlineVector";

  InlineVector() noexcept = default;
  explicit InlineVector(size_t count) { resize(count); }
  InlineVector(size_t count, const T& value) { resize(count, value); }
  template <std::input_iterator It>
  InlineVector(It first, It last) {
    append(first, last);
  }
  InlineVector(std::initializer_list<T> init) { append(init.begin(), init.end()); }
  // From and to std::vector: implicit, for code written for std::vector
  // (see the file comment for what that costs).
  InlineVector(const std::vector<T>& v) { append(v.begin(), v.end()); }
  InlineVector(std::vector<T>&& v) {
    append(std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
  }
  operator std::vector<T>() const& { return std::vector<T>(begin(), end()); }
  operator std::vector<T>() && {
    return std::vector<T>(std::make_move_iterator(begin()), std::make_move_iterator(end()));
  }

  InlineVector(const InlineVector& o) { append(o.begin(), o.end()); }
  InlineVector(InlineVector&& o) noexcept { steal(o); }
  InlineVector& operator=(const InlineVector& o) {
    if (this != &o) {
      InlineVector tmp(o);  // o's elements may throw while copied: copy first
      *this = std::move(tmp);
    }
    return *this;
  }
  InlineVector& operator=(InlineVector&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  InlineVector& operator=(std::initializer_list<T> init) {
    *this = InlineVector(init);
    return *this;
  }
  ~InlineVector() { release(); }

  // ---- size and capacity
  bool is_inline() const noexcept { return data_ == inline_data(); }
  void reserve(size_t n) {
    if (n > cap_) grow_to(n);
  }
  void clear() noexcept {
    std::destroy(data_, data_ + size_);
    size_ = 0;
  }

  // ---- modifiers
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == cap_) {
      // Build the element first: args may refer into this vector.
      T tmp(std::forward<Args>(args)...);
      grow_to(size_ + 1);
      ::new (static_cast<void*>(data_ + size_)) T(std::move(tmp));
    } else {
      ::new (static_cast<void*>(data_ + size_)) T(std::forward<Args>(args)...);
    }
    return data_[size_++];
  }
  void pop_back() noexcept { data_[--size_].~T(); }

  void resize(size_t n) {
    if (n < size_) {
      std::destroy(data_ + n, data_ + size_);
      size_ = n;
      return;
    }
    reserve(n);
    for (; size_ < n; ++size_) ::new (static_cast<void*>(data_ + size_)) T();
  }
  void resize(size_t n, const T& v) {
    if (n < size_) {
      std::destroy(data_ + n, data_ + size_);
      size_ = n;
      return;
    }
    T copy = v;  // v may live inside this vector
    reserve(n);
    for (; size_ < n; ++size_) ::new (static_cast<void*>(data_ + size_)) T(copy);
  }

  template <std::input_iterator It>
  void assign(It first, It last) {
    *this = InlineVector(first, last);
  }
  void assign(size_t count, const T& v) { *this = InlineVector(count, v); }

  // Inserts before pos (by rotating appended elements into place).
  iterator insert(const_iterator pos, const T& v) { return insert(pos, &v, &v + 1); }
  iterator insert(const_iterator pos, T&& v) {
    const size_t at = size_t(pos - data_);
    emplace_back(std::move(v));
    std::rotate(data_ + at, data_ + size_ - 1, data_ + size_);
    return data_ + at;
  }
  template <std::input_iterator It>
  iterator insert(const_iterator pos, It first, It last) {
    const size_t at = size_t(pos - data_);
    InlineVector src(first, last);  // the range may be in this vector
    const size_t old = size_;
    reserve(size_ + src.size());
    for (T& x : src) emplace_back(std::move(x));
    std::rotate(data_ + at, data_ + old, data_ + size_);
    return data_ + at;
  }
  iterator insert(const_iterator pos, std::initializer_list<T> init) {
    return insert(pos, init.begin(), init.end());
  }

  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    T* f = data_ + (first - data_);
    T* l = data_ + (last - data_);
    if (f != l) {
      T* new_end = std::move(l, data_ + size_, f);
      std::destroy(new_end, data_ + size_);
      size_ = size_t(new_end - data_);
    }
    return f;
  }

  void swap(InlineVector& o) noexcept {
    InlineVector tmp(std::move(o));
    o = std::move(*this);
    *this = std::move(tmp);
  }


 private:
  T* inline_data() noexcept { return reinterpret_cast<T*>(storage_); }
  const T* inline_data() const noexcept { return reinterpret_cast<const T*>(storage_); }

  template <typename It>
  void append(It first, It last) {
    if constexpr (std::forward_iterator<It>) reserve(size_ + size_t(std::distance(first, last)));
    for (; first != last; ++first) emplace_back(*first);
  }

  void grow_to(size_t n) {
    n = std::max(n, 2 * cap_);
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    T* p = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
    std::uninitialized_move(data_, data_ + size_, p);
    std::destroy(data_, data_ + size_);
    free_heap();
    data_ = p;
    cap_ = n;
  }
  void free_heap() noexcept {
    if (!is_inline()) ::operator delete(data_, std::align_val_t(alignof(T)));
  }
  void release() noexcept {
    std::destroy(data_, data_ + size_);
    free_heap();
    data_ = inline_data();
    size_ = 0;
    cap_ = N;
  }
  // Takes o's elements; o is left empty and inline. *this must be empty
  // and inline.
  void steal(InlineVector& o) noexcept {
    if (o.is_inline()) {
      std::uninitialized_move(o.data_, o.data_ + o.size_, inline_data());
      std::destroy(o.data_, o.data_ + o.size_);
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

  T* data_ = inline_data();
  size_t size_ = 0;
  size_t cap_ = N;
  alignas(T) unsigned char storage_[N * sizeof(T)];
};

}  // namespace tsr
