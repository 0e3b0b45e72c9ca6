#include "ops/inplace.h"

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/views.h"
#include "kernels/copy.h"
#include "kernels/elementwise.h"

namespace tsr::ops {

void check_inplace_allowed(const Tensor& t, const char* op) {
  TSR_CHECK(!kernels::has_internal_overlap(t), TSR_ERR_INVALID_ARGUMENT, op,
            ": unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.");
  if (!autograd::is_grad_enabled() || !autograd::requires_grad(t)) return;
  TSR_CHECK(!autograd::is_leaf(t), TSR_ERR_AUTOGRAD, op,
            ": a leaf Variable that requires grad is being used in an in-place operation.");
  fail(TSR_ERR_AUTOGRAD, op, ": in-place operations on tensors that have a grad_fn (",
       autograd::grad_fn(t)->name(), ") are not supported by this version of tessera; use the "
       "out-of-place op, or run the update under no_grad");
}

Tensor inplace_source(const Tensor& self, const Tensor& other, const char* op,
                      const char* other_name, const char* out_of_place) {
  TSR_CHECK(self.device() == other.device(), TSR_ERR_DEVICE_MISMATCH, op, ": devices differ");
  check_inplace_allowed(self, op);
  TSR_CHECK(!autograd::any_requires_grad({&other}), TSR_ERR_AUTOGRAD, op, ": ", other_name,
            " requires grad and self does not; in-place operations that would record history "
            "are not supported by this version of tessera (use ", out_of_place,
            ", or run under no_grad)");
  // torch's messages: operands that do not broadcast, then a broadcast
  // shape that is not self's.
  Shape bshape = broadcast_shapes(self.sizes(), other.sizes());
  TSR_CHECK(bshape == self.sizes(), TSR_ERR_SHAPE_MISMATCH, "output with shape ", self.sizes(),
            " doesn't match the broadcast shape ", bshape);
  TSR_CHECK(!kernels::partial_overlap(self, other), TSR_ERR_INVALID_ARGUMENT, op,
            ": unsupported operation: some elements of the input tensor and the written-to "
            "tensor refer to a single memory location. Please clone() the tensor before "
            "performing the operation.");
  Tensor src = views::expand(other, self.sizes());
  return kernels::may_overlap(self, other) ? kernels::contiguous_copy(src, src.dtype()) : src;
}

void add_(const Tensor& self, const Tensor& other, double alpha) {
  kernels::add_into(self, inplace_source(self, other, "add_", "other", "tsr_add"), alpha);
  self.bump_version();
}

void mul_scalar_(const Tensor& self, double scalar) {
  check_inplace_allowed(self, "mul_");
  kernels::scale_inplace(self, scalar);
  self.bump_version();
}

void fill_(const Tensor& self, double value) {
  check_inplace_allowed(self, "fill_");
  kernels::fill(self, value);
  self.bump_version();
}

}  // namespace tsr::ops
