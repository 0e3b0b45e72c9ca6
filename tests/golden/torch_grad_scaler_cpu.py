"""torch.cuda.amp.GradScaler of PyTorch 1.13 running on CPU tensors: the
reference for tessera's GradScaler (tests/golden/gen_grad_scaler.py,
bindings/python/tests/test_grad_scaler.py, bindings/support/grad_scaler_golden.py).

torch 1.13's GradScaler (torch/cuda/amp/grad_scaler.py) needs CUDA only for
its two kernels and a few assertions; its state machine (stages per
optimizer, found_inf per device, step skipping, update, state_dict) is plain
Python. So this module runs torch's own class with only these replaced:
- torch._amp_foreach_non_finite_check_and_unscale_ and torch._amp_update_scale_,
  whose 1.13 builds have no CPU kernel, by the few lines of their CUDA
  kernels (aten/src/ATen/native/cuda/AmpKernels.cu) on CPU tensors:
    unscale: per element, found_inf = 1 if !isfinite(val);
             val = (opmath)val * inv_scale (float for half/bfloat16/float,
             double for double), stored in the gradient's dtype;
    update:  found_inf ? scale = float(scale * backoff), tracker = 0
             : (++tracker == growth_interval ? scale = float(scale * growth)
                if finite, tracker = 0 : tracker kept)
- the assertions `is_cuda` in scale() and _MultiDeviceReplicator, by
  CPUGradScaler.scale (the same lines without the assertion) and a
  replicator without it;
- amp_definitely_not_available(), which disables a scaler without CUDA.

    from torch_grad_scaler_cpu import CPUGradScaler
"""
import math
from collections import abc

import torch
from torch.cuda.amp import grad_scaler as _gs


def _foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale):
    inv = float(inv_scale.item())  # a float32 value
    for g in grads:
        if not bool(torch.isfinite(g).all()):
            found_inf.fill_(1.0)
        if g.dtype == torch.float64:
            g.mul_(inv)  # double opmath: val * (double)inv
        elif inv != 1.0:
            # float opmath: the product rounded to float, then to g's dtype
            g.copy_((g.float() * torch.tensor(inv, dtype=torch.float32)).to(g.dtype))


def _update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    s = float(scale.item())
    if float(found_inf.item()):
        scale.fill_(s * backoff_factor)  # float * double, stored as float
        growth_tracker.fill_(0)
    else:
        successful = int(growth_tracker.item()) + 1
        if successful == growth_interval:
            new_scale = float(torch.tensor(s * growth_factor, dtype=torch.float32))
            if math.isfinite(new_scale):
                scale.fill_(new_scale)
            growth_tracker.fill_(0)
        else:
            growth_tracker.fill_(successful)
    return scale


class _Replicator(_gs._MultiDeviceReplicator):
    def __init__(self, master_tensor):  # torch's, less the is_cuda assertion
        self.master = master_tensor
        self._per_device_tensors = {}


torch._amp_foreach_non_finite_check_and_unscale_ = _foreach_non_finite_check_and_unscale_
torch._amp_update_scale_ = _update_scale_
_gs._MultiDeviceReplicator = _Replicator
_gs.amp_definitely_not_available = lambda: False


class CPUGradScaler(_gs.GradScaler):
    """torch.cuda.amp.GradScaler on CPU tensors (module docstring)."""

    def scale(self, outputs):
        """torch 1.13's GradScaler.scale, less its two is_cuda assertions."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, torch.Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            return outputs * self._scale.to(device=outputs.device, non_blocking=True)
        stash = []

        def apply_scale(val):
            if isinstance(val, torch.Tensor):
                if len(stash) == 0:
                    if self._scale is None:
                        self._lazy_init_scale_growth_tracker(val.device)
                    stash.append(_Replicator(self._scale))
                return val * stash[0].get(val.device)
            elif isinstance(val, abc.Iterable):
                iterable = map(apply_scale, val)
                if isinstance(val, list) or isinstance(val, tuple):
                    return type(val)(iterable)
                else:
                    return iterable
            else:
                raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)
