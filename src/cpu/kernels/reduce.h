// Reductions on CPU tensors (no autograd): sum/mean over a set of dims, max
// and argmax along one dim, and sum_to_size for broadcasting backward.
#pragma once

#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

// Wrapped, de-duplicated dims to reduce (empty list = all dims), as a mask
// of t's ndim entries. Repeated dims: TSR_ERR_INVALID_ARGUMENT.
std::vector<bool> reduction_mask(const Tensor& t, const Shape& dims);
// Output sizes for a reduction mask.
Shape reduced_sizes(const Shape& sizes, const std::vector<bool>& mask, bool keepdim);

// Sum in ATen's accumulation type (float, cascade summed, for float16/
// bfloat16/float32; double for float64; wrapping int64 for integers/bool;
// sum_kernel.h); result dtype: floats keep theirs, integers and bool give
// int64 (torch.sum). Independent of the thread count.
Tensor sum(const Tensor& t, const std::vector<bool>& mask, bool keepdim);
// Elements each output of a reduction over mask sums (product of the
// reduced sizes; 1 for an empty mask of a 0-dim tensor).
int64_t reduced_count(const Shape& sizes, const std::vector<bool>& mask);
// mean's dtype rule: floating only, else TSR_ERR_DTYPE_MISMATCH with
// torch's "mean(): could not infer output dtype" message.
void check_mean_dtype(tsr_dtype d);
// Mean = sum rounded to the dtype, / count (torch's CPU mean), floating
// dtypes only.
Tensor mean(const Tensor& t, const std::vector<bool>& mask, bool keepdim);
// max(dim)'s argument rule on every device: *dim wrapped into range, the
// dim of non-zero size (TSR_ERR_SHAPE_MISMATCH, torch's message); returns
// the mask reducing only that dim (none for a 0-dim t).
std::vector<bool> max_dim_mask(const Tensor& t, int64_t* dim);
// Values (t's dtype) and int64 indices of the first maximum along dim; NaN
// counts as the maximum (torch.max(dim)).
std::pair<Tensor, Tensor> max_dim(const Tensor& t, int64_t dim, bool keepdim);
// The dims sum_to_size reduces (kept as size 1): the leading dims `from`
// has beyond `to`, and those `to` has as 1 where `from` does not.
std::vector<bool> sum_to_size_mask(const Shape& from, const Shape& to);
// Sums `t` down to `sizes` (the inverse of broadcasting `sizes` to t).
Tensor sum_to_size(const Tensor& t, const Shape& sizes);
// The dtype sum() gives for an input dtype.
inline tsr_dtype sum_result_dtype(tsr_dtype d) { return is_floating(d) ? d : TSR_INT64; }

// Backward of max(dim): zeros of input_sizes with grad[..., 0, ...] put at
// each maximum's index along dim (ATen's value_selecting_reduction_backward).
Tensor max_dim_backward(const Tensor& grad, const Tensor& indices, const Shape& input_sizes,
                        int64_t dim, bool keepdim);
// Backward of max(): grad split evenly among all maximal elements of input
// (torch's evenly_distribute_backward; NaN maxima when result is NaN).
Tensor max_all_backward(const Tensor& grad, const Tensor& input, const Tensor& result);
// A keepdim=false reduction's result with the reduced dims put back as
// size 1, so it broadcasts against the input (a view).
Tensor unsqueeze_reduced(const Tensor& g, const std::vector<bool>& mask, bool keepdim);

}  // namespace tsr::kernels
