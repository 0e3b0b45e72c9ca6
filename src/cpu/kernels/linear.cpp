#include "cpu/kernels/linear.h"

#include "core/layout.h"
#include "core/views.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/matmul.h"

namespace tsr::kernels {

namespace {
// torch's mm message folds x's leading dims: "(6x4 and 3x5)".
[[noreturn]] void size_mismatch(int64_t m, int64_t k, const Tensor& w) {
  fail(TSR_ERR_SHAPE_MISMATCH, "mat1 and mat2 shapes cannot be multiplied (", m, "x", k, " and ",
       w.sizes()[1], "x", w.sizes()[0], ")");
}
}  // namespace

Shape linear_sizes(const Tensor& x, const Tensor& w, const Tensor& b) {
  TSR_CHECK(w.ndim() == 2, TSR_ERR_SHAPE_MISMATCH,
            "linear(): weight must be 2-D [out_features, in_features], got sizes ", w.sizes());
  TSR_CHECK(x.ndim() >= 1, TSR_ERR_SHAPE_MISMATCH,
            "both arguments to matmul need to be at least 1D, but they are ", x.ndim(), "D and 2D");
  const bool same = x.dtype() == w.dtype() && (!b.defined() || b.dtype() == x.dtype());
  TSR_CHECK(same, TSR_ERR_DTYPE_MISMATCH, "self and mat2 must have the same dtype (linear(): input ",
            dtype_name(x.dtype()), ", weight ", dtype_name(w.dtype()), ", bias ",
            b.defined() ? dtype_name(b.dtype()) : "none", ")");
  const tsr_dtype d = x.dtype();
  if (d == TSR_FLOAT16 || d == TSR_BOOL) not_implemented("linear", "addmm_impl_cpu_", d);
  TSR_CHECK(d == TSR_FLOAT32 || d == TSR_FLOAT64 || d == TSR_BFLOAT16, TSR_ERR_DTYPE_MISMATCH,
            "linear supports bfloat16, float32 and float64 in this version (OpenBLAS has no integer "
            "gemm), got ", dtype_name(d));
  const int64_t K = x.sizes().back();
  if (K != w.sizes()[1]) {
    int64_t m = 1;
    for (int64_t i = 0; i + 1 < x.ndim(); ++i) m *= x.sizes()[i];
    size_mismatch(m, K, w);
  }
  Shape out(x.sizes().begin(), x.sizes().end() - 1);
  out.push_back(w.sizes()[0]);
  if (b.defined()) views::check_expand(b, out);  // torch's expand message when it does not fit
  return out;
}

namespace {
// [prod(*), K] for x [*, K].
Shape rows_sizes(const Tensor& x) {
  return {checked_numel(Shape(x.sizes().begin(), x.sizes().end() - 1)), x.sizes().back()};
}
}  // namespace

Tensor rows_view(const Tensor& x) {
  if (x.ndim() == 2) return x;
  const Shape rows = rows_sizes(x);
  if (auto st = views::compute_stride(x.sizes(), x.strides(), rows)) return make_view(x, rows, *st, x.storage_offset());
  return Tensor();
}

Tensor as_rows(const Tensor& x) {
  if (Tensor v = rows_view(x); v.defined()) return v;
  const Shape rows = rows_sizes(x);
  return make_view(contiguous_copy(x, x.dtype()), rows, contiguous_strides(rows), 0);
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  const Shape out_sizes = linear_sizes(x, w, b);
  if (x.dtype() == TSR_BFLOAT16) {
    // In float32 (as torch's bfloat16 gemm accumulates), rounded once.
    Tensor y = linear(converted(x, TSR_FLOAT32), converted(w, TSR_FLOAT32),
                      b.defined() ? converted(b, TSR_FLOAT32) : b);
    return contiguous_copy(y, TSR_BFLOAT16);
  }
  // One gemm over all rows of x: [M, K] @ [K, N], weight read transposed.
  Tensor y = matmul(as_rows(x), views::t(w));
  Tensor out = y.sizes() == out_sizes ? y : make_view(y, out_sizes, contiguous_strides(out_sizes), 0);
  if (b.defined()) add_into(out, views::expand_or_self(b, out_sizes), 1.0);
  return out;
}

}  // namespace tsr::kernels
