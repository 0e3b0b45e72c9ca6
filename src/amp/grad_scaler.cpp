// torch.cuda.amp.GradScaler (torch/cuda/amp/grad_scaler.py, PyTorch 1.13)
// and the two kernels it calls (aten/src/ATen/native/cuda/AmpKernels.cu):
//   _amp_foreach_non_finite_check_and_unscale_: per element, found_inf = 1
//     if !isfinite(val); val = val * inv_scale in float (double for float64)
//   _amp_update_scale_: found_inf ? scale *= backoff, tracker = 0
//     : ++tracker == growth_interval ? scale *= growth (kept only if finite),
//       tracker = 0 : keep.
#include "amp/grad_scaler.h"

#include <cmath>
#include <limits>

#include "autograd/grad_mode.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/factory.h"
#include "core/device_allocator.h"
#include "core/device_backend.h"
#include "device/any_device.h"
#include "device/device_ops.h"
#include "device/unscale.h"
#include "ops/inplace.h"
#include "ops/layout.h"
#include "ops/math.h"
#include "ops/to_device.h"

namespace tsr::amp {

namespace {

// torch's _scale and _growth_tracker are made at the first scale(); the
// others assert on them with this advice.
constexpr const char* kInitAdvice =
    "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration.";

Tensor scalar_f64(double v) {
  Tensor t = empty({}, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT, kCpu);
  t.data<double>()[0] = v;
  return t;
}
Tensor scalar_i64(int64_t v) {
  Tensor t = empty({}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
  t.data<int64_t>()[0] = v;
  return t;
}

// The one number a loaded entry holds, as a double.
double number_of(const std::string& name, const Tensor& t) {
  TSR_CHECK(t.numel() == 1 && t.dtype() != TSR_BOOL, TSR_ERR_INVALID_ARGUMENT, "load_state_dict: \"", name,
            "\" must hold one number, not ", t.numel(), " elements of ", dtype_name(t.dtype()));
  const Tensor h = ops::contiguous(ops::to_dtype(ops::to_device(t, kCpu, false), TSR_FLOAT64),
                                   TSR_CONTIGUOUS_FORMAT);
  return h.data<double>()[0];
}

// An integer entry (torch keeps Python ints) that T holds.
template <typename T>
T integer_of(const std::string& name, const Tensor& t) {
  const double v = number_of(name, t);
  // [min, max] of T as doubles; max + 1 is exact (a power of two).
  const double lo = double(std::numeric_limits<T>::min()), hi = -lo;
  TSR_CHECK(v == std::floor(v) && v >= lo && v < hi, TSR_ERR_INVALID_ARGUMENT, "load_state_dict: \"", name,
            "\" must be an integer from ", std::numeric_limits<T>::min(), " to ", std::numeric_limits<T>::max(),
            ", got ", v);
  return T(v);
}

// The value of a reduction probe: true when it is not 0 (NaN included).
bool nonzero_value(const Tensor& probe) {
  const Tensor h = ops::contiguous(ops::to_dtype(ops::to_device(probe, kCpu, false), TSR_FLOAT32),
                                   TSR_CONTIGUOUS_FORMAT);
  return h.data<float>()[0] != 0.0f || std::isnan(h.data<float>()[0]);
}

}  // namespace

GradScaler::GradScaler(const GradScalerOptions& o)
    : enabled_(o.enabled),
      init_scale_(o.init_scale),
      growth_factor_(o.growth_factor),
      backoff_factor_(o.backoff_factor),
      growth_interval_(o.growth_interval) {
  if (enabled_) {
    TSR_CHECK(growth_factor_ > 1.0, TSR_ERR_INVALID_ARGUMENT, "The growth factor must be > 1.0.");
    TSR_CHECK(backoff_factor_ < 1.0, TSR_ERR_INVALID_ARGUMENT, "The backoff factor must be < 1.0.");
  }
}

void GradScaler::check_initialized(const char* funcname) const {
  TSR_CHECK(initialized_, TSR_ERR_INVALID_ARGUMENT, "Attempted ", funcname, " but _scale is None.  ", kInitAdvice);
}

Tensor GradScaler::scale(const Tensor& outputs) {
  if (!enabled_) return outputs;
  const float s = initialized_ ? scale_ : float(init_scale_);
  // self._scale.to(device=outputs.device): a [1] float32 tensor.
  Tensor factor = empty({1}, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, outputs.device());
  device::fill_any(factor, double(s));
  Tensor out = ops::mul(outputs, factor);
  // Lazily made as torch's _lazy_init_scale_growth_tracker, once the
  // multiplication succeeded.
  if (!initialized_) {
    scale_ = s;
    growth_tracker_ = int32_t(init_growth_tracker_);
    initialized_ = true;
  }
  return out;
}

OptStage GradScaler::stage(const optim::Optimizer& opt) const {
  auto it = per_optimizer_.find(&opt);
  return it == per_optimizer_.end() ? OptStage::Ready : it->second.stage;
}

std::vector<const optim::Optimizer*> GradScaler::tracked() const {
  std::vector<const optim::Optimizer*> out;
  for (const auto& [opt, _] : per_optimizer_) out.push_back(opt);
  return out;
}

namespace {

// _unscale_grads_'s loop: the gradients to unscale, checked before any is
// written (torch raises in this loop, before its kernels run).
std::vector<Tensor> grads_to_unscale(const optim::Optimizer& opt) {
  std::vector<Tensor> grads;
  for (size_t i = 0; i < opt.num_params(); ++i) {
    Tensor g = optim::grad_of(opt.param(i));
    if (!g.defined()) continue;
    TSR_CHECK(g.dtype() != TSR_FLOAT16, TSR_ERR_INVALID_ARGUMENT, "Attempting to unscale FP16 gradients.");
    TSR_CHECK(is_floating(g.dtype()), TSR_ERR_DTYPE_MISMATCH, "unscale_: params[", i, "] has a gradient of dtype ",
              dtype_name(g.dtype()), ": gradients must be floating point");
    ops::check_inplace_allowed(g, "_amp_foreach_non_finite_check_and_unscale_");
    grads.push_back(std::move(g));
  }
  return grads;
}

struct FoundInf {
  int64_t devices = 0;
  bool found = false;
};

// _amp_foreach_non_finite_check_and_unscale_ over grads, one found_inf per
// device. On a device with kernels, the dense gradients go through the
// fused kernel (device/unscale.h: one launch per 32 gradients, found_inf a
// float32 flag on the device). The others, and every CPU gradient, take
// the ops path: an element is non-finite exactly when it times 0 is NaN,
// so the sum of g * 0 over a device's gradients is NaN when any is (and 0
// else, with no overflow whatever the values). Both read each gradient
// before it is unscaled, as torch's kernel does.
FoundInf check_and_unscale(const std::vector<Tensor>& grads, float inv_scale) {
  autograd::NoGradGuard no_grad;
  std::vector<std::pair<Device, Tensor>> probes;
  auto add_probe = [&](Device d, const Tensor& p) {
    auto it = probes.begin();
    while (it != probes.end() && !(it->first == d)) ++it;
    if (it == probes.end()) probes.emplace_back(d, p);
    else it->second = ops::add(it->second, p);
  };
  std::vector<std::pair<Device, std::vector<Tensor>>> fused;
  for (const Tensor& g : grads) {
    DeviceKernels* k = g.device().type == TSR_DEVICE_CPU ? nullptr : backend_for(g.device()).kernels();
    if (k && device::fusable_for_unscale(g)) {
      auto it = fused.begin();
      while (it != fused.end() && !(it->first == g.device())) ++it;
      if (it == fused.end()) fused.emplace_back(g.device(), std::vector<Tensor>{g});
      else it->second.push_back(g);
      continue;
    }
    add_probe(g.device(), ops::to_dtype(ops::sum(ops::mul_scalar(g, 0.0), Shape{}, false), TSR_FLOAT32));
    ops::mul_scalar_(g, double(inv_scale));
  }
  for (const auto& [d, list] : fused) {
    DeviceKernels& k = *backend_for(d).kernels();
    Tensor found = device::zeros(k, Shape{}, TSR_FLOAT32, d);
    device::non_finite_check_and_unscale(k, list, inv_scale, found);
    for (const Tensor& g : list) g.bump_version();
    add_probe(d, found);
  }
  FoundInf out;
  out.devices = int64_t(probes.size());
  for (const auto& [_, p] : probes) out.found = out.found || nonzero_value(p);
  return out;
}

}  // namespace

void GradScaler::unscale_(const optim::Optimizer& opt) {
  if (!enabled_) return;
  check_initialized("unscale_");
  const OptStage st = stage(opt);
  TSR_CHECK(st != OptStage::Unscaled, TSR_ERR_INVALID_ARGUMENT,
            "unscale_() has already been called on this optimizer since the last update().");
  TSR_CHECK(st != OptStage::Stepped, TSR_ERR_INVALID_ARGUMENT, "unscale_() is being called after step().");
  const std::vector<Tensor> grads = grads_to_unscale(opt);
  // FP32 division can be imprecise for certain compile options, so torch
  // carries out the reciprocal in FP64: _scale.double().reciprocal().float().
  const float inv_scale = float(1.0 / double(scale_));
  const FoundInf f = check_and_unscale(grads, inv_scale);
  PerOptimizer& state = per_optimizer_[&opt];
  state.devices_checked = f.devices;
  state.found_inf = f.found;
  state.stage = OptStage::Unscaled;
}

bool GradScaler::step_impl(optim::Optimizer& opt, bool run_step) {
  if (!enabled_) {
    if (run_step) opt.step();
    return true;
  }
  check_initialized("step");
  const OptStage st = stage(opt);
  TSR_CHECK(st != OptStage::Stepped, TSR_ERR_INVALID_ARGUMENT,
            "step() has already been called since the last update().");
  if (st == OptStage::Ready) {
    // unscale_'s checks, then the step's and torch's assertion, all before
    // any gradient changes; torch would leave the gradients unscaled and
    // the stage UNSCALED when these fail.
    const std::vector<Tensor> grads = grads_to_unscale(opt);
    if (run_step) opt.checked_grads();
    TSR_CHECK(!grads.empty(), TSR_ERR_INVALID_ARGUMENT, "No inf checks were recorded for this optimizer.");
    unscale_(opt);
  } else {
    TSR_CHECK(per_optimizer_.at(&opt).devices_checked > 0, TSR_ERR_INVALID_ARGUMENT,
              "No inf checks were recorded for this optimizer.");
  }
  PerOptimizer& state = per_optimizer_.at(&opt);
  const bool will_step = !state.found_inf;
  if (will_step && run_step) opt.step();
  state.stage = OptStage::Stepped;
  return will_step;
}

void GradScaler::update() {
  if (!enabled_) return;
  check_initialized("update");
  int64_t checks = 0;
  bool found_inf = false;
  for (const auto& [_, s] : per_optimizer_) {
    checks += s.devices_checked;
    found_inf = found_inf || s.found_inf;
  }
  TSR_CHECK(checks > 0, TSR_ERR_INVALID_ARGUMENT, "No inf checks were recorded prior to update.");
  // _amp_update_scale_cuda_kernel: float scale times double factor, stored
  // as float; int tracker.
  if (found_inf) {
    scale_ = float(double(scale_) * backoff_factor_);
    growth_tracker_ = 0;
  } else {
    // Wraps as the kernel's int would after 2^31 updates (growth_interval
    // <= 0 never grows), without signed overflow.
    const int32_t successful = int32_t(uint32_t(growth_tracker_) + 1u);
    if (successful == growth_interval_) {
      const float grown = float(double(scale_) * growth_factor_);
      if (std::isfinite(grown)) scale_ = grown;  // not past float32's bounds to inf
      growth_tracker_ = 0;
    } else {
      growth_tracker_ = successful;
    }
  }
  per_optimizer_.clear();
}

void GradScaler::update(double new_scale) {
  if (!enabled_) return;
  check_initialized("update");
  scale_ = float(new_scale);  // self._scale.fill_(new_scale)
  per_optimizer_.clear();
}

double GradScaler::get_scale() const {
  if (!enabled_) return 1.0;
  return initialized_ ? double(scale_) : init_scale_;
}

int64_t GradScaler::growth_tracker() const {
  if (!enabled_) return 0;
  return initialized_ ? growth_tracker_ : init_growth_tracker_;
}

std::vector<std::pair<std::string, Tensor>> GradScaler::state_dict() const {
  if (!enabled_) return {};
  return {{"_growth_tracker", scalar_i64(growth_tracker())},
          {"backoff_factor", scalar_f64(backoff_factor_)},
          {"growth_factor", scalar_f64(growth_factor_)},
          {"growth_interval", scalar_i64(growth_interval_)},
          {"scale", scalar_f64(get_scale())}};
}

void GradScaler::load_state_dict(const std::vector<std::string>& names, const std::vector<Tensor>& tensors) {
  if (!enabled_) return;
  static const char* const kKeys[] = {"scale", "growth_factor", "backoff_factor", "growth_interval",
                                      "_growth_tracker"};
  const Tensor* found[5] = {};
  int present = 0;
  for (size_t n = 0; n < names.size(); ++n)
    for (int k = 0; k < 5; ++k)
      if (names[n] == kKeys[k]) {
        if (!found[k]) ++present;
        found[k] = &tensors[n];
      }
  TSR_CHECK(present > 0, TSR_ERR_INVALID_ARGUMENT,
            "The source state dict is empty, possibly because it was saved from a disabled instance of "
            "GradScaler.");
  for (int k = 0; k < 5; ++k)
    TSR_CHECK(found[k], TSR_ERR_INVALID_ARGUMENT, "load_state_dict: \"", kKeys[k], "\" is missing");
  const double scale = number_of("scale", *found[0]);
  const double growth = number_of("growth_factor", *found[1]);
  const double backoff = number_of("backoff_factor", *found[2]);
  const int64_t interval = integer_of<int64_t>("growth_interval", *found[3]);
  // torch fills its int32 tracker tensor with the value.
  const int32_t tracker = integer_of<int32_t>("_growth_tracker", *found[4]);
  // Everything read: commit.
  init_scale_ = scale;
  if (initialized_) scale_ = float(scale);
  growth_factor_ = growth;
  backoff_factor_ = backoff;
  growth_interval_ = interval;
  init_growth_tracker_ = tracker;
  if (initialized_) growth_tracker_ = tracker;
}

}  // namespace tsr::amp
