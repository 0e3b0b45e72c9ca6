// C API: layers, activations, normalisation, joining and indexing (the
// torch.nn.functional part of ops.h). Argument checks, then the
// differentiable op; *out is written last.
#include <tessera/ops.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "ops/nn_functional.h"

using namespace tsr;
using namespace tsr::capi;

namespace {
template <typename Fn>
tsr_status unary_call(const tsr_tensor* x, tsr_tensor** out, Fn&& fn) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    require(out, "out");
    emit(out, fn(t));
  });
}
// An optional tensor argument: NULL gives an undefined Tensor.
Tensor optional_tensor(const tsr_tensor* h) { return h ? h->tensor : Tensor(); }
}  // namespace

TSR_EXTERN tsr_status tsr_linear(const tsr_tensor* x, const tsr_tensor* weight, const tsr_tensor* bias,
                                 tsr_tensor** out) {
  return guarded([&] {
    const Tensor& xt = tensor_of(x, "x");
    const Tensor& w = tensor_of(weight, "weight");
    require(out, "out");
    emit(out, ops::linear(xt, w, optional_tensor(bias)));
  });
}

TSR_EXTERN tsr_status tsr_gelu(const tsr_tensor* x, tsr_gelu_approximate approximate, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    const int a = enum_arg(approximate);
    TSR_CHECK(a == TSR_GELU_NONE || a == TSR_GELU_TANH, TSR_ERR_INVALID_ARGUMENT,
              "approximate argument must be either none or tanh. (got tsr_gelu_approximate ", a, ")");
    require(out, "out");
    emit(out, ops::gelu(t, a == TSR_GELU_TANH));
  });
}
TSR_EXTERN tsr_status tsr_tanh(const tsr_tensor* x, tsr_tensor** out) { return unary_call(x, out, ops::tanh); }
TSR_EXTERN tsr_status tsr_sigmoid(const tsr_tensor* x, tsr_tensor** out) {
  return unary_call(x, out, ops::sigmoid);
}
TSR_EXTERN tsr_status tsr_sqrt(const tsr_tensor* x, tsr_tensor** out) { return unary_call(x, out, ops::sqrt); }

TSR_EXTERN tsr_status tsr_softmax(const tsr_tensor* x, int64_t dim, tsr_tensor** out) {
  return unary_call(x, out, [&](const Tensor& t) { return ops::softmax(t, dim); });
}
TSR_EXTERN tsr_status tsr_layer_norm(const tsr_tensor* x, int64_t n_normalized, const int64_t* normalized_shape,
                                     const tsr_tensor* weight, const tsr_tensor* bias, double eps,
                                     tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    Shape shape = shape_from(n_normalized, normalized_shape, "normalized_shape", /*nonnegative=*/true);
    require(out, "out");
    emit(out, ops::layer_norm(t, shape, optional_tensor(weight), optional_tensor(bias), eps));
  });
}

namespace {
// tensors[0..n) as core tensors: n in [0, 2^31), tensors and each handle
// non-NULL (named by position).
std::vector<Tensor> tensor_list(int64_t n, const tsr_tensor* const* tensors) {
  TSR_CHECK(n >= 0 && n <= INT32_MAX, TSR_ERR_INVALID_ARGUMENT, "n must be in [0, 2^31), got ", n);
  TSR_CHECK(n == 0 || tensors, TSR_ERR_INVALID_ARGUMENT, "tensors is NULL");
  std::vector<Tensor> ts;
  ts.reserve(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    TSR_CHECK(tensors[i], TSR_ERR_INVALID_ARGUMENT, "tensors[", i, "] is NULL");
    ts.push_back(tensors[i]->tensor);
  }
  return ts;
}
}  // namespace

TSR_EXTERN tsr_status tsr_cat(int64_t n, const tsr_tensor* const* tensors, int64_t dim, tsr_tensor** out) {
  return guarded([&] {
    std::vector<Tensor> ts = tensor_list(n, tensors);
    require(out, "out");
    emit(out, ops::cat(ts, dim));
  });
}
TSR_EXTERN tsr_status tsr_stack(int64_t n, const tsr_tensor* const* tensors, int64_t dim, tsr_tensor** out) {
  return guarded([&] {
    std::vector<Tensor> ts = tensor_list(n, tensors);
    require(out, "out");
    emit(out, ops::stack(ts, dim));
  });
}

TSR_EXTERN tsr_status tsr_pow_scalar(const tsr_tensor* x, double exponent, tsr_tensor** out) {
  return unary_call(x, out, [&](const Tensor& t) { return ops::pow_scalar(t, exponent); });
}
TSR_EXTERN tsr_status tsr_pow(const tsr_tensor* x, const tsr_tensor* exponent, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    const Tensor& e = tensor_of(exponent, "exponent");
    require(out, "out");
    emit(out, ops::pow(t, e));
  });
}
TSR_EXTERN tsr_status tsr_clamp(const tsr_tensor* x, const double* min, const double* max, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    std::optional<double> lo, hi;
    if (min) lo = *min;
    if (max) hi = *max;
    require(out, "out");
    emit(out, ops::clamp(t, lo, hi));
  });
}
TSR_EXTERN tsr_status tsr_where(const tsr_tensor* cond, const tsr_tensor* a, const tsr_tensor* b,
                                tsr_tensor** out) {
  return guarded([&] {
    const Tensor& c = tensor_of(cond, "cond");
    const Tensor& x = tensor_of(a, "a");
    const Tensor& y = tensor_of(b, "b");
    require(out, "out");
    emit(out, ops::where(c, x, y));
  });
}
TSR_EXTERN tsr_status tsr_index_select(const tsr_tensor* x, int64_t dim, const tsr_tensor* index,
                                       tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    const Tensor& i = tensor_of(index, "index");
    require(out, "out");
    emit(out, ops::index_select(t, dim, i));
  });
}
TSR_EXTERN tsr_status tsr_gather(const tsr_tensor* x, int64_t dim, const tsr_tensor* index, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& t = tensor_of(x, "x");
    const Tensor& i = tensor_of(index, "index");
    require(out, "out");
    emit(out, ops::gather(t, dim, i));
  });
}
TSR_EXTERN tsr_status tsr_embedding(const tsr_tensor* weight, const tsr_tensor* indices, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& w = tensor_of(weight, "weight");
    const Tensor& i = tensor_of(indices, "indices");
    require(out, "out");
    emit(out, ops::embedding(w, i));
  });
}
