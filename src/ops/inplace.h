// In-place operations and the rules every in-place write obeys.
#pragma once

#include "core/tensor.h"
#include "ops/write_checks.h"  // check_inplace_allowed, check_unrecorded_write, check_broadcasts_into

namespace tsr::ops {

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
