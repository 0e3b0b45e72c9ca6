// cumsum / cumprod / prod loops. The input is read as one C-contiguous
// array in the result dtype (the input itself when it already is one, else
// a converted copy), seen as [outer, n, inner] around the scanned dim:
// - inner == 1: each row is scanned alone, left to right;
// - inner > 1: a running row of `inner` accumulators is combined with each
//   next row, so every pass walks memory contiguously.
// Threads split the independent columns (outer x inner); each column is
// scanned start to end by one thread, so results do not depend on the
// thread count.
#include "cpu/kernels/scan.h"

#include <algorithm>
#include <memory>
#include <type_traits>

#include "core/dtype.h"
#include "core/error.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/empty_cpu.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/parallel_for.h"

namespace tsr::kernels {

namespace {

// ATen's CPU acc_type: double for float and double, float for the 16-bit
// floats, int64 for integers, bool for bool.
template <typename T>
using scan_acc_t = std::conditional_t<
    std::is_same_v<T, float> || std::is_same_v<T, double>, double,
    std::conditional_t<std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>, float,
                       std::conditional_t<std::is_same_v<T, bool>, bool, int64_t>>>;

template <typename A>
inline A combine(ScanOp op, A acc, A x) {  // op is a constant where inlined
  if constexpr (std::is_same_v<A, bool>) {
    return op == ScanOp::kSum ? (acc || x) : (acc && x);
  } else if constexpr (std::is_integral_v<A>) {  // wraps on overflow, as torch (unsigned: defined)
    using U = std::make_unsigned_t<A>;
    return op == ScanOp::kSum ? A(U(acc) + U(x)) : A(U(acc) * U(x));
  } else {
    return op == ScanOp::kSum ? A(acc + x) : A(acc * x);
  }
}

struct Geometry {
  int64_t outer = 1, n = 1, inner = 1;
};

Geometry geometry(const Shape& sizes, int64_t dim) {
  Geometry g;
  for (int64_t d = 0; d < int64_t(sizes.size()); ++d) {
    if (d < dim) g.outer *= sizes[d];
    else if (d == dim) g.n = sizes[d];
    else g.inner *= sizes[d];
  }
  return g;
}

// The contiguous input in the result dtype: t itself when it already is.
Tensor dense_input(const Tensor& t, tsr_dtype result) {
  if (t.dtype() == result) return contiguous_or_self(t);
  return contiguous_copy(t, result);
}

// Calls body(o, j0, j1) for column blocks [j0, j1) of row block o, the
// blocks splitting outer * inner columns across threads.
template <typename Body>
void for_columns(const Geometry& g, Body&& body) {
  // Blocks at least 512 columns wide (where there are that many): each
  // block walks all n rows, and narrow blocks would touch a new page per
  // row for a few bytes.
  const int64_t grain = std::max({int64_t(1), kGrainSize / std::max<int64_t>(1, g.n), std::min<int64_t>(g.inner, 512)});
  parallel_for(g.outer * g.inner, grain, [&](int64_t b, int64_t e) {
    while (b < e) {
      const int64_t o = b / g.inner, j0 = b % g.inner;
      const int64_t j1 = std::min(g.inner, j0 + (e - b));
      body(o, j0, j1);
      b += j1 - j0;
    }
  });
}

// The op is a template parameter so that the inner loops vectorize.
template <typename T, ScanOp kOp>
void scan_loop(const T* src, T* dst, const Geometry& g, bool reverse) {
  using A = scan_acc_t<T>;
  const A identity = kOp == ScanOp::kSum ? A(0) : A(1);
  const int64_t n = g.n, inner = g.inner;
  if (inner == 1) {
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n));
    parallel_for(g.outer, grain, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const T* s = src + o * n;
        T* d = dst + o * n;
        A acc = identity;
        if (!reverse) {
          for (int64_t k = 0; k < n; ++k) {
            acc = combine(kOp, acc, A(s[k]));
            d[k] = T(acc);
          }
        } else {
          for (int64_t k = n - 1; k >= 0; --k) {
            acc = combine(kOp, acc, A(s[k]));
            d[k] = T(acc);
          }
        }
      }
    });
    return;
  }
  for_columns(g, [&](int64_t o, int64_t j0, int64_t j1) {
    const int64_t w = j1 - j0;
    std::unique_ptr<A[]> acc(new A[size_t(w)]);  // not vector: vector<bool> has no data()
    A* __restrict a = acc.get();
    std::fill(a, a + w, identity);
    for (int64_t step = 0; step < n; ++step) {
      const int64_t k = reverse ? n - 1 - step : step;
      const T* s = src + (o * n + k) * inner + j0;  // src may be dst (in place)
      T* d = dst + (o * n + k) * inner + j0;
      for (int64_t j = 0; j < w; ++j) {
        a[j] = combine(kOp, a[j], A(s[j]));
        d[j] = T(a[j]);
      }
    }
  });
}

// Products multiply in the element type (as ATen's prod for float, double
// and integers), except the 16-bit floats: in float, rounded once at the end
// (torch 2.x's opmath; torch 1.13 has no 16-bit prod).
template <typename T>
using prod_acc_t = std::conditional_t<std::is_same_v<T, BFloat16> || std::is_same_v<T, Half>, float, T>;

template <typename T>
void prod_loop(const T* src, T* dst, const Geometry& g) {
  using A = prod_acc_t<T>;
  const int64_t n = g.n, inner = g.inner;
  if (inner == 1) {
    const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n));
    parallel_for(g.outer, grain, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const T* s = src + o * n;
        A acc = A(1);
        for (int64_t k = 0; k < n; ++k) acc = combine(ScanOp::kProd, acc, A(s[k]));
        dst[o] = T(acc);
      }
    });
    return;
  }
  if constexpr (std::is_same_v<A, T>) {
    for_columns(g, [&](int64_t o, int64_t j0, int64_t j1) {
      T* d = dst + o * inner;
      for (int64_t j = j0; j < j1; ++j) d[j] = T(1);
      for (int64_t k = 0; k < n; ++k) {
        const T* s = src + (o * n + k) * inner;
        for (int64_t j = j0; j < j1; ++j) d[j] = combine(ScanOp::kProd, d[j], s[j]);
      }
    });
    return;
  }
  for_columns(g, [&](int64_t o, int64_t j0, int64_t j1) {  // 16-bit floats: float accumulators
    std::unique_ptr<A[]> acc(new A[size_t(j1 - j0)]);
    for (int64_t j = j0; j < j1; ++j) acc[size_t(j - j0)] = A(1);
    for (int64_t k = 0; k < n; ++k) {
      const T* s = src + (o * n + k) * inner;
      for (int64_t j = j0; j < j1; ++j) acc[size_t(j - j0)] = combine(ScanOp::kProd, acc[size_t(j - j0)], A(s[j]));
    }
    T* d = dst + o * inner;
    for (int64_t j = j0; j < j1; ++j) d[j] = T(acc[size_t(j - j0)]);
  });
}

}  // namespace

tsr_dtype scan_result_dtype(tsr_dtype input, std::optional<tsr_dtype> dtype) {
  if (dtype) return *dtype;
  return is_floating(input) ? input : TSR_INT64;
}

void check_scan_dtype(ScanOp op, tsr_dtype result) {
  if (is_storage_only(result))  // float16: torch 2.x (1.13 refuses it)
    not_implemented(op == ScanOp::kSum ? "cumsum" : "cumprod",
                    op == ScanOp::kSum ? "cumsum_out_cpu" : "cumprod_out_cpu", result);
}

void check_prod_dtype(tsr_dtype result) {
  if (is_storage_only(result))  // the 16-bit floats: torch 2.x (1.13 refuses them)
    not_implemented("prod", "prod_cpu", result);
}

Tensor scan(const Tensor& t, int64_t dim, ScanOp op, tsr_dtype result, bool reverse) {
  check_scan_dtype(op, result);
  Tensor src = dense_input(t, result);
  // A converted copy is scanned in place; the caller's input never is.
  Tensor out = src.is_same(t) ? empty_cpu(t.sizes(), result) : src;
  if (t.numel() == 0) return out;
  const Geometry g = geometry(t.sizes(), dim);
  dispatch_all(result, [&]<typename T>() {
    if (op == ScanOp::kSum) scan_loop<T, ScanOp::kSum>(src.data<const T>(), out.data<T>(), g, reverse);
    else scan_loop<T, ScanOp::kProd>(src.data<const T>(), out.data<T>(), g, reverse);
  });
  return out;
}

Tensor prod(const Tensor& t, bool all, int64_t dim, bool keepdim, tsr_dtype result) {
  check_prod_dtype(result);
  Tensor src = dense_input(t, result);
  Shape sizes;
  Geometry g;
  if (all) {
    g.n = t.numel();
  } else if (t.ndim() > 0) {
    g = geometry(t.sizes(), dim);
    sizes = t.sizes();
    if (keepdim) sizes[size_t(dim)] = 1;
    else sizes.erase(sizes.begin() + dim);
  }
  Tensor out = empty_cpu(sizes, result);
  dispatch_all(result, [&]<typename T>() { prod_loop<T>(src.data<const T>(), out.data<T>(), g); });
  return out;
}

}  // namespace tsr::kernels
