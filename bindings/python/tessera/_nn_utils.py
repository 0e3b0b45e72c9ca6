"""tessera.nn.utils: torch.nn.utils (clip_grad_norm_, clip_grad_norm,
clip_grad_value_)."""
from . import _clip_grad

globals().update({_name: getattr(_clip_grad, _name) for _name in _clip_grad.UTILS})
__all__ = list(_clip_grad.UTILS)
