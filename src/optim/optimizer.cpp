#include "optim/optimizer.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/factory.h"
#include "cpu/kernels/copy.h"
#include "device/any_device.h"
#include "ops/inplace.h"

namespace tsr::optim {

std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // Shortest round-trip digits, then Python's repr layout: positional for
  // decimal exponents in [-4, 16), else d.ddde+XX (at least two digits).
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, r.ptr);
  std::string sign;
  if (s[0] == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  const size_t e = s.find('e');
  const int exp = std::atoi(s.c_str() + e + 1);
  std::string digits = s.substr(0, e);
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  if (exp >= -4 && exp < 16) {
    std::string out;
    if (exp < 0) {
      out = "0." + std::string(size_t(-exp - 1), '0') + digits;
    } else if (size_t(exp) + 1 >= digits.size()) {
      out = digits + std::string(size_t(exp) + 1 - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, size_t(exp) + 1) + "." + digits.substr(size_t(exp) + 1);
    }
    return sign + out;
  }
  std::string mant = digits.size() > 1 ? digits.substr(0, 1) + "." + digits.substr(1) : digits;
  char ebuf[16];
  std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
  return sign + mant + ebuf;
}

void check_lr(double lr) {
  TSR_CHECK(!std::isnan(lr), TSR_ERR_INVALID_ARGUMENT,
            "lr is required (torch.optim.SGD has no default learning rate): set options.lr");
  TSR_CHECK(lr >= 0.0, TSR_ERR_INVALID_ARGUMENT, "Invalid learning rate: ", py_float(lr));
}

Tensor zeros_like(const Tensor& t) {
  Tensor z = empty_like(t, TSR_PRESERVE_FORMAT);
  device::fill_any(z, 0.0);
  return z;
}

Optimizer::Optimizer(std::vector<Tensor> params, double lr) : lr_(lr), params_(std::move(params)) {
  TSR_CHECK(!params_.empty(), TSR_ERR_INVALID_ARGUMENT, "optimizer got an empty parameter list");
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    TSR_CHECK(autograd::is_leaf(p), TSR_ERR_INVALID_ARGUMENT, "can't optimize a non-leaf Tensor (params[", i,
              "] has grad_fn ", autograd::grad_fn(p)->name(), ")");
    TSR_CHECK(is_floating(p.dtype()), TSR_ERR_DTYPE_MISMATCH, "params[", i, "] has dtype ", dtype_name(p.dtype()),
              ": only floating point tensors can be optimized");
    for (size_t j = 0; j < i; ++j)
      TSR_CHECK(!params_[j].is_same(p), TSR_ERR_INVALID_ARGUMENT,
                "optimizer contains a parameter group with duplicate parameters (params[", j, "] and params[", i,
                "] are the same tensor)");
  }
  state_.resize(params_.size());
}

void Optimizer::set_lr(double lr) {
  check_lr(lr);
  lr_ = lr;
}

Tensor Optimizer::state(size_t i, std::string_view key) const {
  TSR_CHECK(i < params_.size(), TSR_ERR_INVALID_ARGUMENT, "param_index ", i, " is out of range for ",
            params_.size(), " parameters");
  TSR_CHECK(knows_key(key), TSR_ERR_INVALID_ARGUMENT, "this optimizer keeps no state \"", key, "\"");
  auto it = state_[i].find(key);
  return it == state_[i].end() ? Tensor() : it->second;
}

namespace {
// p.grad, read under the leaf's lock (a backward on another thread may be
// accumulating into it).
Tensor grad_of(const Tensor& p) {
  auto* meta = p.impl()->autograd.get();
  if (!meta) return Tensor();
  std::lock_guard<std::mutex> lock(meta->mutex);
  return meta->grad;
}
}  // namespace

void Optimizer::step() {
  std::vector<Tensor> grads(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    Tensor g = grad_of(p);
    if (!g.defined()) continue;
    TSR_CHECK(g.sizes() == p.sizes(), TSR_ERR_SHAPE_MISMATCH, "step: params[", i, "] has sizes ", p.sizes(),
              " but its grad has sizes ", g.sizes());
    TSR_CHECK(g.dtype() == p.dtype(), TSR_ERR_DTYPE_MISMATCH, "step: params[", i, "] has dtype ",
              dtype_name(p.dtype()), " but its grad has dtype ", dtype_name(g.dtype()));
    TSR_CHECK(g.device() == p.device(), TSR_ERR_DEVICE_MISMATCH,
              "Expected all tensors to be on the same device, but found at least two devices, ",
              device_name(p.device()), " and ", device_name(g.device()), "! (params[", i, "] and its grad)");
    TSR_CHECK(!kernels::has_internal_overlap(p), TSR_ERR_INVALID_ARGUMENT, "step: params[", i,
              "]: unsupported operation: more than one element of the written-to tensor refers to a single "
              "memory location. Please clone() the tensor before performing the operation.");
    grads[i] = std::move(g);
  }
  autograd::NoGradGuard no_grad;
  for (size_t i = 0; i < params_.size(); ++i)
    if (grads[i].defined()) update(i, params_[i], grads[i]);
}

void Optimizer::zero_grad(bool set_to_none) {
  autograd::NoGradGuard no_grad;
  for (const Tensor& p : params_) {
    auto* meta = p.impl()->autograd.get();
    if (!meta) continue;
    Tensor g;
    {
      std::lock_guard<std::mutex> lock(meta->mutex);
      if (!meta->grad.defined()) continue;
      if (set_to_none) {
        meta->grad = Tensor();
        continue;
      }
      // torch 1.13: a grad with history is detached, else its
      // requires_grad is turned off; then zeroed in place.
      if (autograd::grad_fn(meta->grad)) meta->grad = autograd::detach(meta->grad);
      else if (autograd::requires_grad(meta->grad)) autograd::set_requires_grad(meta->grad, false);
      g = meta->grad;
    }
    ops::zero_(g);
  }
}

}  // namespace tsr::optim
