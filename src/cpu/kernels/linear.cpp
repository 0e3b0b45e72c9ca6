#include "cpu/kernels/linear.h"

#include "core/layout.h"
#include "core/views.h"
#include "cpu/dnnl/dnnl_matmul.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/empty_cpu.h"
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
  if (d == TSR_BOOL) not_implemented("linear", "addmm_impl_cpu_", d);
  TSR_CHECK(d == TSR_FLOAT32 || d == TSR_FLOAT64 || is_16bit_float(d), TSR_ERR_DTYPE_MISMATCH,
            "linear supports bfloat16, float16, float32 and float64 in this version (OpenBLAS has no "
            "integer gemm), got ", dtype_name(d));
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

namespace {
// bias seen as [N] when it varies along the output's last dim only (a
// [N], [1, N] or scalar-like bias), else undefined.
Tensor row_bias(const Tensor& b, const Shape& out_sizes) {
  const Tensor e = views::expand_or_self(b, out_sizes);
  for (int64_t d = 0; d + 1 < e.ndim(); ++d)
    if (e.strides()[d] != 0 && e.sizes()[d] != 1) return Tensor();
  const int64_t n = out_sizes.back();
  return make_view(e, {n}, {e.strides().back()}, e.storage_offset());
}

// bfloat16 and float16: float32 sums of the products plus the bias,
// rounded once (as torch's addmm, whose oneDNN kernel adds the bias to the
// float32 sums).
Tensor linear_16bit(const Tensor& x, const Tensor& w, const Tensor& b, const Shape& out_sizes) {
  const Tensor rows = as_rows(x), wt = views::t(w);
  const Shape rows_out{rows.sizes()[0], w.sizes()[0]};
  const Tensor bias = b.defined() ? row_bias(b, out_sizes) : Tensor();
  Tensor out = empty_cpu(rows_out, x.dtype());
  const Tensor result = out.sizes() == out_sizes ? out : make_view(out, out_sizes, contiguous_strides(out_sizes), 0);
  if (out.numel() == 0) return result;
  const bool fused_bias = !b.defined() || bias.defined();
  if (x.dtype() == TSR_BFLOAT16 && rows.sizes()[1] > 0 && fused_bias &&
      onednn::matmul_bf16(out, rows, wt, bias))
    return result;
  Tensor sums = matmul_float32(rows, wt);
  if (b.defined()) {
    const Tensor s = make_view(sums, out_sizes, contiguous_strides(out_sizes), 0);
    add_into(s, views::expand_or_self(converted(b, TSR_FLOAT32), out_sizes), 1.0);
  }
  copy_strided(out, sums);
  return result;
}
}  // namespace

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) {
  const Shape out_sizes = linear_sizes(x, w, b);
  if (is_16bit_float(x.dtype())) return linear_16bit(x, w, b, out_sizes);
  // One gemm over all rows of x: [M, K] @ [K, N], weight read transposed.
  Tensor y = matmul(as_rows(x), views::t(w));
  Tensor out = y.sizes() == out_sizes ? y : make_view(y, out_sizes, contiguous_strides(out_sizes), 0);
  if (b.defined()) add_into(out, views::expand_or_self(b, out_sizes), 1.0);
  return out;
}

}  // namespace tsr::kernels
