// The copy primitive of clone and to(dtype) (CloneBackward0 /
// ToCopyBackward0): a copy into a fresh tensor laid out by a memory format,
// in a dtype; the gradient passes through, converted back to the input's
// dtype. It lives below the ops because autocast's casts (run by
// autograd::run itself) are this primitive too.
#pragma once

#include "primitive/primitive.h"

namespace tsr::autograd {

class Copy final : public prim::Primitive {
 public:
  Copy(const char* name, const char* op, tsr_dtype dtype, tsr_memory_format fmt)
      : name_(name), op_(op), dtype_(dtype), fmt_(fmt) {}
  const char* name() const override { return name_; }
  const char* op() const override { return op_; }
  std::vector<prim::TensorMeta> output_meta(const prim::Tensors& in) const override;
  prim::Tensors eval_cpu(const prim::Tensors& in) override;
  prim::Tensors eval_device(const prim::Tensors& in, DeviceKernels& k) override;
  prim::Tensors backward(const prim::BackwardContext& ctx) override;

 private:
  const char* name_;
  const char* op_;
  tsr_dtype dtype_;
  tsr_memory_format fmt_;
};

// t.to(dtype): t itself when it has the dtype already, else a recorded copy
// (grad_fn ToCopyBackward0). The dtype must be valid (checked by callers).
Tensor to_dtype(const Tensor& t, tsr_dtype dtype);

}  // namespace tsr::autograd
