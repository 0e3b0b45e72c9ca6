// var / std / var_mean / std_mean and logsumexp on CPU tensors, no autograd: torch 1.13's
// CPU rule of accumulating in double (two passes: the mean, then the sum of
// squared deviations), the divisor max(N - correction, 0), results in the
// input's (floating) dtype, C-contiguous.
#pragma once

#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

// t as [rows, n] float64 rows (`dense`, C-contiguous): the kept dims first,
// in the output's C order, the dims in mask last.
struct Rows {
  Tensor dense;
  int64_t rows = 1, n = 1;
};
Rows rows_of(const Tensor& t, const std::vector<bool>& mask);

// Floating dtypes only: TSR_ERR_DTYPE_MISMATCH with torch's "std and var
// only support floating point and complex dtypes" (`op` is "std and var",
// "var_mean" or "std_mean").
void check_var_dtype(tsr_dtype d, const char* op);

// Variance (or its square root when take_sqrt) and mean over the dims in
// mask (reduce.h's reduction_mask), keepdim as torch.
std::pair<Tensor, Tensor> var_mean(const Tensor& t, const std::vector<bool>& mask, int64_t correction,
                                   bool keepdim, bool take_sqrt);

// logsumexp's result dtype: floating inputs keep theirs, integers and bool
// give float32; float16 is refused as torch 1.13's CPU exp refuses it
// (TSR_ERR_DTYPE_MISMATCH, "\"exp_vml_cpu\" not implemented for 'Half'").
tsr_dtype logsumexp_result_dtype(tsr_dtype d);
// log(sum(exp(x))) over mask, shifted by each row's max (0 when the max is
// infinite, as torch), computed in double.
Tensor logsumexp(const Tensor& t, const std::vector<bool>& mask, bool keepdim);

}  // namespace tsr::kernels
