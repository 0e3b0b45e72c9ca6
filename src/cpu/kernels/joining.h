// torch.cat and torch.stack (no autograd), with torch 1.13's checks,
// messages, type promotion and output layout. The assembly is the same on
// every device: an output on the inputs' device, each input copied into its
// slice by `copy` (copy_strided on the CPU; src/device's copy elsewhere).
#pragma once

#include <functional>
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
// dst = src converted to dst's dtype (dst and src of one size).
using CopyInto = std::function<void(const Tensor& dst, const Tensor& src)>;

// Concatenation along dim on `device`: every input converted to the
// promoted dtype; channels_last when every input suggests it, else
// contiguous.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim, Device device, const CopyInto& copy);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);  // CPU

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
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim, Device device, const CopyInto& copy);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);  // CPU

}  // namespace tsr::kernels
