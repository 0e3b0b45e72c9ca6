// torch.cat and torch.stack on CPU tensors (no autograd), with torch 1.13's
// checks, messages, type promotion and output layout.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

// The checked result of cat's arguments: output sizes and dtype, the
// wrapped dim, and which inputs are skipped (1-D empty tensors, which
// torch's legacy rule leaves out of the size checks).
struct CatPlan {
  Shape sizes;
  tsr_dtype dtype;
  int64_t dim;
  std::vector<bool> skip;
  tsr_memory_format format;
};
CatPlan cat_plan(const std::vector<Tensor>& tensors, int64_t dim);
// Concatenation along dim: every input converted to the promoted dtype;
// channels_last when every input suggests it, else contiguous.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);

// stack's output sizes and dtype (dim in [-(ndim+1), ndim]; every input of
// one size); throws torch's messages.
struct StackPlan {
  Shape sizes;
  tsr_dtype dtype;
  int64_t dim;
};
StackPlan stack_plan(const std::vector<Tensor>& tensors, int64_t dim);
// torch.stack: cat along dim viewed with the new dim split off, or (dim ==
// ndim) cat of the inputs unsqueezed at the end.
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);

}  // namespace tsr::kernels
