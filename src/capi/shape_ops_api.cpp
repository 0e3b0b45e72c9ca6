// C API: factories and shape ops (shape_ops.h). Arguments are checked, then
// the differentiable op runs; out values are written last, so a failing
// call leaves them untouched.
#include <tessera/shape_ops.h>

#include <string>
#include <vector>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "core/dtype.h"
#include "ops/shape_ops.h"

using namespace tsr;
using namespace tsr::capi;

namespace {
Shape ints_arg(int64_t n, const int64_t* v, const char* what) { return shape_from(n, v, what, false); }
}  // namespace

TSR_EXTERN tsr_status tsr_linspace(double start, double end, int64_t steps, tsr_dtype dtype, tsr_tensor** out) {
  return guarded([&] {
    check_dtype(enum_arg(dtype));
    require(out, "out");
    emit(out, ops::linspace(start, end, steps, dtype));
  });
}

TSR_EXTERN tsr_status tsr_eye(int64_t n, int64_t m, tsr_dtype dtype, tsr_tensor** out) {
  return guarded([&] {
    check_dtype(enum_arg(dtype));
    require(out, "out");
    emit(out, ops::eye(n, m, dtype));
  });
}

TSR_EXTERN tsr_status tsr_tril(const tsr_tensor* x, int64_t diagonal, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    require(out, "out");
    emit(out, ops::triangle(t, diagonal, false));
  });
}

TSR_EXTERN tsr_status tsr_triu(const tsr_tensor* x, int64_t diagonal, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    require(out, "out");
    emit(out, ops::triangle(t, diagonal, true));
  });
}

TSR_EXTERN tsr_status tsr_tril_(tsr_tensor* x, int64_t diagonal) {
  return guarded([&] { ops::triangle_(tensor_of(x, "x"), diagonal, false); });
}

TSR_EXTERN tsr_status tsr_triu_(tsr_tensor* x, int64_t diagonal) {
  return guarded([&] { ops::triangle_(tensor_of(x, "x"), diagonal, true); });
}

TSR_EXTERN tsr_status tsr_flip(const tsr_tensor* x, int64_t n, const int64_t* dims, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    const Shape d = ints_arg(n, dims, "dims");
    require(out, "out");
    emit(out, ops::flip(t, d));
  });
}

TSR_EXTERN tsr_status tsr_roll(const tsr_tensor* x, int64_t n_shifts, const int64_t* shifts, int64_t n_dims,
                               const int64_t* dims, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    const Shape s = ints_arg(n_shifts, shifts, "shifts"), d = ints_arg(n_dims, dims, "dims");
    require(out, "out");
    emit(out, ops::roll(t, s, d));
  });
}

TSR_EXTERN tsr_status tsr_repeat(const tsr_tensor* x, int64_t n, const int64_t* repeats, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    const Shape r = ints_arg(n, repeats, "repeats");
    require(out, "out");
    emit(out, ops::repeat(t, r));
  });
}

TSR_EXTERN tsr_status tsr_tile(const tsr_tensor* x, int64_t n, const int64_t* reps, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    const Shape r = ints_arg(n, reps, "reps");
    require(out, "out");
    emit(out, ops::tile(t, r));
  });
}

TSR_EXTERN tsr_status tsr_einsum(const char* equation, int64_t n, const tsr_tensor* const* operands,
                                 tsr_tensor** out) {
  return guarded([&] {
    require(equation, "equation");
    TSR_CHECK(n >= 1, TSR_ERR_INVALID_ARGUMENT, "einsum(): must provide at least one operand (n = ", n, ")");
    require(operands, "operands");
    std::vector<Tensor> ts;
    for (int64_t i = 0; i < n; ++i) ts.push_back(tensor_of(operands[i], "operand"));
    require(out, "out");
    emit(out, ops::einsum(equation, ts));
  });
}
