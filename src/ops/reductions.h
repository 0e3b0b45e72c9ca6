// Differentiable scans and statistics (reductions.h's C entry points call
// these). Backward formulas are torch's (derivatives.yaml), written with
// ops so double backward works.
#pragma once

#include <optional>
#include <utility>

#include "core/tensor.h"

namespace tsr::ops {

// torch.cumsum / torch.cumprod(a, dim, dtype).
Tensor cumsum(const Tensor& a, int64_t dim, std::optional<tsr_dtype> dtype);
Tensor cumprod(const Tensor& a, int64_t dim, std::optional<tsr_dtype> dtype);
// torch.prod(a, dtype) (a 0-dim result) and torch.prod(a, dim, keepdim, dtype).
Tensor prod(const Tensor& a, std::optional<tsr_dtype> dtype);
Tensor prod_dim(const Tensor& a, int64_t dim, bool keepdim, std::optional<tsr_dtype> dtype);

// torch.var / torch.std over dims (empty: all), with correction (1 is
// unbiased) and keepdim.
Tensor var(const Tensor& a, const Shape& dims, int64_t correction, bool keepdim);
Tensor std_(const Tensor& a, const Shape& dims, int64_t correction, bool keepdim);
// torch.var_mean / torch.std_mean: (var or std, mean).
std::pair<Tensor, Tensor> var_mean(const Tensor& a, const Shape& dims, int64_t correction, bool keepdim);
std::pair<Tensor, Tensor> std_mean(const Tensor& a, const Shape& dims, int64_t correction, bool keepdim);

// torch.logsumexp(a, dims, keepdim) (empty dims: all).
Tensor logsumexp(const Tensor& a, const Shape& dims, bool keepdim);

// torch.any / torch.all: over everything (all_dims) or along dim, keepdim;
// uint8 input gives uint8, others bool. Not recorded by autograd.
Tensor any_all(const Tensor& a, bool all_dims, int64_t dim, bool keepdim, bool is_all);

// torch.min(a, dim, keepdim): (values, int64 indices) of the first minimum;
// torch.min(a); torch.argmin(a, dim, keepdim).
std::pair<Tensor, Tensor> min_dim(const Tensor& a, int64_t dim, bool keepdim);
Tensor min(const Tensor& a);
Tensor argmin(const Tensor& a, int64_t dim, bool keepdim);

// torch.maximum / minimum (MaximumBackward0 / MinimumBackward0: ties split
// the gradient in half); torch.amax / amin over dims (all when empty;
// AmaxBackward0 / AminBackward0: ties share the gradient evenly);
// torch.norm(a, p, dims, keepdim) (NormBackward1; p may be +-inf).
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor amax(const Tensor& a, const Shape& dims, bool keepdim);
Tensor amin(const Tensor& a, const Shape& dims, bool keepdim);
Tensor norm(const Tensor& a, double p, const Shape& dims, bool keepdim);
// torch.linalg.vector_norm: norm's values and gradient, LinalgVectorNormBackward0.
Tensor linalg_vector_norm(const Tensor& a, double ord, const Shape& dims, bool keepdim);

}  // namespace tsr::ops
