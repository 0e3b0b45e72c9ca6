"""Gradient clipping (torch.nn.utils.clip_grad_norm_, clip_grad_value_)."""

__all__ = []
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []
# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
TENSOR_METHODS = {}
