// torch.cuda.amp.GradScaler of PyTorch 1.13 (torch/cuda/amp/grad_scaler.py)
// for tessera's optimizers, on any device: the loss multiplied by a scale
// factor, the optimizer's gradients unscaled and checked for infs/NaNs, its
// step skipped when one is found, and the scale backed off or grown.
//
// The state is torch's: the scale as a float32 value (torch keeps a
// 1-element float32 tensor), the int32 growth tracker, both made at the
// first scale() (until then get_scale() is the init_scale as given), and
// per optimizer a stage (READY / UNSCALED / STEPPED) with what its inf
// checks found, cleared by update(). The two CUDA kernels torch calls are
// reproduced on the host value (update_scale, torch's
// _amp_update_scale_cuda_kernel) and, for the gradients, torch's
// _amp_foreach_non_finite_check_and_unscale_: on a device with kernels one
// fused launch per 32 dense gradients (device/unscale.h), elsewhere the ops
// layer, so gradients of any floating dtype but float16 (torch refuses
// those), any strides and any device work.
//
// Above src/optim in the layering: it drives an optimizer's step.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "optim/optimizer.h"

namespace tsr::amp {

struct GradScalerOptions {
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  bool enabled = true;
};

// torch's OptState.
enum class OptStage { Ready, Unscaled, Stepped };

class GradScaler {
 public:
  // torch's __init__: when enabled, growth_factor > 1 and backoff_factor < 1
  // (its assertions' messages), else TSR_ERR_INVALID_ARGUMENT.
  explicit GradScaler(const GradScalerOptions& o);

  bool enabled() const { return enabled_; }

  // scale(outputs): outputs * the scale, a 1-element float32 tensor on
  // outputs' device (so torch's promotion and broadcasting: a 0-dim float16
  // loss gives a float32 tensor of sizes [1]), recorded by autograd as
  // torch's MulBackward0. Disabled: outputs itself.
  Tensor scale(const Tensor& outputs);

  // unscale_(optimizer): every gradient of opt multiplied in place by the
  // float32 reciprocal of the scale, under no_grad, and checked for
  // infs/NaNs. Every check is made before any gradient is written.
  void unscale_(const optim::Optimizer& opt);

  // step(optimizer): unscale_ unless done since the last update, then
  // opt.step() unless an inf/NaN was found. Returns whether opt stepped.
  // Disabled: opt.step(), true.
  bool step(optim::Optimizer& opt) { return step_impl(opt, true); }
  // step() without calling opt.step(): for a binding whose optimizer's step
  // is its own code. Returns whether the caller must run it.
  bool step_deferred(optim::Optimizer& opt) { return step_impl(opt, false); }

  // update(): the scale backed off if any optimizer's check found an
  // inf/NaN, else grown after growth_interval such updates in a row;
  // every optimizer's stage back to READY.
  void update();
  // update(new_scale): the scale set to float32(new_scale), the tracker
  // kept; every optimizer's stage back to READY.
  void update(double new_scale);

  // get_scale(): the scale; init_scale before the first scale(); 1 when
  // disabled.
  double get_scale() const;
  // _get_growth_tracker(): 0 when disabled.
  int64_t growth_tracker() const;
  double growth_factor() const { return growth_factor_; }
  double backoff_factor() const { return backoff_factor_; }
  int64_t growth_interval() const { return growth_interval_; }
  // torch's setters check nothing.
  void set_growth_factor(double v) { growth_factor_ = v; }
  void set_backoff_factor(double v) { backoff_factor_ = v; }
  void set_growth_interval(int64_t v) { growth_interval_ = v; }

  // The stage of opt since the last update (READY if never seen).
  OptStage stage(const optim::Optimizer& opt) const;
  // Optimizers that have a stage other than READY or an inf check since the
  // last update (the binding keeps them alive until then).
  std::vector<const optim::Optimizer*> tracked() const;

  // state_dict(): torch's five entries ("scale", "growth_factor",
  // "backoff_factor" as 0-dim float64 CPU tensors, "growth_interval",
  // "_growth_tracker" as 0-dim int64 CPU tensors), names in byte order;
  // none when disabled.
  std::vector<std::pair<std::string, Tensor>> state_dict() const;
  // load_state_dict(): the five entries (other names ignored), all checked
  // before anything changes. Disabled: nothing happens.
  void load_state_dict(const std::vector<std::string>& names, const std::vector<Tensor>& tensors);

 private:
  struct PerOptimizer {
    OptStage stage = OptStage::Ready;
    int64_t devices_checked = 0;  // len(found_inf_per_device)
    bool found_inf = false;       // any of them nonzero
  };
  bool step_impl(optim::Optimizer& opt, bool run_step);
  // torch's _check_scale_growth_tracker(funcname).
  void check_initialized(const char* funcname) const;

  bool enabled_;
  double init_scale_;
  double growth_factor_;
  double backoff_factor_;
  int64_t growth_interval_;
  int64_t init_growth_tracker_ = 0;
  bool initialized_ = false;  // torch's _scale is not None
  float scale_ = 0;
  int32_t growth_tracker_ = 0;
  std::map<const optim::Optimizer*, PerOptimizer> per_optimizer_;
};

}  // namespace tsr::amp
