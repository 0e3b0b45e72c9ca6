#include "cpu/kernels/sort.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/kernels/empty_cpu.h"
#include "cpu/kernels/index_walk.h"
#include "cpu/kernels/parallel_for.h"

namespace tsr::kernels {

namespace {

// ---- keys ---------------------------------------------------------------------
// Each value maps to an unsigned key whose order is the values' order:
// floats by their bits (sign folded, -0 as +0, every NaN the largest),
// signed integers with the sign bit flipped. Descending order inverts the
// key, so one ascending sort serves both and ties keep their positions.

template <typename T>
using key_t = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

template <typename T>
key_t<T> ascending_key(T v) {
  using K = key_t<T>;
  if constexpr (std::is_same_v<T, bool>) {
    return K(v);
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) return K(std::make_unsigned_t<T>(v)) ^ (K(1) << (sizeof(T) * 8 - 1));
    else return K(v);
  } else {
    using F = std::conditional_t<sizeof(T) == 8, double, float>;
    F f = F(compute_t<T>(v));
    if (std::isnan(f)) return std::numeric_limits<K>::max();
    if (f == 0) f = 0;  // -0 sorts with +0, as torch's comparisons see them
    K b;
    std::memcpy(&b, &f, sizeof b);
    constexpr K sign = K(1) << (sizeof(K) * 8 - 1);
    return (b & sign) ? ~b : (b | sign);
  }
}

template <typename T>
key_t<T> key_of(T v, bool descending) {
  const key_t<T> k = ascending_key(v);
  return descending ? ~k : k;
}

// ---- slices -------------------------------------------------------------------

// The slices of t along dim: slice s holds t's elements base[s] + j *
// stride for j < n (element offsets).
struct Slices {
  std::vector<int64_t> base;
  int64_t n = 1, stride = 0;
};

Slices slices_of(const Tensor& t, int64_t dim) {
  Slices s;
  if (t.ndim() == 0) {
    s.base = {0};
    return s;
  }
  Shape sizes = t.sizes(), strides = t.strides();
  s.n = sizes[size_t(dim)];
  s.stride = strides[size_t(dim)];
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  int64_t count = 1;
  for (int64_t v : sizes) count *= v;
  s.base.reserve(size_t(count));
  if (sizes.empty()) {
    s.base.push_back(0);
  } else if (count > 0) {
    walk<1>(sizes, {strides}, [&](const std::array<int64_t, 1>& o) { s.base.push_back(o[0]); });
  }
  return s;
}

// ---- sorting one slice --------------------------------------------------------

// LSD radix sort of (key, position) pairs by key, 8 bits a pass; a pass
// whose byte is the same in every key is skipped. Stable.
template <typename K>
void radix_sort(std::vector<K>& keys, std::vector<uint32_t>& pos, std::vector<K>& kt, std::vector<uint32_t>& pt) {
  const size_t n = keys.size();
  kt.resize(n);
  pt.resize(n);
  for (unsigned shift = 0; shift < sizeof(K) * 8; shift += 8) {
    size_t count[256] = {0};
    for (size_t i = 0; i < n; ++i) ++count[(keys[i] >> shift) & 0xff];
    if (count[(keys[0] >> shift) & 0xff] == n) continue;
    size_t at = 0;
    for (size_t& c : count) {
      const size_t here = c;
      c = at;
      at += here;
    }
    for (size_t i = 0; i < n; ++i) {
      const size_t b = count[(keys[i] >> shift) & 0xff]++;
      kt[b] = keys[i];
      pt[b] = pos[i];
    }
    keys.swap(kt);
    pos.swap(pt);
  }
}

// Sorts positions 0..n-1 of one slice by key (stable).
template <typename K>
void sort_positions(std::vector<K>& keys, std::vector<uint32_t>& pos) {
  const size_t n = keys.size();
  if (n < 256) {  // short slices: a comparison sort beats 4-8 passes over 256 buckets
    std::vector<std::pair<K, uint32_t>> kp(n);
    for (size_t i = 0; i < n; ++i) kp[i] = {keys[i], pos[i]};
    std::stable_sort(kp.begin(), kp.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < n; ++i) pos[i] = kp[i].second;
    return;
  }
  std::vector<K> kt;
  std::vector<uint32_t> pt;
  radix_sort(keys, pos, kt, pt);
}

// The positions of the k smallest keys of one slice, in order (ties by
// position): a histogram of the keys' top 16 bits finds the bucket the
// k-th falls in; only that bucket and those below are collected and sorted.
template <typename K, typename KeyAt>
void smallest_positions(int64_t n, int64_t k, KeyAt&& key_at, std::vector<uint32_t>& out) {
  constexpr unsigned shift = sizeof(K) * 8 - 16;
  std::vector<uint32_t> count(65536, 0);
  for (int64_t j = 0; j < n; ++j) ++count[size_t(key_at(j) >> shift)];
  size_t bucket = 0;
  for (int64_t below = 0;; ++bucket) {
    below += count[bucket];
    if (below >= k) break;
  }
  std::vector<std::pair<K, uint32_t>> kp;
  for (int64_t j = 0; j < n; ++j) {
    const K key = key_at(j);
    if (size_t(key >> shift) <= bucket) kp.push_back({key, uint32_t(j)});
  }
  std::sort(kp.begin(), kp.end());  // (key, position): ties by position
  out.resize(size_t(k));
  for (int64_t i = 0; i < k; ++i) out[size_t(i)] = kp[size_t(i)].second;
}

void check_slice_length(int64_t n) {
  TSR_CHECK(n <= int64_t(std::numeric_limits<uint32_t>::max()), TSR_ERR_UNSUPPORTED,
            "sorting a dim of more than 2^32 - 1 elements (", n, ") is not supported");
}

}  // namespace

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim0, bool descending) {
  const int64_t dim = wrap_dim(dim0, x.ndim());
  Tensor values = empty_cpu(x.sizes(), x.dtype()), indices = empty_cpu(x.sizes(), TSR_INT64);
  if (x.numel() == 0) return {values, indices};
  const Slices in = slices_of(x, dim), out = slices_of(values, dim);
  check_slice_length(in.n);
  const int64_t n = in.n;
  dispatch_all(x.dtype(), [&]<typename T>() {
    using K = key_t<T>;
    const T* xp = x.data<T>();
    T* vp = values.data<T>();
    int64_t* ip = indices.data<int64_t>();
    parallel_for(int64_t(in.base.size()), std::max<int64_t>(1, kGrainSize / n), [&](int64_t s0, int64_t s1) {
      std::vector<K> keys(static_cast<size_t>(n));
      std::vector<uint32_t> pos(static_cast<size_t>(n));
      for (int64_t s = s0; s < s1; ++s) {
        const T* src = xp + in.base[size_t(s)];
        for (int64_t j = 0; j < n; ++j) {
          keys[size_t(j)] = key_of(src[j * in.stride], descending);
          pos[size_t(j)] = uint32_t(j);
        }
        sort_positions(keys, pos);
        const int64_t ob = out.base[size_t(s)];
        for (int64_t j = 0; j < n; ++j) {
          vp[ob + j * out.stride] = src[int64_t(pos[size_t(j)]) * in.stride];
          ip[ob + j * out.stride] = pos[size_t(j)];
        }
      }
    });
  });
  return {values, indices};
}

namespace {

// The k smallest keys' positions of each slice written through `emit(s,
// i, position)` for i < k.
template <typename Emit>
void select_each_slice(const Tensor& x, const Slices& in, int64_t k, bool largest, Emit&& emit) {
  const int64_t n = in.n;
  dispatch_all(x.dtype(), [&]<typename T>() {
    using K = key_t<T>;
    const T* xp = x.data<T>();
    parallel_for(int64_t(in.base.size()), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1)),
                 [&](int64_t s0, int64_t s1) {
                   std::vector<uint32_t> pos;
                   for (int64_t s = s0; s < s1; ++s) {
                     const T* src = xp + in.base[size_t(s)];
                     smallest_positions<K>(n, k, [&](int64_t j) { return key_of(src[j * in.stride], largest); },
                                           pos);
                     for (int64_t i = 0; i < k; ++i) emit(s, i, int64_t(pos[size_t(i)]));
                   }
                 });
  });
}

}  // namespace

std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim0, bool largest) {
  const int64_t dim = wrap_dim(dim0, x.ndim());
  Shape sizes = x.sizes();
  if (x.ndim()) sizes[size_t(dim)] = k;
  Tensor values = empty_cpu(sizes, x.dtype()), indices = empty_cpu(sizes, TSR_INT64);
  if (values.numel() == 0) return {values, indices};
  const Slices in = slices_of(x, dim), out = slices_of(values, dim);
  check_slice_length(in.n);
  const int64_t es = x.element_size();
  const char* xp = static_cast<const char*>(x.data_ptr());
  char* vp = static_cast<char*>(values.data_ptr());
  int64_t* ip = indices.data<int64_t>();
  select_each_slice(x, in, k, largest, [&](int64_t s, int64_t i, int64_t j) {
    const int64_t o = out.base[size_t(s)] + i * out.stride;
    std::memcpy(vp + o * es, xp + (in.base[size_t(s)] + j * in.stride) * es, size_t(es));
    ip[o] = j;
  });
  return {values, indices};
}

std::pair<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim0, bool keepdim) {
  const int64_t dim = wrap_dim(dim0, x.ndim());
  Shape sizes = x.sizes();
  if (x.ndim()) {
    if (keepdim) sizes[size_t(dim)] = 1;
    else sizes.erase(sizes.begin() + dim);
  }
  Tensor values = empty_cpu(sizes, x.dtype()), indices = empty_cpu(sizes, TSR_INT64);
  if (values.numel() == 0) return {values, indices};
  const Slices in = slices_of(x, dim);
  check_slice_length(in.n);
  const int64_t es = x.element_size();
  const char* xp = static_cast<const char*>(x.data_ptr());
  char* vp = static_cast<char*>(values.data_ptr());
  int64_t* ip = indices.data<int64_t>();
  // The outputs are contiguous and ordered as the slices: slice s at s.
  select_each_slice(x, in, k, false, [&](int64_t s, int64_t i, int64_t j) {
    if (i != k - 1) return;
    std::memcpy(vp + s * es, xp + (in.base[size_t(s)] + j * in.stride) * es, size_t(es));
    ip[s] = j;
  });
  return {values, indices};
}

}  // namespace tsr::kernels
