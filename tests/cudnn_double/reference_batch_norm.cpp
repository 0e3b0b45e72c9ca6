#include "reference_batch_norm.h"

#include <cmath>
#include <functional>

#include "core/error.h"
#include "core/factory.h"
#include "cpu/kernels/cnn.h"
#include "reference_tensors.h"

namespace tsr::cudnn_double {
namespace {

Tensor wrap(const Params& p) {
  return from_blob(p.data, {p.channels}, nullptr, p.dtype, Device{TSR_DEVICE_CPU, 0}, nullptr, nullptr);
}

// The statistics' dtype the loops take for x: float64 for float64, else float32.
void check_params(const Operand& x, const Params& p) {
  TSR_CHECK(p.dtype == (x.dtype == TSR_FLOAT64 ? TSR_FLOAT64 : TSR_FLOAT32), TSR_ERR_INVALID_ARGUMENT,
            "cuDNN double: batch norm parameters of the wrong dtype");
}

template <typename T>
void store_params(const Params& out, const Tensor& v, const std::function<double(double, double)>& f) {
  T* o = static_cast<T*>(out.data);
  const Tensor c = v.dtype() == out.dtype ? v : Tensor();
  TSR_CHECK(c.defined(), TSR_ERR_INTERNAL, "cuDNN double: statistics dtype");
  const T* src = c.data<T>();
  for (int64_t i = 0; i < out.channels; ++i) o[i] = T(f(double(o[i]), double(src[i])));
}

// out[i] = f(out[i], v[i]) for a [C] parameter vector.
void update(const Params& out, const Tensor& v, const std::function<double(double, double)>& f) {
  if (!out.data) return;
  if (out.dtype == TSR_FLOAT64)
    store_params<double>(out, v, f);
  else
    store_params<float>(out, v, f);
}

}  // namespace

void batch_norm_training(const Operand& x, const Operand& y, const Params& scale, const Params& bias, double factor,
                         const Params& running_mean, const Params& running_var, double eps, const Params& save_mean,
                         const Params& save_invstd) {
  check_params(x, scale);
  const tsr_memory_format fmt = format_of(x);
  const kernels::BatchNormResult r =
      kernels::ref::batch_norm(dense_compute(x, fmt), wrap(scale), wrap(bias), Tensor(), Tensor(), true, eps, fmt);
  write(y, r.out, 1.0, 0.0);
  update(running_mean, r.mean, [&](double old, double v) { return factor == 1.0 ? v : (1 - factor) * old + factor * v; });
  update(running_var, r.unbiased_var,
         [&](double old, double v) { return factor == 1.0 ? v : (1 - factor) * old + factor * v; });
  update(save_mean, r.mean, [](double, double v) { return v; });
  update(save_invstd, r.var, [&](double, double v) { return 1.0 / std::sqrt(v + eps); });
}

void batch_norm_inference(const Operand& x, const Operand& y, const Params& scale, const Params& bias,
                          const Params& mean, const Params& var, double eps) {
  check_params(x, scale);
  const tsr_memory_format fmt = format_of(x);
  const kernels::BatchNormResult r =
      kernels::ref::batch_norm(dense_compute(x, fmt), wrap(scale), wrap(bias), wrap(mean), wrap(var), false, eps, fmt);
  write(y, r.out, 1.0, 0.0);
}

void batch_norm_backward(const Operand& x, const Operand& dy, const Operand& dx, const Params& scale,
                         const Params& dscale, const Params& dbias, double eps) {
  check_params(x, scale);
  const tsr_memory_format fmt = format_of(x);
  const Tensor xc = dense_compute(x, fmt);
  // No saved statistics: recomputed from x, as cuDNN does when given none.
  const kernels::BatchNormResult st =
      kernels::ref::batch_norm(xc, wrap(scale), Tensor(), Tensor(), Tensor(), true, eps, fmt);
  const kernels::BatchNormGrads g = kernels::ref::batch_norm_backward(dense_compute(dy, fmt), xc, wrap(scale), st.mean,
                                                                      st.var, eps, true, fmt, true, true, true);
  write(dx, g.input, 1.0, 0.0);
  update(dscale, g.weight, [](double, double v) { return v; });
  update(dbias, g.bias, [](double, double v) { return v; });
}

}  // namespace tsr::cudnn_double
