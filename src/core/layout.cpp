#include "core/layout.h"

#include <algorithm>
#include <numeric>

namespace tsr {

void check_memory_format(int f) {
  TSR_CHECK(f == TSR_CONTIGUOUS_FORMAT || f == TSR_PRESERVE_FORMAT || f == TSR_CHANNELS_LAST ||
                f == TSR_CHANNELS_LAST_3D,
            TSR_ERR_INVALID_ARGUMENT, "invalid memory_format value ", f);
}

bool is_contiguous_strides(const Shape& sizes, const Shape& strides) {
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 0) return true;
  }
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

namespace {
// Contiguity in a given physical dim order (innermost first), ignoring size-1
// dims: TensorImpl::compute_channels_last_contiguous_2d/_3d.
bool dense_in_order(const Shape& sizes, const Shape& strides, std::initializer_list<int> order) {
  int64_t expected = 1;
  for (int d : order) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}
}  // namespace

bool is_channels_last_contiguous(const Shape& sizes, const Shape& strides) {
  return sizes.size() == 4 && dense_in_order(sizes, strides, {1, 3, 2, 0});
}
bool is_channels_last_3d_contiguous(const Shape& sizes, const Shape& strides) {
  return sizes.size() == 5 && dense_in_order(sizes, strides, {1, 4, 3, 2, 0});
}

bool is_contiguous_as(const Shape& sizes, const Shape& strides, tsr_memory_format fmt) {
  switch (fmt) {
    case TSR_CONTIGUOUS_FORMAT: return is_contiguous_strides(sizes, strides);
    case TSR_CHANNELS_LAST: return is_channels_last_contiguous(sizes, strides);
    case TSR_CHANNELS_LAST_3D: return is_channels_last_3d_contiguous(sizes, strides);
    case TSR_PRESERVE_FORMAT: break;
  }
  fail(TSR_ERR_INVALID_ARGUMENT, "is_contiguous: memory_format ", int(fmt),
       " is not a layout (preserve_format is not allowed here)");
}

bool is_non_overlapping_and_dense(const Shape& sizes, const Shape& strides) {
  if (is_contiguous_strides(sizes, strides) || is_channels_last_contiguous(sizes, strides) ||
      is_channels_last_3d_contiguous(sizes, strides))
    return true;
  const size_t n = sizes.size();
  if (n == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t require = 1;
  for (size_t d : perm) {
    if (sizes[d] < 2) return true;
    if (strides[d] != require) return false;
    require *= sizes[d];
  }
  return true;
}

namespace {
// c10::is_channels_last_strides_2d_s4 / _3d_s5.
bool strides_like_order(const Shape& sizes, const Shape& strides,
                        std::initializer_list<int> order) {
  int64_t min = 0;
  if (strides[1] == 0) return false;  // trivial C dimension: default to NCHW
  for (int d : order) {
    if (sizes[d] == 0) return false;
    if (strides[d] < min) return false;
    // N111 / N11W ambiguity: fall back to NCHW.
    if (d == 0 && min == strides[1]) return false;
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}
}  // namespace

bool is_channels_last_strides_2d(const Shape& sizes, const Shape& strides) {
  return sizes.size() == 4 && strides_like_order(sizes, strides, {1, 3, 2, 0});
}
bool is_channels_last_strides_3d(const Shape& sizes, const Shape& strides) {
  return sizes.size() == 5 && strides_like_order(sizes, strides, {1, 4, 3, 2, 0});
}

tsr_memory_format suggest_memory_format(const Shape& sizes, const Shape& strides) {
  if (is_channels_last_strides_2d(sizes, strides)) return TSR_CHANNELS_LAST;
  if (is_channels_last_strides_3d(sizes, strides)) return TSR_CHANNELS_LAST_3D;
  return TSR_CONTIGUOUS_FORMAT;
}

Shape strides_for_format(const Shape& sizes, tsr_memory_format fmt) {
  switch (fmt) {
    case TSR_CONTIGUOUS_FORMAT: return contiguous_strides(sizes);
    case TSR_CHANNELS_LAST: {
      TSR_CHECK(sizes.size() == 4, TSR_ERR_INVALID_ARGUMENT,
                "required rank 4 tensor to use channels_last format, got sizes ", sizes);
      // c10::get_channels_last_strides_2d (sizes used as they are, not max(1)).
      Shape s(4);
      s[1] = 1;
      s[3] = sizes[1];
      s[2] = s[3] * sizes[3];
      s[0] = s[2] * sizes[2];
      return s;
    }
    case TSR_CHANNELS_LAST_3D: {
      TSR_CHECK(sizes.size() == 5, TSR_ERR_INVALID_ARGUMENT,
                "required rank 5 tensor to use channels_last_3d format, got sizes ", sizes);
      Shape s(5);
      s[1] = 1;
      s[4] = sizes[1];
      s[3] = s[4] * sizes[4];
      s[2] = s[3] * sizes[3];
      s[0] = s[2] * sizes[2];
      return s;
    }
    case TSR_PRESERVE_FORMAT: break;
  }
  fail(TSR_ERR_INVALID_ARGUMENT, "memory_format ", int(fmt),
       " cannot be used to allocate a tensor (preserve_format needs an input)");
}

SmallVector<size_t, 6> dim_order(const Shape& sizes, const OperandStrides& strides) {
  const size_t n = sizes.size();
  SmallVector<size_t, 6> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = n - 1 - i;  // innermost first
  // -1: d0 before d1, 1: after, 0: undecided.
  auto should_swap = [&](size_t d0, size_t d1) {
    for (const Shape& st : strides) {
      int64_t s0 = st[d0], s1 = st[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (sizes[d0] > sizes[d1]) return 1;
    }
    return 0;
  };
  for (size_t i = 1; i < n; ++i) {
    size_t d1 = i;
    for (size_t j = 1; j <= i; ++j) {
      size_t d0 = i - j;
      int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  return perm;
}

Shape infer_dense_strides(const Shape& sizes, const Shape& strides) {
  const size_t n = sizes.size();
  if (n == 0) return {};
  if (n == 1) return {1};
  Shape out(n);
  int64_t cur = 1;
  for (size_t idx : dim_order(sizes, {strides})) {
    out[idx] = cur;
    if (sizes[idx] > 1) cur *= sizes[idx];  // size 0 counts as 1: numel is 0 anyway
  }
  return out;
}

Shape strides_like(const Shape& sizes, const Shape& strides, tsr_memory_format fmt) {
  if (fmt != TSR_PRESERVE_FORMAT) return strides_for_format(sizes, fmt);
  if (is_non_overlapping_and_dense(sizes, strides)) return strides;
  return infer_dense_strides(sizes, strides);
}

}  // namespace tsr
