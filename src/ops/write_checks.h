// The checks every write into an existing tensor makes (in-place ops,
// copies across devices, element writes): a file of its own, below both
// ops/inplace and ops/to_device, so neither includes the other.
#pragma once

#include "core/tensor.h"

namespace tsr::ops {

// Throws unless an in-place op may write t: t must not overlap itself
// (TSR_ERR_INVALID_ARGUMENT, PyTorch's message), and with grad mode on t
// must not be a leaf that requires grad or a view of one (TSR_ERR_AUTOGRAD,
// PyTorch's messages). Tensors with history are fine: the op rebases it
// (autograd/rebase.h).
void check_inplace_allowed(const Tensor& t, const char* op);
// For writes that record no history (tsr_set_double): as above, and with
// grad mode on t must not require grad at all.
void check_unrecorded_write(const Tensor& t, const char* op);

// other broadcasts to self's sizes, else TSR_ERR_SHAPE_MISMATCH with
// torch's messages (operands that do not broadcast; a broadcast shape that
// is not self's).
void check_broadcasts_into(const Tensor& self, const Tensor& other);

}  // namespace tsr::ops
