// torch.nn.utils.clip_grad_norm_ / clip_grad_value_ of PyTorch 1.13 over
// the parameters' .grad (include/tessera/clip_grad.h).
#pragma once

#include <vector>

#include "core/tensor.h"

namespace tsr::optim {

// The total norm (0-dim, dtype of the stacked per-gradient norms, on the
// first gradient's device; float32 0 without gradients). Every gradient is
// checked writable and, with error_if_nonfinite, the norm finite before
// any is scaled.
Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type,
                       bool error_if_nonfinite);
void clip_grad_value_(const std::vector<Tensor>& params, double clip_value);

// torch.linalg.vector_norm(g, ord) over all elements, with the ops (any
// device); ord 0, +-inf, 1, 2 or any other p.
Tensor vector_norm(const Tensor& g, double ord);

}  // namespace tsr::optim
