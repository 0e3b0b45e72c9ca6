#include "kernels/indexing.h"

#include "kernels/map.h"

namespace tsr::kernels {

tsr_dtype where_result_dtype(const Tensor& cond, const Tensor& a, const Tensor& b) {
  TSR_CHECK(cond.dtype() == TSR_BOOL || cond.dtype() == TSR_UINT8, TSR_ERR_DTYPE_MISMATCH,
            "where expected condition to be a boolean tensor, but got a tensor with dtype ",
            scalar_type_name(cond.dtype()), " (", dtype_name(cond.dtype()), ")");
  return binary_result_dtype(BinaryOp::Mul, a, b);
}

Tensor where(const Tensor& cond0, const Tensor& a0, const Tensor& b0) {
  const tsr_dtype d = where_result_dtype(cond0, a0, b0);
  const Shape shape = broadcast_shapes(broadcast_shapes(cond0.sizes(), a0.sizes()), b0.sizes());
  const Tensor cond = converted(cond0, TSR_BOOL), a = converted(a0, d), b = converted(b0, d);
  Tensor out = new_output(shape, {&cond0, &a0, &b0}, d);
  dispatch_all(d, [&]<typename T>() {
    using C = compute_t<T>;
    map<T, bool, T, T>(out, [](bool c, C x, C y) { return c ? x : y; }, {cond, a, b});
  });
  return out;
}

}  // namespace tsr::kernels
