// C API: torch.cuda.amp.GradScaler (grad_scaler.h) over src/amp/. The
// handle also keeps a reference to every optimizer the scaler has a stage
// for, until the next update: the scaler tells optimizers apart by their
// object (torch's id(optimizer)), which must not be freed and reused by
// another optimizer meanwhile.
#include <tessera/grad_scaler.h>

#include <atomic>
#include <map>

#include "amp/grad_scaler.h"
#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/optimizer_handle.h"
#include "capi/struct_size.h"
#include "capi/tensor_map_handle.h"

using namespace tsr;
using namespace tsr::capi;

struct tsr_grad_scaler {
  explicit tsr_grad_scaler(const amp::GradScalerOptions& o) : impl(o) {}
  ~tsr_grad_scaler() { release_held(); }
  tsr_grad_scaler(const tsr_grad_scaler&) = delete;
  tsr_grad_scaler& operator=(const tsr_grad_scaler&) = delete;

  // After a call that may have given `opt` a stage: keep it alive.
  void hold(tsr_optimizer* opt) {
    const optim::Optimizer* key = opt->impl.get();
    if (held.count(key)) return;
    for (const optim::Optimizer* t : impl.tracked())
      if (t == key) {
        retain(opt);
        held.emplace(key, opt);
      }
  }
  // After update: the scaler tracks no optimizer any more.
  void release_held() {
    for (auto& [_, h] : held) release(h);
    held.clear();
  }

  std::atomic<int64_t> refs{1};
  amp::GradScaler impl;
  std::map<const optim::Optimizer*, tsr_optimizer*> held;
};

namespace {

tsr_grad_scaler_options scaler_defaults() {
  tsr_grad_scaler_options o = TSR_GRAD_SCALER_OPTIONS_INIT;
  return o;
}

tsr_grad_scaler& scaler_of(tsr_grad_scaler* s) { return *require(s, "scaler"); }
const amp::GradScaler& scaler_of(const tsr_grad_scaler* s) { return require(s, "scaler")->impl; }
tsr_optimizer& optimizer_of(tsr_optimizer* o) {
  require(o, "optimizer");
  return *o;
}

}  // namespace

TSR_EXTERN tsr_status tsr_grad_scaler_create(const tsr_grad_scaler_options* o, tsr_grad_scaler** out) {
  return guarded([&] {
    require(out, "out");
    tsr_grad_scaler_options opts = scaler_defaults();
    if (o)
      opts = read_struct(o, opts, TSR_FIRST_VERSION_SIZE(tsr_grad_scaler_options, init_scale), "options",
                         "tsr_grad_scaler_options");
    amp::GradScalerOptions g;
    g.init_scale = opts.init_scale;
    g.growth_factor = opts.growth_factor;
    g.backoff_factor = opts.backoff_factor;
    g.growth_interval = opts.growth_interval;
    g.enabled = opts.enabled;
    *out = new tsr_grad_scaler(g);
  });
}

TSR_EXTERN tsr_status tsr_grad_scaler_scale(tsr_grad_scaler* scaler, const tsr_tensor* outputs, tsr_tensor** out) {
  return guarded([&] {
    tsr_grad_scaler& s = scaler_of(scaler);
    const Tensor& t = tensor_of(outputs, "outputs");
    require(out, "out");
    emit(out, s.impl.scale(t));
  });
}

TSR_EXTERN tsr_status tsr_grad_scaler_unscale_(tsr_grad_scaler* scaler, tsr_optimizer* optimizer) {
  return guarded([&] {
    tsr_grad_scaler& s = scaler_of(scaler);
    tsr_optimizer& o = optimizer_of(optimizer);
    s.impl.unscale_(*o.impl);
    s.hold(&o);
  });
}

TSR_EXTERN tsr_status tsr_grad_scaler_step(tsr_grad_scaler* scaler, tsr_optimizer* optimizer, bool* stepped) {
  return guarded([&] {
    tsr_grad_scaler& s = scaler_of(scaler);
    tsr_optimizer& o = optimizer_of(optimizer);
    const bool ran = s.impl.step(*o.impl);
    s.hold(&o);
    if (stepped) *stepped = ran;
  });
}

TSR_EXTERN tsr_status tsr_grad_scaler_step_deferred(tsr_grad_scaler* scaler, tsr_optimizer* optimizer,
                                                    bool* run_step) {
  return guarded([&] {
    tsr_grad_scaler& s = scaler_of(scaler);
    tsr_optimizer& o = optimizer_of(optimizer);
    require(run_step, "run_step");
    const bool run = s.impl.step_deferred(*o.impl);
    s.hold(&o);
    *run_step = run;
  });
}

TSR_EXTERN tsr_status tsr_grad_scaler_update(tsr_grad_scaler* scaler) {
  return guarded([&] {
    tsr_grad_scaler& s = scaler_of(scaler);
    s.impl.update();
    s.release_held();
  });
}

TSR_EXTERN tsr_status tsr_grad_scaler_update_scale(tsr_grad_scaler* scaler, double new_scale) {
  return guarded([&] {
    tsr_grad_scaler& s = scaler_of(scaler);
    s.impl.update(new_scale);
    s.release_held();
  });
}

TSR_EXTERN tsr_status tsr_grad_scaler_get_scale(const tsr_grad_scaler* scaler, double* scale) {
  return guarded([&] {
    const double v = scaler_of(scaler).get_scale();
    *require(scale, "scale") = v;
  });
}
TSR_EXTERN tsr_status tsr_grad_scaler_get_growth_factor(const tsr_grad_scaler* scaler, double* value) {
  return guarded([&] {
    const double v = scaler_of(scaler).growth_factor();
    *require(value, "value") = v;
  });
}
TSR_EXTERN tsr_status tsr_grad_scaler_set_growth_factor(tsr_grad_scaler* scaler, double value) {
  return guarded([&] { scaler_of(scaler).impl.set_growth_factor(value); });
}
TSR_EXTERN tsr_status tsr_grad_scaler_get_backoff_factor(const tsr_grad_scaler* scaler, double* value) {
  return guarded([&] {
    const double v = scaler_of(scaler).backoff_factor();
    *require(value, "value") = v;
  });
}
TSR_EXTERN tsr_status tsr_grad_scaler_set_backoff_factor(tsr_grad_scaler* scaler, double value) {
  return guarded([&] { scaler_of(scaler).impl.set_backoff_factor(value); });
}
TSR_EXTERN tsr_status tsr_grad_scaler_get_growth_interval(const tsr_grad_scaler* scaler, int64_t* value) {
  return guarded([&] {
    const int64_t v = scaler_of(scaler).growth_interval();
    *require(value, "value") = v;
  });
}
TSR_EXTERN tsr_status tsr_grad_scaler_set_growth_interval(tsr_grad_scaler* scaler, int64_t value) {
  return guarded([&] { scaler_of(scaler).impl.set_growth_interval(value); });
}
TSR_EXTERN tsr_status tsr_grad_scaler_get_growth_tracker(const tsr_grad_scaler* scaler, int64_t* value) {
  return guarded([&] {
    const int64_t v = scaler_of(scaler).growth_tracker();
    *require(value, "value") = v;
  });
}
TSR_EXTERN tsr_status tsr_grad_scaler_is_enabled(const tsr_grad_scaler* scaler, bool* enabled) {
  return guarded([&] {
    const bool v = scaler_of(scaler).enabled();
    *require(enabled, "enabled") = v;
  });
}

TSR_EXTERN tsr_status tsr_grad_scaler_state_dict(const tsr_grad_scaler* scaler, tsr_tensor_map** out) {
  return guarded([&] {
    const amp::GradScaler& s = scaler_of(scaler);
    require(out, "out");
    io::LoadedFile f;
    for (auto& [name, t] : s.state_dict()) {
      f.names.push_back(name);
      f.tensors.push_back(std::move(t));
    }
    *out = new tsr_tensor_map(std::move(f));
  });
}

TSR_EXTERN tsr_status tsr_grad_scaler_load_state_dict(tsr_grad_scaler* scaler, int64_t n, const char* const* names,
                                                      tsr_tensor* const* tensors) {
  return guarded([&] {
    tsr_grad_scaler& s = scaler_of(scaler);
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
    s.impl.load_state_dict(ns, ts);
  });
}

TSR_EXTERN void tsr_grad_scaler_retain(tsr_grad_scaler* scaler) { retain(scaler); }
TSR_EXTERN void tsr_grad_scaler_release(tsr_grad_scaler* scaler) { release(scaler); }
