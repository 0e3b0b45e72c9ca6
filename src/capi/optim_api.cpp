// C API: optimizers and initializers (optim.h). Argument checks, then
// src/optim/; *out is written last.
#include <tessera/optim.h>

#include <cmath>
#include <limits>
#include <optional>

#include "capi/barrier.h"
#include "capi/generator_handle.h"
#include "capi/handles.h"
#include "capi/struct_size.h"
#include "optim/init.h"
#include "optim/optimizer.h"

using namespace tsr;
using namespace tsr::capi;

struct tsr_optimizer {
  explicit tsr_optimizer(std::unique_ptr<optim::Optimizer> o) : impl(std::move(o)) {}
  std::atomic<int64_t> refs{1};
  std::unique_ptr<optim::Optimizer> impl;
};

namespace {

tsr_sgd_options sgd_defaults() {
  tsr_sgd_options o{};
  o.struct_size = sizeof o;
  o.lr = std::numeric_limits<double>::quiet_NaN();  // required: no default
  o.momentum = o.dampening = o.weight_decay = 0;
  o.nesterov = false;
  return o;
}
tsr_adam_options adam_defaults() {
  tsr_adam_options o{};
  o.struct_size = sizeof o;
  o.lr = 1e-3;
  o.beta1 = 0.9;
  o.beta2 = 0.999;
  o.eps = 1e-8;
  o.weight_decay = 0;
  o.amsgrad = false;
  return o;
}

std::vector<Tensor> param_list(tsr_tensor* const* params, size_t n) {
  TSR_CHECK(n == 0 || params, TSR_ERR_INVALID_ARGUMENT, "params is NULL");
  std::vector<Tensor> ps;
  ps.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    TSR_CHECK(params[i], TSR_ERR_INVALID_ARGUMENT, "params[", i, "] is NULL");
    ps.push_back(params[i]->tensor);
  }
  return ps;
}

optim::Optimizer& opt_of(const tsr_optimizer* o) { return *require(o, "optimizer")->impl; }

tsr_status make_adam_like(tsr_tensor* const* params, size_t n, const tsr_adam_options* o, tsr_optimizer** out,
                          bool decoupled) {
  return guarded([&] {
    std::vector<Tensor> ps = param_list(params, n);
    require(out, "out");
    tsr_adam_options opts = adam_defaults();
    if (o)
      opts = read_struct(o, opts, TSR_FIRST_VERSION_SIZE(tsr_adam_options, lr), "options", "tsr_adam_options");
    auto impl = optim::make_adam(std::move(ps),
                                 {opts.lr, opts.beta1, opts.beta2, opts.eps, opts.weight_decay, opts.amsgrad},
                                 decoupled);
    *out = new tsr_optimizer(std::move(impl));
  });
}

}  // namespace

TSR_EXTERN void tsr_sgd_options_init(tsr_sgd_options* o) {
  if (o) *o = sgd_defaults();
}
TSR_EXTERN void tsr_adam_options_init(tsr_adam_options* o) {
  if (o) *o = adam_defaults();
}

TSR_EXTERN tsr_status tsr_optimizer_sgd(tsr_tensor* const* params, size_t num_params, const tsr_sgd_options* o,
                                        tsr_optimizer** out) {
  return guarded([&] {
    std::vector<Tensor> ps = param_list(params, num_params);
    require(out, "out");
    tsr_sgd_options opts = sgd_defaults();
    if (o) opts = read_struct(o, opts, TSR_FIRST_VERSION_SIZE(tsr_sgd_options, lr), "options", "tsr_sgd_options");
    auto impl = optim::make_sgd(std::move(ps),
                                {opts.lr, opts.momentum, opts.dampening, opts.weight_decay, opts.nesterov});
    *out = new tsr_optimizer(std::move(impl));
  });
}
TSR_EXTERN tsr_status tsr_optimizer_adam(tsr_tensor* const* params, size_t num_params, const tsr_adam_options* o,
                                         tsr_optimizer** out) {
  return make_adam_like(params, num_params, o, out, false);
}
TSR_EXTERN tsr_status tsr_optimizer_adamw(tsr_tensor* const* params, size_t num_params, const tsr_adam_options* o,
                                          tsr_optimizer** out) {
  return make_adam_like(params, num_params, o, out, true);
}

TSR_EXTERN tsr_status tsr_optimizer_step(tsr_optimizer* opt) {
  return guarded([&] { opt_of(opt).step(); });
}
TSR_EXTERN tsr_status tsr_optimizer_zero_grad(tsr_optimizer* opt, bool set_to_none) {
  return guarded([&] { opt_of(opt).zero_grad(set_to_none); });
}
TSR_EXTERN tsr_status tsr_optimizer_set_lr(tsr_optimizer* opt, double lr) {
  return guarded([&] { opt_of(opt).set_lr(lr); });
}
TSR_EXTERN tsr_status tsr_optimizer_get_lr(const tsr_optimizer* opt, double* lr) {
  return guarded([&] {
    const double v = opt_of(opt).lr();
    *require(lr, "lr") = v;
  });
}
TSR_EXTERN tsr_status tsr_optimizer_state(const tsr_optimizer* opt, size_t param_index, const char* key,
                                          tsr_tensor** out) {
  return guarded([&] {
    const optim::Optimizer& o = opt_of(opt);
    require(key, "key");
    require(out, "out");
    Tensor t = o.state(param_index, key);
    if (t.defined()) emit(out, std::move(t));
    else *out = nullptr;
  });
}
TSR_EXTERN int64_t tsr_optimizer_num_params(const tsr_optimizer* opt) {
  return guarded_value<int64_t>(-1, [&] { return int64_t(opt_of(opt).num_params()); });
}
TSR_EXTERN void tsr_optimizer_retain(tsr_optimizer* opt) { retain(opt); }
TSR_EXTERN void tsr_optimizer_release(tsr_optimizer* opt) { release(opt); }

// ---- torch.nn.init ----------------------------------------------------------

TSR_EXTERN tsr_status tsr_init_calculate_gain(const char* nonlinearity, const double* param, double* gain) {
  return guarded([&] {
    require(nonlinearity, "nonlinearity");
    require(gain, "gain");
    const double g = init::calculate_gain(nonlinearity, param ? std::optional<double>(*param) : std::nullopt);
    *gain = g;
  });
}
TSR_EXTERN tsr_status tsr_init_calculate_fan_in_and_fan_out(const tsr_tensor* t, int64_t* fan_in,
                                                            int64_t* fan_out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(fan_in, "fan_in");
    require(fan_out, "fan_out");
    const auto [fi, fo] = init::fan_in_and_fan_out(x);
    *fan_in = fi;
    *fan_out = fo;
  });
}
TSR_EXTERN tsr_status tsr_init_kaiming_uniform_(tsr_tensor* t, double a, const char* mode,
                                                const char* nonlinearity, tsr_generator* g) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(g, "generator");
    init::kaiming_uniform_(x, a, mode ? mode : "fan_in", nonlinearity ? nonlinearity : "leaky_relu", g->gen);
  });
}
TSR_EXTERN tsr_status tsr_init_xavier_uniform_(tsr_tensor* t, double gain, tsr_generator* g) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(g, "generator");
    init::xavier_uniform_(x, gain, g->gen);
  });
}
TSR_EXTERN tsr_status tsr_init_zeros_(tsr_tensor* t) {
  return guarded([&] { init::zeros_(tensor_of(t)); });
}
TSR_EXTERN tsr_status tsr_init_normal_(tsr_tensor* t, double mean, double std, tsr_generator* g) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(g, "generator");
    init::normal_(x, mean, std, g->gen);
  });
}
TSR_EXTERN tsr_status tsr_init_uniform_(tsr_tensor* t, double a, double b, tsr_generator* g) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(g, "generator");
    init::uniform_(x, a, b, g->gen);
  });
}
