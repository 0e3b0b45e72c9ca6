#include "ops/write_checks.h"

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/inference_mode.h"
#include "core/shape.h"
#include "cpu/kernels/copy.h"

namespace tsr::ops {

void check_inplace_allowed(const Tensor& t, const char* op) {
  TSR_CHECK(!t.storage()->read_only(), TSR_ERR_INVALID_ARGUMENT, op,
            ": the tensor is a read-only view of a memory-mapped file (tsr_file_get); clone() it "
            "for a writable copy");
  TSR_CHECK(!kernels::has_internal_overlap(t), TSR_ERR_INVALID_ARGUMENT, op,
            ": unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.");
  TSR_CHECK(!t.is_inference() || is_inference_mode_enabled(), TSR_ERR_AUTOGRAD, op,
            ": Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
            "clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details.");
  if (!autograd::is_grad_enabled()) return;
  TSR_CHECK(!(autograd::requires_grad(t) && autograd::is_leaf(t) && !autograd::view_base(t)),
            TSR_ERR_AUTOGRAD, op, ": a leaf Variable that requires grad is being used in an in-place operation.");
  const Tensor* base = autograd::view_base(t);
  TSR_CHECK(!(base && autograd::requires_grad(*base) && autograd::is_leaf(*base)), TSR_ERR_AUTOGRAD, op,
            ": a view of a leaf Variable that requires grad is being used in an in-place operation.");
}

void check_unrecorded_write(const Tensor& t, const char* op) {
  check_inplace_allowed(t, op);
  if (!autograd::is_grad_enabled() || !autograd::requires_grad(t)) return;
  fail(TSR_ERR_AUTOGRAD, op, ": writing single elements records no history, and this tensor has a "
       "grad_fn (", autograd::grad_fn(t)->name(), "); use the ops (which record it), or write under no_grad");
}


void check_broadcasts_into(const Tensor& self, const Tensor& other) {
  // torch's messages: operands that do not broadcast, then a broadcast
  // shape that is not self's.
  const Shape bshape = broadcast_shapes(self.sizes(), other.sizes());
  TSR_CHECK(bshape == self.sizes(), TSR_ERR_SHAPE_MISMATCH, "output with shape ", self.sizes(),
            " doesn't match the broadcast shape ", bshape);
}

}  // namespace tsr::ops
