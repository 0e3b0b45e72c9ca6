#include "autograd/copy_primitive.h"

#include "autograd/run.h"
#include "core/factory.h"
#include "cpu/kernels/copy.h"
#include "device/device_ops.h"
#include "primitive/op_names.h"

namespace tsr::autograd {

namespace {
const bool registered = prim::register_op_names({"clone", "_to_copy"});
}  // namespace

std::vector<prim::TensorMeta> Copy::output_meta(const prim::Tensors& in) const {
  return {{in[0].sizes(), dtype_}};
}

prim::Tensors Copy::eval_cpu(const prim::Tensors& in) {
  Tensor out = empty_like(in[0], dtype_, fmt_);
  kernels::copy_strided(out, in[0]);
  return {out};
}

prim::Tensors Copy::eval_device(const prim::Tensors& in, DeviceKernels& k) {
  return {device::copy(k, in[0], dtype_, fmt_)};
}

prim::Tensors Copy::backward(const prim::BackwardContext& ctx) {
  return {to_dtype(ctx.grad(0), ctx.input_meta(0).dtype)};
}

Tensor to_dtype(const Tensor& t, tsr_dtype dtype) {
  if (dtype == t.dtype()) return t;
  return run1<Copy>({t}, "ToCopyBackward0", "_to_copy", dtype, TSR_PRESERVE_FORMAT);
}

}  // namespace tsr::autograd
