// Gradient clipping as torch/nn/utils/clip_grad.py (1.13):
//   norms = [vector_norm(g, p) for g in grads]      (inf: g.abs().max())
//   total = vector_norm(stack(norms), p)             (inf: max(stack(norms)))
//   coef  = clamp(max_norm / (total + 1e-6), max=1)  (Python's float / tensor
//           is reciprocal(tensor) * float)
//   g *= coef for every g
// written with the ops under no_grad, so gradients on any device work and
// the arithmetic is the tensors' (float32 for float32 gradients).
#include "optim/clip_grad.h"

#include <cmath>
#include <limits>
#include <mutex>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/error.h"
#include "core/factory.h"
#include "device/any_device.h"
#include "ops/compare.h"
#include "ops/inplace.h"
#include "ops/layout.h"
#include "ops/math.h"
#include "ops/nn_functional.h"
#include "ops/pointwise.h"
#include "ops/reductions.h"
#include "ops/to_device.h"
#include "optim/optimizer.h"

namespace tsr::optim {

namespace {

// The defined gradients of params, each checked writable in place (as the
// mul_/clamp_ torch runs on it would), before anything is written.
std::vector<Tensor> writable_grads(const std::vector<Tensor>& params, const char* op) {
  std::vector<Tensor> grads;
  for (const Tensor& p : params) {
    Tensor g = grad_of(p);
    if (!g.defined()) continue;
    ops::check_inplace_allowed(g, op);
    grads.push_back(std::move(g));
  }
  return grads;
}

double to_double(const Tensor& t) {
  return ops::contiguous(ops::to_dtype(ops::to_device(t, kCpu, false), TSR_FLOAT64), TSR_CONTIGUOUS_FORMAT)
      .data<double>()[0];
}

}  // namespace

Tensor vector_norm(const Tensor& g, double ord) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const Tensor a = ops::abs(g);
  if (ord == inf) return ops::max(a);
  if (ord == -inf) return ops::min(a);
  if (ord == 0) {
    Tensor zero = empty({}, g.dtype(), TSR_CONTIGUOUS_FORMAT, g.device());
    device::fill_any(zero, 0.0);
    return ops::sum(ops::to_dtype(ops::ne(g, zero), g.dtype()), {}, false);
  }
  if (ord == 1) return ops::sum(a, {}, false);
  if (ord == 2) return ops::sqrt(ops::sum(ops::mul(g, g), {}, false));
  return ops::pow_scalar(ops::sum(ops::pow_scalar(a, ord), {}, false), 1.0 / ord);
}

Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  autograd::NoGradGuard no_grad;
  const std::vector<Tensor> grads = writable_grads(params, "mul_");
  if (grads.empty()) {  // torch.tensor(0.)
    Tensor zero = empty({}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, kCpu);
    zero.data<float>()[0] = 0.0f;
    return zero;
  }
  const Device device = grads[0].device();
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) {
    Tensor n = std::isinf(norm_type) && norm_type > 0 ? ops::max(ops::abs(g)) : vector_norm(g, norm_type);
    norms.push_back(ops::to_device(n, device, false));
  }
  Tensor total;
  if (std::isinf(norm_type) && norm_type > 0)
    total = norms.size() == 1 ? norms[0] : ops::max(ops::stack(norms, 0));
  else
    total = vector_norm(ops::stack(norms, 0), norm_type);
  if (error_if_nonfinite) {
    const double v = to_double(total);
    TSR_CHECK(std::isfinite(v), TSR_ERR_INVALID_ARGUMENT, "The total norm of order ", py_float(norm_type),
              " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error "
              "and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  }
  const Tensor coef = ops::mul_scalar(ops::reciprocal(ops::add_scalar(total, 1e-6)), max_norm);
  const Tensor clamped = ops::clamp(coef, std::nullopt, 1.0);
  // g.detach().mul_(coef): computed whole, then written over g.
  for (const Tensor& g : grads) ops::copy_(g, ops::mul(g, ops::to_device(clamped, g.device(), false)));
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  autograd::NoGradGuard no_grad;
  for (const Tensor& g : writable_grads(params, "clamp_")) ops::copy_(g, ops::clamp(g, -clip_value, clip_value));
}

}  // namespace tsr::optim
