#include "core/shape.h"

#include <algorithm>
#include <string>

namespace tsr {

int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  int64_t r;
  TSR_CHECK(!__builtin_mul_overflow(a, b, &r), TSR_ERR_INVALID_ARGUMENT, what,
            " overflows int64 (", a, " * ", b, ")");
  return r;
}

int64_t checked_numel(const Shape& sizes) {
  int64_t n = 1;
  bool zero = false;
  for (int64_t s : sizes) {
    TSR_CHECK(s >= 0, TSR_ERR_INVALID_ARGUMENT,
              "Trying to create tensor with negative dimension ", s, ": ", sizes);
    if (s == 0) zero = true;
    else n = checked_mul(n, s, "number of elements");
  }
  return zero ? 0 : n;
}

Shape shape_from(int64_t ndim, const int64_t* ptr, const char* what, bool nonnegative) {
  TSR_CHECK(ndim >= 0 && ndim <= kMaxDims, TSR_ERR_INVALID_ARGUMENT, what,
            ": number of dims must be in [0, ", kMaxDims, "], got ", ndim);
  TSR_CHECK(ndim == 0 || ptr != nullptr, TSR_ERR_INVALID_ARGUMENT, what,
            " is NULL with ndim ", ndim);
  Shape s(ptr, ptr + ndim);
  if (nonnegative)
    for (int64_t v : s)
      TSR_CHECK(v >= 0, TSR_ERR_INVALID_ARGUMENT, what, " must be non-negative, got ", s);
  return s;
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = ndim > 0 ? ndim : 1;
  TSR_CHECK(dim >= -n && dim < n, TSR_ERR_INVALID_ARGUMENT,
            "Dimension out of range (expected to be in range of [", -n, ", ", n - 1,
            "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

Shape contiguous_strides(const Shape& sizes) {
  Shape st(sizes.size());
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    st[i] = acc;
    acc *= sizes[i] > 1 ? sizes[i] : 1;  // never overflows: numel was checked
  }
  return st;
}

bool try_broadcast_shapes(const Shape& a, const Shape& b, Shape* out) {
  const size_t n = std::max(a.size(), b.size());
  Shape r(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return false;
    r[i] = x == 1 ? y : x;
  }
  *out = r;
  return true;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    TSR_CHECK(x == y || x == 1 || y == 1, TSR_ERR_SHAPE_MISMATCH,
              "The size of tensor a (", x, ") must match the size of tensor b (", y,
              ") at non-singleton dimension ", i, "; shapes ", a, " and ", b);
    out[i] = x == 1 ? y : x;
  }
  return out;
}

int64_t storage_extent(const Shape& sizes, const Shape& strides) {
  // No element, no extent, whatever the strides of the dims before the empty
  // one (PyTorch accepts as_strided([3, 0], [2**62, 1]) as well as [0, 3]).
  for (int64_t s : sizes)
    if (s == 0) return 0;
  int64_t last = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t step = checked_mul(sizes[i] - 1, strides[i], "storage extent");
    TSR_CHECK(!__builtin_add_overflow(last, step, &last), TSR_ERR_INVALID_ARGUMENT,
              "storage extent overflows int64 for sizes ", sizes, " strides ", strides);
  }
  return last + 1;
}

}  // namespace tsr
