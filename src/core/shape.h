// Shape arithmetic with overflow checks: element counts, dim wrapping,
// contiguous strides, broadcasting, the extent of a strided layout.
#pragma once

#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/small_vector.h"

namespace tsr {

// Sizes and strides: up to 6 dims inline (no heap allocation), as c10's
// SmallVector<int64_t, 5> in TensorImpl's sizes_and_strides.
using Shape = SmallVector<int64_t, 6>;

// Error messages print a Shape as [a, b, c], as they print vectors.
template <typename T, size_t N>
void append_to(std::ostringstream& os, const SmallVector<T, N>& v) {
  os << '[';
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << ']';
}

// Most dims a tensor may have (PyTorch has no fixed limit; 64 keeps stack
// buffers in kernels bounded).
constexpr int64_t kMaxDims = 64;

// Product of sizes; TSR_ERR_INVALID_ARGUMENT for a negative size or overflow.
int64_t checked_numel(const Shape& sizes);
// a * b, throwing TSR_ERR_INVALID_ARGUMENT on int64 overflow.
int64_t checked_mul(int64_t a, int64_t b, const char* what);
// Copies (ndim, ptr) into a Shape, checking ndim in [0, kMaxDims], ptr
// non-NULL when ndim > 0, and each size >= 0 (for sizes).
Shape shape_from(int64_t ndim, const int64_t* ptr, const char* what, bool nonnegative);
// dim in [-ndim, ndim) -> [0, ndim); for ndim 0, dims -1 and 0 are accepted
// (PyTorch's rule for scalars). Else TSR_ERR_INVALID_ARGUMENT with PyTorch's
// "Dimension out of range (expected to be in range of [a, b], but got d)".
int64_t wrap_dim(int64_t dim, int64_t ndim);
// C-order strides (size-1 and 0-size dims get the stride they would have).
Shape contiguous_strides(const Shape& sizes);
// NumPy broadcast of two shapes; TSR_ERR_SHAPE_MISMATCH naming both.
Shape broadcast_shapes(const Shape& a, const Shape& b);
// The same without throwing: false when a and b do not broadcast (out
// untouched), for callers with their own message.
bool try_broadcast_shapes(const Shape& a, const Shape& b, Shape* out);
// Number of elements from offset 0 that a (sizes, strides) layout reaches:
// 1 + sum((size-1)*stride), or 0 when numel is 0. Overflow checked.
int64_t storage_extent(const Shape& sizes, const Shape& strides);

}  // namespace tsr
