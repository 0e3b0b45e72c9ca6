// In-place operations and the rules every in-place write obeys.
#pragma once

#include "core/tensor.h"

namespace tsr::ops {

// Throws unless writing into t is allowed: t must not overlap itself
// (TSR_ERR_INVALID_ARGUMENT, PyTorch's message), and with grad mode on t
// must not require grad (TSR_ERR_AUTOGRAD: PyTorch's leaf message; in-place
// on tensors with history is not supported in this version).
void check_inplace_allowed(const Tensor& t, const char* op);

// self += alpha * other (other broadcast to self, converted to its dtype).
void add_(const Tensor& self, const Tensor& other, double alpha);
void mul_scalar_(const Tensor& self, double scalar);
void fill_(const Tensor& self, double value);

}  // namespace tsr::ops
