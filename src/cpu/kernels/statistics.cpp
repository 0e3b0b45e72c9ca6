// The input is permuted so that the kept dims come first and the reduced
// dims last, copied contiguous as double, and each row (one output element)
// is reduced in two passes. Rows are independent, so threads split them
// and the result does not depend on the thread count.
#include "cpu/kernels/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/dtype.h"
#include "core/error.h"
#include "core/views.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/empty_cpu.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/reduce.h"

namespace tsr::kernels {

void check_var_dtype(tsr_dtype d, const char* op) {
  TSR_CHECK(is_floating(d), TSR_ERR_DTYPE_MISMATCH, op, " only support floating point and complex dtypes");
}

Rows rows_of(const Tensor& t, const std::vector<bool>& mask) {
  Rows r;
  Shape order;
  for (size_t d = 0; d < mask.size(); ++d)
    if (!mask[d]) order.push_back(int64_t(d)), r.rows *= t.sizes()[d];
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d]) order.push_back(int64_t(d)), r.n *= t.sizes()[d];
  r.dense = contiguous_copy(t.ndim() > 0 ? views::permute(t, order) : t, TSR_FLOAT64);
  return r;
}

tsr_dtype logsumexp_result_dtype(tsr_dtype d) {
  // float16: torch 2.x computes it (torch 1.13 refuses it).
  return is_floating(d) ? d : TSR_FLOAT32;
}

Tensor logsumexp(const Tensor& t, const std::vector<bool>& mask, bool keepdim) {
  const tsr_dtype result = logsumexp_result_dtype(t.dtype());
  const Rows r = rows_of(t, mask);
  Tensor out = empty_cpu(reduced_sizes(t.sizes(), mask, keepdim), TSR_FLOAT64);
  const double* x = r.dense.data<const double>();
  double* o = out.data<double>();
  const int64_t n = r.n;
  parallel_for(r.rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const double* row = x + i * n;
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < n; ++k) m = std::max(m, row[k]);
      // torch shifts by the max unless it is infinite (then by 0), so an
      // all -inf row gives -inf and a +inf gives +inf.
      if (std::isinf(m)) m = 0;
      double s = 0;
      for (int64_t k = 0; k < n; ++k) s += std::exp(row[k] - m);
      o[i] = std::log(s) + m;
    }
  });
  return result == TSR_FLOAT64 ? out : contiguous_copy(out, result);
}

std::pair<Tensor, Tensor> var_mean(const Tensor& t, const std::vector<bool>& mask, int64_t correction,
                                   bool keepdim, bool take_sqrt) {
  check_var_dtype(t.dtype(), "std and var");
  const Shape out_sizes = reduced_sizes(t.sizes(), mask, keepdim);
  const Rows rs = rows_of(t, mask);
  const Tensor& dense = rs.dense;
  const int64_t rows = rs.rows, n = rs.n;
  Tensor var = empty_cpu(out_sizes, TSR_FLOAT64), mean = empty_cpu(out_sizes, TSR_FLOAT64);
  const double* x = dense.data<const double>();
  double *v = var.data<double>(), *m = mean.data<double>();
  const double divisor = double(std::max<int64_t>(n - correction, 0));
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n));
  parallel_for(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const double* row = x + r * n;
      double s = 0;
      for (int64_t k = 0; k < n; ++k) s += row[k];
      const double mu = n > 0 ? s / double(n) : std::numeric_limits<double>::quiet_NaN();
      double ss = 0;
      for (int64_t k = 0; k < n; ++k) ss += (row[k] - mu) * (row[k] - mu);
      const double var_r = n > 0 ? ss / divisor : std::numeric_limits<double>::quiet_NaN();
      v[r] = take_sqrt ? std::sqrt(var_r) : var_r;
      m[r] = mu;
    }
  });
  if (t.dtype() == TSR_FLOAT64) return {var, mean};
  return {contiguous_copy(var, t.dtype()), contiguous_copy(mean, t.dtype())};
}

}  // namespace tsr::kernels
