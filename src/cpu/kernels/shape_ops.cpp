#include "cpu/kernels/shape_ops.h"

#include <cmath>
#include <cstring>

#include "core/views.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/empty_cpu.h"
#include "cpu/kernels/index_walk.h"
#include "cpu/kernels/map.h"

namespace tsr::kernels {

Tensor linspace(double start, double end, int64_t steps, tsr_dtype dtype) {
  Tensor out = empty_cpu({steps}, dtype);
  if (steps == 0) return out;
  dispatch_all(dtype, [&]<typename T>() {
    T* p = out.data<T>();
    if (steps == 1) {
      p[0] = T(compute_t<T>(start));
      return;
    }
    // torch's step type: the dtype's own arithmetic for floats (float for
    // the 16-bit ones), double for integers.
    using S = std::conditional_t<std::is_integral_v<T>, double, compute_t<T>>;
    const S s = S(compute_t<T>(start)), e = S(compute_t<T>(end));
    const S step = (e - s) / S(steps - 1);
    const int64_t half = steps / 2;
    for (int64_t i = 0; i < steps; ++i) {
      const S v = i < half ? s + step * S(i) : e - step * S(steps - i - 1);
      p[i] = T(v);
    }
  });
  return out;
}

Tensor eye(int64_t n, int64_t m, tsr_dtype dtype) {
  Tensor out = zeros({n, m}, dtype);
  dispatch_all(dtype, [&]<typename T>() {
    T* p = out.data<T>();
    for (int64_t i = 0; i < std::min(n, m); ++i) p[i * m + i] = T(1);
  });
  return out;
}

void zero_triangle(const Tensor& t, int64_t k, bool upper) {
  if (t.numel() == 0) return;
  const int64_t nd = t.ndim(), rows = t.sizes()[size_t(nd - 2)], cols = t.sizes()[size_t(nd - 1)];
  const int64_t rs = t.strides()[size_t(nd - 2)], cs = t.strides()[size_t(nd - 1)];
  Shape batch(t.sizes().begin(), t.sizes().end() - 2), bstrides(t.strides().begin(), t.strides().end() - 2);
  const std::vector<int64_t> bases = [&] {
    std::vector<int64_t> b;
    if (batch.empty()) return std::vector<int64_t>{0};
    walk<1>(batch, {bstrides}, [&](const std::array<int64_t, 1>& o) { b.push_back(o[0]); });
    return b;
  }();
  dispatch_all(t.dtype(), [&]<typename T>() {
    T* p = t.data<T>();
    for (int64_t b : bases)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          // tril keeps j - i <= k, triu keeps j - i >= k
          const bool keep = upper ? j - i >= k : j - i <= k;
          if (!keep) p[b + i * rs + j * cs] = T(0);
        }
  });
}

Tensor flip(const Tensor& x, const Shape& dims) {
  // A view of x with each flipped dim read from its far end: offset moved
  // to the last element along it, stride negated; then copied element by
  // element through walk (copy_strided assumes non-negative strides).
  Tensor out = empty_cpu(x.sizes(), x.dtype());
  if (x.numel() == 0) return out;
  Shape strides = x.ndim() ? x.strides() : Shape{1};
  const Shape sizes = x.ndim() ? x.sizes() : Shape{1};
  int64_t base = 0;
  for (int64_t d : dims) {
    base += (sizes[size_t(d)] - 1) * strides[size_t(d)];
    strides[size_t(d)] = -strides[size_t(d)];
  }
  const int64_t es = x.element_size();
  const char* src = static_cast<const char*>(x.data_ptr()) + base * es;
  char* dst = static_cast<char*>(out.data_ptr());
  walk<2>(sizes, {strides, contiguous_strides(sizes)}, [&](const std::array<int64_t, 2>& o) {
    std::memcpy(dst + o[1] * es, src + o[0] * es, size_t(es));
  });
  return out;
}

Tensor roll(const Tensor& x, const Shape& shifts, const Shape& dims) {
  // out[..., (j + shift) mod n, ...] = x[..., j, ...]: each rolled dim is
  // two slices copied to their new places, one dim at a time.
  Tensor cur = x;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i], n = cur.sizes()[size_t(d)];
    Tensor next = empty_cpu(cur.sizes(), cur.dtype());
    if (n == 0 || next.numel() == 0) return next;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) {
      copy_strided(next, cur);
    } else {
      copy_strided(views::narrow(next, d, s, n - s), views::narrow(cur, d, 0, n - s));
      copy_strided(views::narrow(next, d, 0, s), views::narrow(cur, d, n - s, s));
    }
    cur = next;
  }
  if (cur.is_same(x)) {  // no dims rolled: still a copy
    Tensor out = empty_cpu(x.sizes(), x.dtype());
    copy_strided(out, x);
    return out;
  }
  return cur;
}

Tensor repeat(const Tensor& x, const Shape& repeats) {
  // x seen as [1, s0, 1, s1, ...] (leading dims of 1 added), expanded to
  // [r0, s0, r1, s1, ...] and copied into the [r0 * s0, r1 * s1, ...]
  // result viewed the same way.
  const size_t nd = repeats.size(), lead = nd - size_t(x.ndim());
  Shape xs(nd, 1), xst(nd, 0), out_sizes(nd), pair_sizes, pair_src;
  for (size_t i = 0; i < size_t(x.ndim()); ++i) {
    xs[lead + i] = x.sizes()[i];
    xst[lead + i] = x.strides()[i];
  }
  for (size_t i = 0; i < nd; ++i) {
    out_sizes[i] = repeats[i] * xs[i];
    pair_sizes.push_back(repeats[i]);
    pair_sizes.push_back(xs[i]);
    pair_src.push_back(0);
    pair_src.push_back(xst[i]);
  }
  Tensor out = empty_cpu(out_sizes, x.dtype());
  if (out.numel() == 0) return out;
  const Tensor src = make_view(x, pair_sizes, pair_src, x.storage_offset());
  const Tensor dst = make_view(out, pair_sizes, contiguous_strides(pair_sizes), 0);
  copy_strided(dst, src);
  return out;
}

}  // namespace tsr::kernels
