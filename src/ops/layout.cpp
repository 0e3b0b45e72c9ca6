#include "primitive/op_names.h"
#include "ops/layout.h"

#include "autograd/run.h"
#include "core/factory.h"
#include "core/layout.h"
#include "device/device_ops.h"
#include "cpu/kernels/copy.h"

namespace tsr::ops {

namespace {

const bool registered = prim::register_op_names({"clone", "_to_copy"});

// clone and to(dtype): a copy into a fresh tensor laid out by fmt; the
// gradient passes through, converted back to the input's dtype.
class Copy final : public prim::Primitive {
 public:
  Copy(const char* name, const char* op, tsr_dtype dtype, tsr_memory_format fmt)
      : name_(name), op_(op), dtype_(dtype), fmt_(fmt) {}
  const char* name() const override { return name_; }
  const char* op() const override { return op_; }
  std::vector<prim::TensorMeta> output_meta(const prim::Tensors& in) const override {
    return {{in[0].sizes(), dtype_}};
  }
  prim::Tensors eval_cpu(const prim::Tensors& in) override {
    Tensor out = empty_like(in[0], dtype_, fmt_);
    kernels::copy_strided(out, in[0]);
    return {out};
  }
  prim::Tensors eval_device(const prim::Tensors& in, DeviceKernels& k) override {
    return {device::copy(k, in[0], dtype_, fmt_)};
  }
  prim::Tensors backward(const prim::BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    const tsr_dtype in = ctx.input_meta(0).dtype;
    return {g.dtype() == in ? g : to_dtype(g, in)};
  }

 private:
  const char* name_;
  const char* op_;
  tsr_dtype dtype_;
  tsr_memory_format fmt_;
};
}  // namespace

Tensor clone(const Tensor& t, tsr_memory_format fmt) {
  check_memory_format(fmt);
  return autograd::run1<Copy>({t}, "CloneBackward0", "clone", t.dtype(), fmt);
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
  return autograd::run1<Copy>({t}, "ToCopyBackward0", "_to_copy", dtype, TSR_PRESERVE_FORMAT);
}

}  // namespace tsr::ops
