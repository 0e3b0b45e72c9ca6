#include "cpu/kernels/extrema.h"

#include <cmath>
#include <limits>

#include "core/views.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/empty_cpu.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/reduce.h"

namespace tsr::kernels {

tsr_dtype extremum_result_dtype(const Tensor& a, const Tensor& b) {
  if (a.dtype() == TSR_BOOL && b.dtype() == TSR_BOOL) return TSR_BOOL;
  return binary_result_dtype(BinaryOp::Add, a, b);
}

namespace {

template <bool Max>
Tensor extremum(const Tensor& a0, const Tensor& b0) {
  const tsr_dtype d = extremum_result_dtype(a0, b0);
  const Shape shape = broadcast_shapes(a0.sizes(), b0.sizes());
  const Tensor a = converted(a0, d), b = converted(b0, d);
  Tensor out = new_output(shape, {&a0, &b0}, d);
  dispatch_all(d, [&]<typename T>() {
    using C = compute_t<T>;
    map_same<T, 2>(
        out,
        [](C x, C y) -> C {
          if constexpr (!std::is_integral_v<C>) {
            if (std::isnan(x)) return x;
            if (std::isnan(y)) return y;
          }
          return Max ? (x > y ? x : y) : (x < y ? x : y);
        },
        {a, b});
  });
  return out;
}

// x with the dims of mask last, as a contiguous [rows, cols] buffer: row r
// is output element r (C order of the kept dims).
Tensor as_rows(const Tensor& x, const std::vector<bool>& mask, int64_t* rows, int64_t* cols) {
  Shape perm;
  *rows = 1;
  *cols = 1;
  for (int64_t d = 0; d < x.ndim(); ++d)
    if (!mask[size_t(d)]) {
      perm.push_back(d);
      *rows *= x.sizes()[size_t(d)];
    }
  for (int64_t d = 0; d < x.ndim(); ++d)
    if (mask[size_t(d)]) {
      perm.push_back(d);
      *cols *= x.sizes()[size_t(d)];
    }
  return contiguous_or_self(x.ndim() ? views::permute(x, perm) : x);
}

template <typename R>
Tensor reduce_rows(const Tensor& x, const std::vector<bool>& mask, bool keepdim, tsr_dtype out_dtype, R&& reduce) {
  int64_t rows, cols;
  const Tensor buf = as_rows(x, mask, &rows, &cols);
  Tensor out = empty_cpu(reduced_sizes(x.sizes(), mask, keepdim), out_dtype);
  dispatch_all(x.dtype(), [&]<typename T>() {
    const T* p = buf.data<T>();
    T* o = out.data<T>();
    parallel_for(rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) o[r] = T(reduce(p + r * cols, cols));
    });
  });
  return out;
}

template <bool Max>
Tensor extreme_over(const Tensor& x, const std::vector<bool>& mask, bool keepdim) {
  check_extreme_over(x, mask, Max ? "amax" : "amin");
  return reduce_rows(x, mask, keepdim, x.dtype(), [](const auto* p, int64_t n) {
    using C = compute_t<std::remove_cv_t<std::remove_pointer_t<decltype(p)>>>;
    C best = C(p[0]);
    for (int64_t i = 1; i < n; ++i) {
      const C v = C(p[i]);
      if constexpr (!std::is_integral_v<C>) {
        if (std::isnan(best)) break;
        if (std::isnan(v)) {
          best = v;
          break;
        }
      }
      if (Max ? v > best : v < best) best = v;
    }
    return best;
  });
}

}  // namespace

void check_extreme_over(const Tensor& x, const std::vector<bool>& mask, const char* name) {
  for (int64_t d = 0; d < x.ndim(); ++d)
    TSR_CHECK(!mask[size_t(d)] || x.sizes()[size_t(d)] > 0, TSR_ERR_INDEX_OUT_OF_RANGE, name,
              "(): Expected reduction dim ", d, " to have non-zero size.");
  TSR_CHECK(x.numel() > 0 || x.ndim() > 0, TSR_ERR_INDEX_OUT_OF_RANGE, name,
            "(): Expected reduction dim to be specified for input.numel() == 0.");
}

Tensor maximum(const Tensor& a, const Tensor& b) { return extremum<true>(a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return extremum<false>(a, b); }
Tensor amax(const Tensor& x, const std::vector<bool>& mask, bool keepdim) { return extreme_over<true>(x, mask, keepdim); }
Tensor amin(const Tensor& x, const std::vector<bool>& mask, bool keepdim) { return extreme_over<false>(x, mask, keepdim); }

Tensor norm(const Tensor& x, double p, const std::vector<bool>& mask, bool keepdim) {
  return reduce_rows(x, mask, keepdim, x.dtype(), [p](const auto* v, int64_t n) {
    double acc = 0;
    if (std::isinf(p)) {
      acc = p > 0 ? 0.0 : std::numeric_limits<double>::infinity();
      for (int64_t i = 0; i < n; ++i) {
        const double a = std::fabs(double(compute_t<std::remove_cv_t<std::remove_pointer_t<decltype(v)>>>(v[i])));
        if (std::isnan(a)) return a;
        acc = p > 0 ? std::max(acc, a) : std::min(acc, a);
      }
      return n ? acc : (p > 0 ? 0.0 : std::numeric_limits<double>::infinity());
    }
    for (int64_t i = 0; i < n; ++i) {
      const double a = std::fabs(double(compute_t<std::remove_cv_t<std::remove_pointer_t<decltype(v)>>>(v[i])));
      if (p == 0) acc += a != 0;
      else if (p == 1) acc += a;
      else if (p == 2) acc += a * a;
      else acc += std::pow(a, p);
    }
    if (p == 0 || p == 1) return acc;
    if (p == 2) return std::sqrt(acc);
    return std::pow(acc, 1.0 / p);
  });
}

}  // namespace tsr::kernels
