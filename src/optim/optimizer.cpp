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

void Optimizer::add_param_group(std::vector<Tensor> params, const Options& overrides) {
  const size_t first = params_.size();
  // The constructor (the first group) checks its options before the
  // parameters, as torch's __init__ does.
  if (groups_.empty()) check_options(defaults_);
  TSR_CHECK(!params.empty() || !groups_.empty(), TSR_ERR_INVALID_ARGUMENT, "optimizer got an empty parameter list");
  for (size_t k = 0; k < params.size(); ++k) {
    const Tensor& p = params[k];
    const size_t i = first + k;
    TSR_CHECK(autograd::is_leaf(p), TSR_ERR_INVALID_ARGUMENT, "can't optimize a non-leaf Tensor (params[", i,
              "] has grad_fn ", autograd::grad_fn(p)->name(), ")");
    TSR_CHECK(is_floating(p.dtype()), TSR_ERR_DTYPE_MISMATCH, "params[", i, "] has dtype ", dtype_name(p.dtype()),
              ": only floating point tensors can be optimized");
    for (size_t j = 0; j < k; ++j)
      TSR_CHECK(!params[j].is_same(p), TSR_ERR_INVALID_ARGUMENT,
                "optimizer contains a parameter group with duplicate parameters (params[", first + j,
                "] and params[", i, "] are the same tensor)");
    for (size_t j = 0; j < first; ++j)
      TSR_CHECK(!params_[j].is_same(p), TSR_ERR_INVALID_ARGUMENT,
                "some parameters appear in more than one parameter group (params[", j, "] and params[", i,
                "] are the same tensor)");
  }
  Options merged = defaults_;
  for (const auto& [key, value] : overrides) merged[key] = value;
  TSR_CHECK(!std::isnan(merged.at("lr")), TSR_ERR_INVALID_ARGUMENT,
            "parameter group didn't specify a value of required optimization parameter lr");
  check_options(merged);
  // Everything checked: commit.
  params_.insert(params_.end(), params.begin(), params.end());
  state_.resize(params_.size());
  groups_.push_back({first, params.size(), std::move(merged)});
}

const ParamGroup& Optimizer::group(size_t g) const {
  TSR_CHECK(g < groups_.size(), TSR_ERR_INVALID_ARGUMENT, "group index ", g, " is out of range for ",
            groups_.size(), " parameter groups");
  return groups_[g];
}

bool Optimizer::has_option(size_t g, std::string_view key) const {
  const Options& o = group(g).options;
  return o.find(key) != o.end();
}

double Optimizer::option(size_t g, std::string_view key) const {
  const Options& o = group(g).options;
  auto it = o.find(key);
  TSR_CHECK(it != o.end(), TSR_ERR_INVALID_ARGUMENT, "param_groups[", g, "] has no option \"", key, "\"");
  return it->second;
}

void Optimizer::set_option(size_t g, std::string_view key, double value) {
  Options o = group(g).options;
  o[std::string(key)] = value;
  if (defaults_.find(key) != defaults_.end()) {
    if (key == "lr") check_lr(value);  // NaN included: an lr must be a number
    check_options(o);
  }
  groups_[g].options = std::move(o);
}

std::vector<Options> Optimizer::option_snapshot() const {
  std::vector<Options> out;
  for (const ParamGroup& g : groups_) out.push_back(g.options);
  return out;
}

void Optimizer::restore_options(std::vector<Options> options) {
  for (size_t g = 0; g < groups_.size() && g < options.size(); ++g) groups_[g].options = std::move(options[g]);
}

bool Optimizer::knows_key(std::string_view key) const {
  for (const std::string& k : state_keys())
    if (k == key) return true;
  return false;
}

Tensor Optimizer::state(size_t i, std::string_view key) const {
  TSR_CHECK(i < params_.size(), TSR_ERR_INVALID_ARGUMENT, "param_index ", i, " is out of range for ",
            params_.size(), " parameters");
  TSR_CHECK(knows_key(key), TSR_ERR_INVALID_ARGUMENT, "this optimizer keeps no state \"", key, "\"");
  auto it = state_[i].find(key);
  return it == state_[i].end() ? Tensor() : it->second;
}

void Optimizer::replace_state(std::vector<std::map<std::string, Tensor, std::less<>>> states,
                              std::vector<Options> options) {
  TSR_CHECK(states.size() == state_.size() && options.size() == groups_.size(), TSR_ERR_INTERNAL,
            "replace_state: sizes do not match the optimizer");
  state_ = std::move(states);
  for (size_t g = 0; g < groups_.size(); ++g) groups_[g].options = std::move(options[g]);
}

Tensor grad_of(const Tensor& p) {
  auto* meta = p.impl()->autograd.get();
  if (!meta) return Tensor();
  std::lock_guard<std::mutex> lock(meta->mutex);
  return meta->grad;
}

std::vector<Tensor> Optimizer::checked_grads() const {
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
  return grads;
}

void Optimizer::step() {
  const std::vector<Tensor> grads = checked_grads();
  autograd::NoGradGuard no_grad;
  for (const ParamGroup& g : groups_)
    for (size_t i = g.first; i < g.first + g.count; ++i)
      if (grads[i].defined()) update(i, params_[i], grads[i], g.options);
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
