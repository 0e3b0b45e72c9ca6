#include "device/pointwise_ops.h"

#include "core/dtype.h"
#include "core/error.h"
#include "core/factory.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/map.h"
#include "device/device_ops.h"
#include "device/kernel_args.h"

namespace tsr::device {

namespace {

// out = op(x, alpha) computed in `compute`, the op's own dtype (16-bit
// floats compute in float; x rounded to it first, as the CPU's converted()).
Tensor unary_in(DeviceKernels& k, UnaryKernel op, const Tensor& x, double alpha, tsr_dtype out_dtype,
                tsr_dtype compute) {
  Tensor out = empty_strided(x.sizes(), kernels::output_strides(x.sizes(), {&x}), out_dtype, x.device());
  const Stream s = current_stream(x.device());
  for_each_launch(out.sizes(), {operand(out), operand(x)}, {out.strides(), broadcast_strides(x, out.sizes())},
                  [&](const KernelShape& shape, const std::vector<KernelOperand>& ops) {
                    k.unary(op, shape, ops[0], ops[1], alpha, compute, s);
                  });
  return out;
}

void clamp_in_place(DeviceKernels& k, UnaryKernel op, const Tensor& out, double bound) {
  const Stream s = current_stream(out.device());
  for_each_launch(out.sizes(), {operand(out), operand(out)}, {out.strides(), out.strides()},
                  [&](const KernelShape& shape, const std::vector<KernelOperand>& ops) {
                    k.unary(op, shape, ops[0], ops[1], bound, out.dtype(), s);
                  });
}

// An integer hardtanh bound as torch takes it: T(toLong(v)), wrapped to d.
double integer_bound(double v, tsr_dtype d) {
  const int64_t l = int64_t(v);
  switch (d) {
    case TSR_UINT8: return double(uint8_t(l));
    case TSR_INT8: return double(int8_t(l));
    case TSR_INT16: return double(int16_t(l));
    case TSR_INT32: return double(int32_t(l));
    default: return double(l);
  }
}

UnaryKernel kernel_of(kernels::Pw op) {
  using kernels::Pw;
  switch (op) {
    case Pw::Silu: return UnaryKernel::Silu;
    case Pw::LeakyRelu: return UnaryKernel::LeakyRelu;
    case Pw::Elu: return UnaryKernel::Elu;
    case Pw::Sin: return UnaryKernel::Sin;
    case Pw::Cos: return UnaryKernel::Cos;
    case Pw::Rsqrt: return UnaryKernel::Rsqrt;
    case Pw::Reciprocal: return UnaryKernel::Reciprocal;
    case Pw::Floor: return UnaryKernel::Floor;
    case Pw::Ceil: return UnaryKernel::Ceil;
    case Pw::Round: return UnaryKernel::Round;
    case Pw::Trunc: return UnaryKernel::Trunc;
    case Pw::Sign: return UnaryKernel::Sign;
    case Pw::Softplus:
    case Pw::Hardtanh: break;  // callers handle these
  }
  return UnaryKernel::Sign;
}

}  // namespace

Tensor pointwise(DeviceKernels& k, kernels::Pw op, const Tensor& x, const kernels::PwArgs& p) {
  const tsr_dtype d = kernels::pw_result_dtype(op, x.dtype(), p);
  if (is_storage_only(d)) fail_dtype_dispatch(d);
  TSR_CHECK(op != kernels::Pw::Softplus, TSR_ERR_UNSUPPORTED, "softplus: no kernel for device ",
            device_name(x.device()), " in this build");
  if (op == kernels::Pw::Hardtanh) {
    // std::min(std::max(v, lo), hi): max then min, the second in place on
    // an exact element of d.
    const bool integer = !is_floating(d);
    Tensor out = unary_in(k, UnaryKernel::ClampMin, x, integer ? integer_bound(p.a, d) : p.a, d, d);
    if (out.numel() > 0) clamp_in_place(k, UnaryKernel::ClampMax, out, integer ? integer_bound(p.b, d) : p.b);
    return out;
  }
  return unary_in(k, kernel_of(op), x, p.a, d, d);
}

Tensor abs(DeviceKernels& k, const Tensor& x) {
  TSR_CHECK(x.dtype() != TSR_BOOL, TSR_ERR_DTYPE_MISMATCH, "\"abs_cpu\" not implemented for 'Bool'");
  if (is_storage_only(x.dtype())) fail_dtype_dispatch(x.dtype());
  return unary_in(k, UnaryKernel::Abs, x, 0.0, x.dtype(), x.dtype());
}

Tensor sign(DeviceKernels& k, const Tensor& x) {
  if (is_storage_only(x.dtype())) fail_dtype_dispatch(x.dtype());
  return unary_in(k, UnaryKernel::Sign, x, 0.0, x.dtype(), x.dtype());  // bool: itself (0 < b)
}

Tensor greater_mask_any(const Tensor& x, double v) {
  if (x.device().type == TSR_DEVICE_CPU) return kernels::greater_mask(x, v);
  if (is_storage_only(x.dtype())) fail_dtype_dispatch(x.dtype());
  return unary_in(kernels_for(x.device()), UnaryKernel::GtScalar, x, v, TSR_BOOL, x.dtype());
}

}  // namespace tsr::device
