"""Gradient clipping: torch.nn.utils.clip_grad_norm_ / clip_grad_norm /
clip_grad_value_ of PyTorch 1.13 (include/tessera/clip_grad.h), exported as
tessera.nn.utils.X (UTILS), not as tessera.X (torch has no torch.X)."""
import warnings

from . import _core
from ._handles import TensorList

__all__ = []
# tessera.nn.utils's names.
UTILS = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_"]
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []
# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
TENSOR_METHODS = {}


def _params(parameters):
    if isinstance(parameters, _core.Tensor):
        parameters = [parameters]
    native = TensorList()
    try:
        for p in parameters:
            native.append(p)
    except BaseException:
        native.close()
        raise
    return native


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """torch.nn.utils.clip_grad_norm_: scales every .grad in place so that
    their total norm (as if concatenated) is at most max_norm; returns the
    total norm before clipping, a 0-dim tensor. norm_type may be inf
    (float or 'inf'). A non-finite total with error_if_nonfinite raises
    torch's RuntimeError and changes nothing."""
    max_norm = float(max_norm)
    norm_type = float(norm_type)  # float('inf') for 'inf', as torch
    with _params(parameters) as native:
        return _core.clip_grad_norm(native, max_norm, norm_type, bool(error_if_nonfinite))


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Deprecated in torch in favor of clip_grad_norm_ (same call)."""
    warnings.warn("torch.nn.utils.clip_grad_norm is now deprecated in favor of torch.nn.utils.clip_grad_norm_.",
                  stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)


def clip_grad_value_(parameters, clip_value):
    """torch.nn.utils.clip_grad_value_: every .grad clamped in place to
    [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with _params(parameters) as native:
        _core.clip_grad_value(native, clip_value)


