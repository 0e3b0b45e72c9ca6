#include "ops/layout.h"

#include "autograd/node.h"
#include "core/factory.h"
#include "core/layout.h"
#include "kernels/copy.h"
#include "ops/inplace.h"

namespace tsr::ops {

namespace {
// clone and to(dtype): the gradient passes through, converted back to the
// input's dtype.
struct CopyBackward final : autograd::Node {
  CopyBackward(const char* n, tsr_dtype in) : name_(n), input_dtype(in) {}
  std::vector<Tensor> apply(std::vector<Tensor> grads) override {
    if (grads[0].dtype() == input_dtype) return {grads[0]};
    return {kernels::contiguous_copy(grads[0], input_dtype)};
  }
  const char* name() const override { return name_; }
  const char* name_;
  tsr_dtype input_dtype;
};

Tensor copy_as(const char* name, const Tensor& t, tsr_dtype dtype, tsr_memory_format fmt) {
  Tensor out = empty_like(t, dtype, fmt);
  kernels::copy_strided(out, t);
  if (autograd::any_requires_grad({&t}))
    autograd::set_history(std::make_shared<CopyBackward>(name, t.dtype()), {&t}, {&out});
  return out;
}
}  // namespace

Tensor clone(const Tensor& t, tsr_memory_format fmt) {
  check_memory_format(fmt);
  return copy_as("CloneBackward0", t, t.dtype(), fmt);
}

Tensor contiguous(const Tensor& t, tsr_memory_format fmt) {
  TSR_CHECK(fmt != TSR_PRESERVE_FORMAT, TSR_ERR_INVALID_ARGUMENT,
            "preserve memory format is unsupported by the contiguous operator");
  strides_for_format(t.sizes(), fmt);  // rank check for channels_last
  if (is_contiguous_as(t.sizes(), t.strides(), fmt)) return t;
  return clone(t, fmt);
}

Tensor to_dtype(const Tensor& t, tsr_dtype dtype) {
  check_dtype(dtype);
  if (dtype == t.dtype()) return t;
  return copy_as("ToCopyBackward0", t, dtype, TSR_PRESERVE_FORMAT);
}

void copy_(const Tensor& dst, const Tensor& src) {
  kernels::copy_strided(dst, inplace_source(dst, src, "copy_", "src", "tsr_clone/tsr_to_dtype"));
  dst.bump_version();
}

}  // namespace tsr::ops
