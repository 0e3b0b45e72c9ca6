// Random ops with history.
#pragma once

#include <memory>

#include "core/generator.h"

namespace tsr::ops {

// torch.nn.functional.dropout(x, p, training) on CPU as torch 1.13 does it:
// x * noise, noise = bernoulli(1 - p) / (1 - p) (grad_fn MulBackward0).
// Not training, or p == 0: x itself. p outside [0, 1]: TSR_ERR_INVALID_ARGUMENT.
// The noise takes word i of the generator's stream for logical element i.
Tensor dropout(const Tensor& x, double p, bool train, const std::shared_ptr<Generator>& g);

}  // namespace tsr::ops
