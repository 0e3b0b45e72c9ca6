// C API: optimizers and initializers (optim.h). Argument checks, then
// src/optim/; *out is written last.
#include <tessera/optim.h>

#include <cmath>
#include <limits>
#include <optional>

#include "capi/barrier.h"
#include "capi/generator_handle.h"
#include "capi/handles.h"
#include "capi/optimizer_handle.h"
#include "capi/tensor_map_handle.h"
#include "capi/struct_size.h"
#include "optim/init.h"
#include "optim/optimizer.h"
#include "optim/state_dict.h"

using namespace tsr;
using namespace tsr::capi;


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
  return guarded([&] { opt_of(opt).set_option(0, "lr", lr); });
}
TSR_EXTERN tsr_status tsr_optimizer_get_lr(const tsr_optimizer* opt, double* lr) {
  return guarded([&] {
    const double v = opt_of(opt).option(0, "lr");
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
// ---- parameter groups and state_dict -----------------------------------------

TSR_EXTERN tsr_status tsr_optimizer_add_param_group(tsr_optimizer* opt, tsr_tensor* const* params, size_t num_params,
                                                    const char* const* option_keys, const double* option_values,
                                                    size_t num_options) {
  return guarded([&] {
    optim::Optimizer& o = opt_of(opt);
    std::vector<Tensor> ps = param_list(params, num_params);
    TSR_CHECK(num_options == 0 || (option_keys && option_values), TSR_ERR_INVALID_ARGUMENT,
              "option_keys or option_values is NULL");
    optim::Options overrides;
    for (size_t k = 0; k < num_options; ++k) {
      TSR_CHECK(option_keys[k], TSR_ERR_INVALID_ARGUMENT, "option_keys[", k, "] is NULL");
      overrides[option_keys[k]] = option_values[k];
    }
    o.add_param_group(std::move(ps), overrides);
  });
}
TSR_EXTERN int64_t tsr_optimizer_param_group_count(const tsr_optimizer* opt) {
  return guarded_value<int64_t>(-1, [&] { return int64_t(opt_of(opt).num_groups()); });
}
TSR_EXTERN int64_t tsr_optimizer_param_group_size(const tsr_optimizer* opt, size_t group) {
  return guarded_value<int64_t>(-1, [&] { return int64_t(opt_of(opt).group(group).count); });
}
TSR_EXTERN int64_t tsr_optimizer_group_option_count(const tsr_optimizer* opt, size_t group) {
  return guarded_value<int64_t>(-1, [&] { return int64_t(opt_of(opt).group(group).options.size()); });
}
TSR_EXTERN const char* tsr_optimizer_group_option_key(const tsr_optimizer* opt, size_t group, size_t i) {
  return guarded_value<const char*>(nullptr, [&]() -> const char* {
    const optim::Options& o = opt_of(opt).group(group).options;
    TSR_CHECK(i < o.size(), TSR_ERR_INVALID_ARGUMENT, "option index ", i, " is out of range for ", o.size(),
              " options");
    return std::next(o.begin(), std::ptrdiff_t(i))->first.c_str();
  });
}
TSR_EXTERN tsr_status tsr_optimizer_get_group_option(const tsr_optimizer* opt, size_t group, const char* key,
                                                     double* value) {
  return guarded([&] {
    const optim::Optimizer& o = opt_of(opt);
    require(key, "key");
    require(value, "value");
    *value = o.option(group, key);
  });
}
TSR_EXTERN tsr_status tsr_optimizer_set_group_option(tsr_optimizer* opt, size_t group, const char* key,
                                                     double value) {
  return guarded([&] {
    optim::Optimizer& o = opt_of(opt);
    require(key, "key");
    o.set_option(group, key, value);
  });
}
TSR_EXTERN tsr_status tsr_optimizer_state_dict(const tsr_optimizer* opt, tsr_tensor_map** out) {
  return guarded([&] {
    const optim::Optimizer& o = opt_of(opt);
    require(out, "out");
    optim::NamedTensors sd = optim::state_dict(o);
    io::LoadedFile f;
    f.names = std::move(sd.names);
    f.tensors = std::move(sd.tensors);
    *out = new tsr_tensor_map(std::move(f));
  });
}
TSR_EXTERN tsr_status tsr_optimizer_load_state_dict(tsr_optimizer* opt, int64_t n, const char* const* names,
                                                    tsr_tensor* const* tensors) {
  return guarded([&] {
    optim::Optimizer& o = opt_of(opt);
    TSR_CHECK(n >= 0, TSR_ERR_INVALID_ARGUMENT, "n must be >= 0, got ", n);
    TSR_CHECK(n == 0 || (names && tensors), TSR_ERR_INVALID_ARGUMENT, "names or tensors is NULL");
    std::vector<std::string> ns;
    std::vector<Tensor> ts;
    for (int64_t i = 0; i < n; ++i) {
      TSR_CHECK(names[i], TSR_ERR_INVALID_ARGUMENT, "names[", i, "] is NULL");
      TSR_CHECK(tensors[i], TSR_ERR_INVALID_ARGUMENT, "tensors[", i, "] is NULL");
      ns.emplace_back(names[i]);
      ts.push_back(tensors[i]->tensor);
    }
    optim::load_state_dict(o, ns, ts);
  });
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
