// In-place operations and the rules every in-place write obeys.
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
// What an in-place op on self reads from `other`: other broadcast to self's
// sizes, after torch's checks in torch's order — same device, writable self
// (check_inplace_allowed), torch's broadcast messages
// (TSR_ERR_SHAPE_MISMATCH), no partial overlap of dense views
// (TSR_ERR_INVALID_ARGUMENT). When other shares memory with self the result
// is a snapshot, so the op reads all of it before writing.
Tensor inplace_source(const Tensor& self, const Tensor& other, const char* op,
                      const char* other_name, const char* out_of_place);

// self += alpha * other (other broadcast to self, converted to its dtype).
void add_(const Tensor& self, const Tensor& other, double alpha);
void mul_scalar_(const Tensor& self, double scalar);
void fill_(const Tensor& self, double value);
void zero_(const Tensor& self);
// max(self, 0) in place (torch.relu_).
void relu_(const Tensor& self);

}  // namespace tsr::ops
